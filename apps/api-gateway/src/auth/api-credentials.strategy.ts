import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ApiError, ErrorName, type Caller } from '@crm/contracts';
import type { Request } from 'express';
import { Strategy } from 'passport-custom';
import { BearerTokenVerifier } from './bearer-token.verifier';
import { GatewayConfig } from '../config/gateway.config';
import { CredentialsVerifier } from './credentials.verifier';

export const API_CREDENTIALS_STRATEGY = 'crm-api';

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

/**
 * The API's passport strategy: API key (HTTP Basic) or OAuth bearer token, with the error names of
 * decisions.md's authentication table.
 */
@Injectable()
export class ApiCredentialsStrategy extends PassportStrategy(Strategy, API_CREDENTIALS_STRATEGY) {
  constructor(
    private readonly verifier: CredentialsVerifier,
    private readonly bearer: BearerTokenVerifier,
    private readonly config: GatewayConfig,
  ) {
    super();
  }

  async validate(req: Request): Promise<Caller> {
    const auth = parseAuthorization(req.header('authorization'));
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
        if (req.headers.origin && req.headers.origin !== this.config.PUBLIC_URL) {
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
