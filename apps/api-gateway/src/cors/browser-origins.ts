import { Inject, Injectable } from '@nestjs/common';
import { CacheKeys } from '@crm/contracts';
import { LOGGER, REDIS, type RedisClient } from '@crm/service-kit';
import type { Logger } from 'pino';
import { GatewayConfig } from '../config/gateway.config';

/** How long an answer about an origin is reused before Redis is asked again. */
const CACHE_MS = 30_000;
/** Most distinct origins remembered; beyond it the oldest are forgotten (origins come from requests). */
const CACHE_ENTRIES = 1_000;

/**
 * Which browser origins may call the API: CORS_ALLOWED_ORIGINS, plus the origins of registered
 * public clients' redirect URIs that the auth-server publishes in Redis. Answers are cached per
 * origin for 30 s (a newly registered client works within that); without Redis only the setting
 * counts.
 */
@Injectable()
export class BrowserOriginPolicy {
  private readonly configured: Set<string>;
  private readonly cache = new Map<string, { allowed: boolean; until: number }>();

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {
    this.configured = new Set(config.corsAllowedOrigins);
  }

  async allows(origin: string): Promise<boolean> {
    if (this.configured.has(origin)) return true;
    const now = Date.now();
    const cached = this.cache.get(origin);
    if (cached && cached.until > now) return cached.allowed;
    let allowed = false;
    try {
      allowed = (await this.redis.sismember(CacheKeys.browserOrigins(this.config.CRM_NAMESPACE), origin)) === 1;
    } catch (error) {
      this.logger.warn({ detail: (error as Error).message }, 'browser origins unavailable; only CORS_ALLOWED_ORIGINS apply');
      return false;
    }
    if (this.cache.size >= CACHE_ENTRIES) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(origin, { allowed, until: now + CACHE_MS });
    return allowed;
  }
}
