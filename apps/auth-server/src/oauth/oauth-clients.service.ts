import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import type { RegisterClientRequest, RegisterClientResponse } from './dto/register-client.request';
import { PasswordHashing } from '../security/password-hashing';
import { BrowserOrigins } from './browser-origins';
import { OAuthClientsRepository } from './oauth-clients.repository';
import { redirectUriProblem } from './oauth-policy';

/** Answered as the OAuth-style `{ error: "invalid_redirect_uri", error_description }` body. */
export class InvalidRedirectUriError extends Error {}

@Injectable()
export class OAuthClientsService {
  constructor(
    private readonly clients: OAuthClientsRepository,
    private readonly hashing: PasswordHashing,
    private readonly browserOrigins: BrowserOrigins,
  ) {}

  async register(request: RegisterClientRequest): Promise<RegisterClientResponse> {
    for (const uri of request.redirect_uris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new InvalidRedirectUriError(`redirect_uri ${uri} ${problem}`);
    }
    const clientId = `crm_${randomBytes(16).toString('hex')}`;
    const confidential = request.token_endpoint_auth_method !== 'none';
    const secret = confidential ? randomBytes(32).toString('base64url') : undefined;
    await this.clients.insert({
      client_id: clientId,
      client_name: request.client_name,
      redirect_uris: [...new Set(request.redirect_uris)],
      scope: [...new Set(request.scope.split(' '))].join(' '),
      grant_types: request.grant_types ?? ['authorization_code', 'refresh_token'],
      token_endpoint_auth_method: request.token_endpoint_auth_method,
      secret_hash: secret ? await this.hashing.hash(secret) : null,
    });
    if (!confidential) await this.browserOrigins.add(request.redirect_uris);
    return secret ? { client_id: clientId, client_secret: secret } : { client_id: clientId };
  }
}
