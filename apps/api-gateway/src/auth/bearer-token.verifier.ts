import { Inject, Injectable } from '@nestjs/common';
import {
  ApiError,
  CacheKeys,
  ErrorName,
  mcpResourceUrl,
  openCredentialRecord,
  Subjects,
  type Caller,
  type Scope,
  type TokenStatusReply,
} from '@crm/contracts';
import { RpcClient } from '@crm/messaging';
import { LOGGER, REDIS } from '@crm/service-kit';
import type { Redis } from 'ioredis';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { GatewayConfig } from '../config/gateway.config';
import { assertBilling } from './billing';

const SCOPES = new Set<Scope>(['crm', 'crm.readonly', 'mcp']);

export type TokenAudience = 'api' | 'mcp';

interface AccessTokenClaims extends JWTPayload {
  scope?: string;
  client_id?: string;
  gid?: string;
}

/**
 * Verifies OAuth access tokens (RFC 9068 JWTs, ES256) with the auth-server's cached JWKS, then
 * asks Redis in one round trip whether the token's grant was revoked and what the user's current
 * record is. If Redis cannot answer, the auth-server is asked over NATS; if that fails too, 503.
 * A revoked family, a changed API key or a deleted user is refused on every replica at once.
 */
@Injectable()
export class BearerTokenVerifier {
  private readonly jwks: ReturnType<typeof createRemoteJWKSet>;
  private readonly audiences: Record<TokenAudience, string[]>;

  constructor(
    private readonly config: GatewayConfig,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly rpc: RpcClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
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
    const claims = await this.verifySignature(token, this.audiences[audience]);
    if (!claims.sub || !claims.gid) throw new ApiError(ErrorName.InvalidAccessToken);
    const { record, revoked } = await this.status(claims.sub, claims.gid);
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

  private async status(userId: string, grantId: string): Promise<TokenStatusReply> {
    try {
      const ns = this.config.CRM_NAMESPACE;
      const [record, revoked] = await this.redis.mget(CacheKeys.credentials(ns, userId), CacheKeys.revokedGrant(ns, grantId));
      const opened = record ? openCredentialRecord(this.config.API_KEY_PEPPER, userId, record) : null;
      if (opened) return { record: opened, revoked: revoked !== null };
      if (record) this.logger.warn({ user_id: userId }, 'a credential record in Redis is not sealed by the auth-server; asking it');
      // No user record cached: the auth-server answers both from the database.
    } catch (error) {
      this.logger.warn({ detail: (error as Error).message }, 'Redis unavailable; asking the auth-server about the token');
    }
    return this.rpc.request<TokenStatusReply>(Subjects.TokenStatus, { user_id: userId, grant_id: grantId });
  }
}
