import { Inject, Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import { LOGGER, METRICS_REGISTRY, REDIS, type RedisClient } from '@crm/service-kit';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { GatewayConfig } from '../config/gateway.config';

/**
 * One round trip decides a request: drop expired concurrency leases, refuse when the user already
 * has `concurrent` requests running (429, not counted against the rate), count the request in the
 * current minute and refuse past `limit` (403), else take a lease that ends with the request (or
 * after `leaseMs`, should a gateway die mid-request).
 * KEYS: rate counter, concurrency set (one slot: both tagged with the user id). ARGV: now ms, window ms, limit, concurrent, lease ms, lease id.
 * Returns [verdict (0 ok, 1 rate, 2 concurrency), count in window, ms until the window resets].
 */
const ACQUIRE = `
local now = tonumber(ARGV[1])
local windowMs = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local concurrent = tonumber(ARGV[4])
local leaseMs = tonumber(ARGV[5])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local resetMs = windowMs - (now % windowMs)
if redis.call('ZCARD', KEYS[2]) >= concurrent then
  local used = tonumber(redis.call('GET', KEYS[1]) or '0')
  return {2, used, resetMs}
end
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], resetMs + 1000) end
if count > limit then return {1, count, resetMs} end
redis.call('ZADD', KEYS[2], now + leaseMs, ARGV[6])
redis.call('PEXPIRE', KEYS[2], leaseMs)
return {0, count, resetMs}
`;

const WINDOW_MS = 60_000;
/** A lease outlives any request (the RPC timeout is at most 60 s). */
const LEASE_MS = 120_000;
/** How often releases that Redis did not take (a failover, a timeout) are tried again. */
const RELEASE_RETRY_MS = 500;
/** Releases waiting for a retry, at most (beyond it the oldest ones are left to expire). */
const MAX_PENDING_RELEASES = 10_000;

export type RateVerdict =
  | { kind: 'allowed'; headers: Record<string, string>; release(): void }
  | { kind: 'rate_limited'; headers: Record<string, string> }
  | { kind: 'too_many_concurrent'; headers: Record<string, string> };

/**
 * Per-user limits in Redis, shared by every gateway replica (decisions.md: 6000 requests per
 * minute, 20 concurrent, both settings). When Redis cannot answer, requests pass: rate limiting
 * fails open (logged, counted), authentication never does.
 */
@Injectable()
export class RateLimiter {
  private readonly decisions: Counter<'result'>;
  private lastWarning = 0;
  /**
   * Leases whose removal Redis did not confirm, by lease id: tried again until Redis takes them or
   * they expire on their own. Without this, a Redis failover would leave every lease released during
   * it in place for LEASE_MS, and a busy user would get 429s long after Redis was back.
   */
  private readonly pendingReleases = new Map<string, { key: string; until: number }>();
  private retryTimer: NodeJS.Timeout | undefined;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    this.decisions = new Counter({
      name: 'gateway_rate_limit_decisions_total',
      help: 'Rate-limit decisions: allowed, rate_limited, too_many_concurrent, fail_open',
      labelNames: ['result'],
      registers: [registry],
    });
    this.redis.defineCommand('crmRateAcquire', { numberOfKeys: 2, lua: ACQUIRE });
  }

  async acquire(userId: string): Promise<RateVerdict> {
    const limit = this.config.RATE_LIMIT_PER_MINUTE;
    const now = Date.now();
    // Unique across gateways and requests (a per-process part and a counter), no random draw per request.
    const lease = newId();
    const ns = this.config.CRM_NAMESPACE;
    // One hash tag, the user: both keys of the script are in one Redis Cluster slot.
    const rateKey = `${ns}:gw:rate:{${userId}}:${Math.floor(now / WINDOW_MS)}`;
    const leaseKey = `${ns}:gw:inflight:{${userId}}`;
    let result: [number, number, number];
    try {
      result = await (
        this.redis as RedisClient & { crmRateAcquire(...args: Array<string | number>): Promise<[number, number, number]> }
      ).crmRateAcquire(rateKey, leaseKey, now, WINDOW_MS, limit, this.config.RATE_LIMIT_CONCURRENT, LEASE_MS, lease);
    } catch (error) {
      // The script may have run and only its answer been lost: take the lease back once Redis answers.
      this.releaseLater(leaseKey, lease, now);
      this.decisions.inc({ result: 'fail_open' });
      if (now - this.lastWarning > 10_000) {
        this.lastWarning = now;
        this.logger.warn({ err: error }, 'rate limiting unavailable (Redis); letting requests through');
      }
      return { kind: 'allowed', headers: {}, release: () => undefined };
    }
    const [verdict, count, resetMs] = result;
    const headers = {
      'X-RateLimit-Limit': String(limit),
      'X-RateLimit-Remaining': String(Math.max(0, limit - count)),
      'X-RateLimit-Reset': String(Math.ceil((now + resetMs) / 1000)),
    };
    if (verdict === 2) {
      this.decisions.inc({ result: 'too_many_concurrent' });
      return { kind: 'too_many_concurrent', headers: { ...headers, 'Retry-After': '1' } };
    }
    if (verdict === 1) {
      this.decisions.inc({ result: 'rate_limited' });
      return { kind: 'rate_limited', headers: { ...headers, 'Retry-After': String(Math.max(1, Math.ceil(resetMs / 1000))) } };
    }
    this.decisions.inc({ result: 'allowed' });
    return {
      kind: 'allowed',
      headers,
      release: () => {
        this.redis.zrem(leaseKey, lease).catch(() => this.releaseLater(leaseKey, lease, Date.now()));
      },
    };
  }

  private releaseLater(key: string, lease: string, since: number): void {
    if (this.pendingReleases.size >= MAX_PENDING_RELEASES) {
      const oldest = this.pendingReleases.keys().next();
      if (!oldest.done) this.pendingReleases.delete(oldest.value);
    }
    this.pendingReleases.set(lease, { key, until: since + LEASE_MS });
    this.retryTimer ??= setTimeout(() => void this.retryReleases(), RELEASE_RETRY_MS).unref();
  }

  private async retryReleases(): Promise<void> {
    const now = Date.now();
    const due: Array<[string, { key: string; until: number }]> = [];
    for (const entry of this.pendingReleases) {
      if (entry[1].until > now) due.push(entry);
      else this.pendingReleases.delete(entry[0]); // expired in Redis by now
    }
    await Promise.all(
      due.map(([lease, { key }]) =>
        this.redis.zrem(key, lease).then(
          () => this.pendingReleases.delete(lease),
          () => undefined,
        ),
      ),
    );
    this.retryTimer = undefined;
    if (this.pendingReleases.size > 0) this.retryTimer = setTimeout(() => void this.retryReleases(), RELEASE_RETRY_MS).unref();
  }
}
