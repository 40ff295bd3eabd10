import { Injectable } from '@nestjs/common';
import { ApiError, ErrorName, type Caller } from '@crm/contracts';
import type { IncomingHttpHeaders } from 'node:http';
import { BearerTokenVerifier } from './bearer-token.verifier';
import { GatewayConfig } from '../config/gateway.config';
import { CredentialsVerifier } from './credentials.verifier';

/** Parses `Authorization: Basic base64(user_id:api_key)` or `Bearer <token>`. */
export function parseAuthorization(
  header: string | undefined,
):
  { scheme: 'basic'; userId: string; apiKey: string } | { scheme: 'bearer'; token: string } | { scheme: 'none' } | { scheme: 'malformed' } {
  if (!header || !header.trim()) return { scheme: 'none' };
  const match = /^(\S+)\s+(\S+)\s*$/.exec(header.trim());
  if (!match) return { scheme: 'malformed' };
  const [, scheme, value] = match;
  if (/^basic$/i.test(scheme)) {
    const decoded = Buffer.from(value, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return { scheme: 'malformed' };
    return { scheme: 'basic', userId: decoded.slice(0, colon), apiKey: decoded.slice(colon + 1) };
  }
  if (/^bearer$/i.test(scheme)) return { scheme: 'bearer', token: value };
  return { scheme: 'malformed' };
}

const REALM = 'realm="CRM API v3"';

/**
 * Authenticates an API request: API key (HTTP Basic) or OAuth bearer token, with the error names
 * of decisions.md's authentication table. A 401 carries the WWW-Authenticate challenge.
 */
@Injectable()
export class ApiAuthenticator {
  constructor(
    private readonly verifier: CredentialsVerifier,
    private readonly bearer: BearerTokenVerifier,
    private readonly config: GatewayConfig,
  ) {}

  async authenticate(headers: IncomingHttpHeaders): Promise<Caller> {
    try {
      return await this.verify(headers);
    } catch (error) {
      if (error instanceof ApiError && error.http === 401) error.withHeader('WWW-Authenticate', challenge(error));
      throw error;
    }
  }

  private verify(headers: IncomingHttpHeaders): Promise<Caller> {
    const auth = parseAuthorization(headers.authorization);
    switch (auth.scheme) {
      case 'none':
        throw new ApiError(ErrorName.AuthorizationDataNotFound);
      case 'malformed':
        throw new ApiError(
          ErrorName.InvalidLogin,
          'The Authorization header is malformed: use Basic base64(user_id:api_key) or Bearer <token>',
        );
      case 'basic':
        // An API key is a long-lived full-access secret: never from a web page of another origin.
        if (headers.origin && headers.origin !== this.config.PUBLIC_URL) {
          throw new ApiError(
            ErrorName.InvalidLogin,
            'API keys are not accepted from web pages of other origins; a browser app uses an OAuth access token',
          );
        }
        return this.verifier.verifyApiKey(auth.userId, auth.apiKey);
      case 'bearer':
        return this.bearer.verify(auth.token);
    }
  }
}

/** RFC 9110 11.6.1: both schemes the API takes; a bad bearer token also says why (RFC 6750). */
function challenge(error: ApiError): string {
  if (error.errorName === ErrorName.InvalidAccessToken) {
    return `Bearer ${REALM}, error="invalid_token", error_description="${error.message.replace(/["\\]/g, '')}"`;
  }
  return `Basic ${REALM}, charset="UTF-8", Bearer ${REALM}`;
}
