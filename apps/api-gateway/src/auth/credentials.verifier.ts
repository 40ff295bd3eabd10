import { Inject, Injectable } from '@nestjs/common';
import { hashApiKey, isId, safeEqual } from '@crm/common';
import { ApiError, CacheKeys, ErrorName, openCredentialRecord, Subjects, type Caller, type CredentialRecord } from '@crm/contracts';
import { RpcClient } from '@crm/messaging';
import { LOGGER, METRICS_REGISTRY, REDIS } from '@crm/service-kit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { GatewayConfig } from '../config/gateway.config';
import { assertBilling } from './billing';

/**
 * Checks HTTP Basic `user_id:api_key` against the keyed hash the auth-server mirrors to Redis.
 * A cache miss, or Redis being down, asks the auth-server over NATS (which refills the cache);
 * if that fails too the request gets 503: authentication never fails open.
 */
@Injectable()
export class CredentialsVerifier {
  private readonly lookups: Counter<'source'>;

  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly rpc: RpcClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    this.lookups = new Counter({
      name: 'gateway_credential_lookups_total',
      help: 'API-key record lookups by source',
      labelNames: ['source'],
      registers: [registry],
    });
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

  private async lookup(userId: string): Promise<CredentialRecord> {
    try {
      const cached = await this.redis.get(CacheKeys.credentials(this.config.CRM_NAMESPACE, userId));
      const record = cached ? openCredentialRecord(this.config.API_KEY_PEPPER, userId, cached) : null;
      if (record) {
        this.lookups.inc({ source: 'redis' });
        return record;
      }
      if (cached) this.logger.warn({ user_id: userId }, 'a credential record in Redis is not sealed by the auth-server; asking it');
      this.lookups.inc({ source: cached ? 'unsealed' : 'miss' });
    } catch (error) {
      this.lookups.inc({ source: 'redis_error' });
      this.logger.warn({ detail: (error as Error).message }, 'credentials cache unavailable; asking the auth-server');
    }
    return this.rpc.request<CredentialRecord>(Subjects.CredentialsResolve, { user_id: userId });
  }
}
