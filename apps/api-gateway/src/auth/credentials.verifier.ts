import { Inject, Injectable, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { hashApiKey, isId, safeEqual } from '@crm/common';
import {
  ApiError,
  CacheKeys,
  ErrorName,
  openCredentialRecord,
  Subjects,
  type Caller,
  type CredentialRecord,
  type TokenStatusReply,
} from '@crm/contracts';
import { RpcClient } from '@crm/messaging';
import { LOGGER, METRICS_REGISTRY, REDIS, type RedisClient } from '@crm/service-kit';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { GatewayConfig } from '../config/gateway.config';
import { assertBilling } from './billing';
import { CredentialCache, type FillTicket } from './credential-cache';

/**
 * Checks HTTP Basic `user_id:api_key` against the keyed hash the auth-server mirrors to Redis, and
 * answers the bearer verifier's question about a token's user and grant. Records and grant flags
 * read from Redis are kept in memory while the invalidation channel is live ({@link CredentialCache});
 * otherwise each request reads Redis. A Redis miss, or Redis being down, asks the auth-server over
 * NATS (which refills Redis); if that fails too the request gets 503: authentication never fails open.
 */
@Injectable()
export class CredentialsVerifier implements OnModuleInit, OnApplicationShutdown {
  /** Public for tests: whether it is in use, and its fills. */
  readonly cache: CredentialCache;
  private readonly lookups: Counter<'source'>;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly rpc: RpcClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    this.cache = new CredentialCache(redis, config, logger);
    this.lookups = new Counter({
      name: 'gateway_credential_lookups_total',
      help: 'Credential record lookups (API keys, access tokens) by source: memory, redis, miss, unsealed, redis_error',
      labelNames: ['source'],
      registers: [registry],
    });
  }

  onModuleInit(): void {
    this.cache.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.cache.stop();
  }

  async verifyApiKey(userId: string, apiKey: string): Promise<Caller> {
    if (!isId(userId)) throw new ApiError(ErrorName.InvalidLogin, 'The user id is not valid');
    const record = await this.lookup(userId.toLowerCase());
    if (!record.found) throw new ApiError(ErrorName.InvalidLogin, 'Unknown user id');
    if (!record.api_key_hash || !safeEqual(hashApiKey(this.config.API_KEY_PEPPER, apiKey), record.api_key_hash)) {
      throw new ApiError(ErrorName.InvalidAuthToken, 'The API key is invalid or has been revoked');
    }
    assertBilling(record.billing_status);
    return { account_id: record.account_id, user_id: record.user_id, role: record.role, auth_method: 'api_key', scopes: ['crm'] };
  }

  /** A bearer token's user record and whether its grant (family) was revoked: memory, then Redis (one round trip), then NATS. */
  async tokenStatus(userId: string, grantId: string): Promise<TokenStatusReply> {
    const remembered = this.cache.record(userId);
    const revokedHere = this.cache.grantRevoked(grantId);
    if (remembered && revokedHere !== undefined) {
      this.lookups.inc({ source: 'memory' });
      return { record: remembered, revoked: revokedHere };
    }
    const ticket = this.cache.ticket();
    try {
      const ns = this.config.CRM_NAMESPACE;
      // Two keys of two owners (a user, a grant): two GETs, not an MGET, which a Redis Cluster
      // refuses across slots. Sent together, they share one write (auto-pipelining).
      const [cached, revoked] = await Promise.all([
        this.redis.get(CacheKeys.credentials(ns, userId)),
        this.redis.get(CacheKeys.revokedGrant(ns, grantId)),
      ]);
      this.cache.keepGrant(ticket, grantId, revoked !== null);
      const record = this.open(ticket, userId, cached);
      if (record) return { record, revoked: revoked !== null };
      // No user record cached: the auth-server answers both from the database.
    } catch (error) {
      this.lookups.inc({ source: 'redis_error' });
      this.logger.warn({ detail: (error as Error).message }, 'Redis unavailable; asking the auth-server about the token');
    }
    return this.rpc.request<TokenStatusReply>(Subjects.TokenStatus, { user_id: userId, grant_id: grantId });
  }

  private async lookup(userId: string): Promise<CredentialRecord> {
    const remembered = this.cache.record(userId);
    if (remembered) {
      this.lookups.inc({ source: 'memory' });
      return remembered;
    }
    const ticket = this.cache.ticket();
    try {
      const record = this.open(ticket, userId, await this.redis.get(CacheKeys.credentials(this.config.CRM_NAMESPACE, userId)));
      if (record) return record;
    } catch (error) {
      this.lookups.inc({ source: 'redis_error' });
      this.logger.warn({ detail: (error as Error).message }, 'credentials cache unavailable; asking the auth-server');
    }
    return this.rpc.request<CredentialRecord>(Subjects.CredentialsResolve, { user_id: userId });
  }

  /** Opens (and keeps, if the ticket allows) a record read from Redis; null: ask the auth-server. */
  private open(ticket: FillTicket, userId: string, cached: string | null): CredentialRecord | null {
    const record = cached ? openCredentialRecord(this.config.API_KEY_PEPPER, userId, cached) : null;
    if (record) {
      this.lookups.inc({ source: 'redis' });
      this.cache.keepRecord(ticket, userId, record);
      return record;
    }
    if (cached) this.logger.warn({ user_id: userId }, 'a credential record in Redis is not sealed by the auth-server; asking it');
    this.lookups.inc({ source: cached ? 'unsealed' : 'miss' });
    return null;
  }
}
