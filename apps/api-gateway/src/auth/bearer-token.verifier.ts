import { Inject, Injectable } from '@nestjs/common';
import { ApiError, ErrorName, mcpResourceUrl, type Caller, type Scope } from '@crm/contracts';
import { LOGGER } from '@crm/service-kit';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { GatewayConfig } from '../config/gateway.config';
import { assertBilling } from './billing';
import { BoundedCache } from './bounded-cache';
import { CredentialsVerifier } from './credentials.verifier';

const SCOPES = new Set<Scope>(['crm', 'crm.readonly', 'mcp']);

export type TokenAudience = 'api' | 'mcp';

interface AccessTokenClaims extends JWTPayload {
  scope?: string;
  client_id?: string;
  gid?: string;
}

/**
 * Verifies OAuth access tokens (RFC 9068 JWTs, ES256) with the auth-server's cached JWKS, then
 * asks whether the token's grant was revoked and what the user's current record is
 * ({@link CredentialsVerifier.tokenStatus}: memory while the invalidation channel is live, else
 * Redis in one round trip, else the auth-server over NATS; if that fails too, 503).
 * A revoked family, a changed API key or a deleted user is refused on every replica at once.
 * A token whose signature and claims were verified is remembered (by its full text and audience)
 * until its `exp`, at most CREDENTIAL_CACHE_TTL_MS: the signature cannot change, and revocation
 * is still checked on every request.
 */
@Injectable()
export class BearerTokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  private readonly audiences: Record<TokenAudience, string[]>;
  private readonly verified: BoundedCache<string, AccessTokenClaims>;

  constructor(
    private readonly config: GatewayConfig,
    private readonly credentials: CredentialsVerifier,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.verified = new BoundedCache(config.CREDENTIAL_CACHE_MAX_ENTRIES);
    this.jwks = createRemoteJWKSet(new URL(`${config.AUTH_URL}/oauth/jwks`), {
      cacheMaxAge: 10 * 60_000,
      cooldownDuration: config.JWKS_REFETCH_COOLDOWN_MS,
      timeoutDuration: 3000,
    });
    const baseUrls = [...config.regionBaseUrls.values()];
    this.audiences = { api: baseUrls, mcp: baseUrls.map(mcpResourceUrl) };
  }

  /**
   * `api`: tokens for the REST API (audience: a regional base URL); `mcp`: tokens for the MCP
   * endpoint (audience: its resource URL). Neither is accepted by the other (RFC 8707; the MCP
   * specification forbids passing tokens through to other resources).
   */
  async verify(token: string, audience: TokenAudience = 'api'): Promise<Caller> {
    const claims = await this.verifiedClaims(token, audience);
    if (!claims.sub || !claims.gid) throw new ApiError(ErrorName.InvalidAccessToken);
    const { record, revoked } = await this.credentials.tokenStatus(claims.sub, claims.gid);
    if (revoked || !record.found) throw new ApiError(ErrorName.InvalidAccessToken, 'The access token has been revoked');
    assertBilling(record.billing_status);
    const scopes = (claims.scope ?? '').split(' ').filter((s): s is Scope => SCOPES.has(s as Scope));
    return {
      account_id: record.account_id,
      user_id: record.user_id,
      role: record.role,
      auth_method: 'oauth',
      scopes,
      client_id: claims.client_id,
    };
  }

  private async verifiedClaims(token: string, audience: TokenAudience): Promise<AccessTokenClaims> {
    const key = `${audience} ${token}`;
    const remembered = this.verified.get(key);
    if (remembered) return remembered;
    const claims = await this.verifySignature(token, this.audiences[audience]);
    if (claims.exp !== undefined)
      this.verified.set(key, claims, Math.min(claims.exp * 1000, Date.now() + this.config.CREDENTIAL_CACHE_TTL_MS));
    return claims;
  }

  private async verifySignature(token: string, audience: string[]): Promise<AccessTokenClaims> {
    try {
      const { payload } = await jwtVerify<AccessTokenClaims>(token, this.jwks, {
        issuer: this.config.AUTH_ISSUER,
        audience,
        typ: 'at+jwt',
        algorithms: ['ES256', 'EdDSA'],
        clockTolerance: 5,
      });
      return payload;
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      if (code === 'ERR_JWKS_TIMEOUT' || (code === 'ERR_JOSE_GENERIC' && /fetch|network/i.test((error as Error).message))) {
        this.logger.warn({ detail: (error as Error).message }, 'auth-server keys unavailable');
        throw new ApiError(ErrorName.ServiceUnavailable, 'Token keys are temporarily unavailable; retry shortly');
      }
      throw new ApiError(ErrorName.InvalidAccessToken, code === 'ERR_JWT_EXPIRED' ? 'The access token has expired' : undefined);
    }
  }
}
