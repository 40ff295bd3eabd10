import { Inject, Injectable } from '@nestjs/common';
import { parsePgLsn, READ_AFTER_NOTHING, READ_FROM_PRIMARY, type Caller } from '@crm/contracts';
import { LOGGER, METRICS_REGISTRY, REDIS } from '@crm/service-kit';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { GatewayConfig } from '../config/gateway.config';

/**
 * How long a write's commit position is kept: far longer than crm-core lets its replica lag
 * (REPLICA_MAX_LAG_MS, at most 30 s), so once a position expires the lag bound alone covers the
 * write (docs/decisions.md "Reads from a replica").
 */
export const READ_POSITION_TTL_MS = 60_000;

/**
 * Keeps the larger of the stored position and ARGV[1] (`pg_lsn` text, two hexadecimal 32-bit
 * halves compared as numbers), for ARGV[2] ms from now. KEYS: the position's key.
 */
const KEEP_MAX = `
local function parse(lsn)
  local high, low = string.match(lsn or '', '^(%x+)/(%x+)$')
  if not high then return nil end
  return tonumber(high, 16), tonumber(low, 16)
end
local nh, nl = parse(ARGV[1])
if not nh then return redis.error_reply('not a pg_lsn') end
local ch, cl = parse(redis.call('GET', KEYS[1]))
if ch and (ch > nh or (ch == nh and cl >= nl)) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

type RedisClient = Redis | Cluster;

/**
 * Read-your-writes across crm-core's primary and replica (docs/decisions.md "Reads from a
 * replica"): the highest commit position of each user's and each account's writes of the last
 * minute, in Redis (shared by every gateway replica), sent with every read to crm-core as
 * `read_after`. The account's position makes a user's read include another user's write of the
 * same account (an integration reading what a webhook announced, a colleague's change).
 */
@Injectable()
export class ReadPositions {
  private readonly failures: Counter<'operation'>;
  private lastWarning = 0;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: GatewayConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS_REGISTRY) registry: Registry,
  ) {
    this.failures = new Counter({
      name: 'gateway_read_position_failures_total',
      help: 'Redis failures around the read-your-writes positions: lookup (the read went to the primary), record (a write position not kept)',
      labelNames: ['operation'],
      registers: [registry],
    });
    this.redis.defineCommand('crmKeepMaxPosition', { numberOfKeys: 1, lua: KEEP_MAX });
  }

  /** The user's key and the account's: one hash tag each (Redis Cluster). */
  private keys(caller: Caller): [string, string] {
    const ns = this.config.CRM_NAMESPACE;
    return [`${ns}:gw:rpos:user:{${caller.user_id}}`, `${ns}:gw:rpos:account:{${caller.account_id}}`];
  }

  /**
   * `read_after` for a read by `caller`: the larger of the user's and the account's positions,
   * READ_AFTER_NOTHING when neither wrote within the last minute, READ_FROM_PRIMARY when Redis
   * cannot answer (a stale read is never risked). Never rejects. Started beside the rate-limit
   * call, so it costs no round trip of its own.
   */
  async lookup(caller: Caller): Promise<string> {
    const [userKey, accountKey] = this.keys(caller);
    try {
      const [user, account] = await Promise.all([this.redis.get(userKey), this.redis.get(accountKey)]);
      const u = parsePgLsn(user ?? undefined);
      const a = parsePgLsn(account ?? undefined);
      if (u === undefined && a === undefined) return READ_AFTER_NOTHING;
      return (u ?? 0n) >= (a ?? 0n) ? user! : account!;
    } catch (error) {
      this.failed('lookup', error);
      return READ_FROM_PRIMARY;
    }
  }

  /** Keeps a write's commit position for its user and account; resolves once Redis has both (before the write is answered). */
  async record(caller: Caller, lsn: string): Promise<void> {
    if (parsePgLsn(lsn) === undefined) return;
    const keep = (this.redis as RedisClient & { crmKeepMaxPosition(key: string, lsn: string, ttlMs: number): Promise<number> })
      .crmKeepMaxPosition;
    try {
      await Promise.all(this.keys(caller).map((key) => keep.call(this.redis, key, lsn, READ_POSITION_TTL_MS)));
    } catch (error) {
      // The write is done: its answer stands. Reads may then miss it for at most the replica's lag bound.
      this.failed('record', error);
    }
  }

  private failed(operation: 'lookup' | 'record', error: unknown): void {
    this.failures.inc({ operation });
    const now = Date.now();
    if (now - this.lastWarning < 10_000) return;
    this.lastWarning = now;
    this.logger.warn({ err: error, operation }, 'read-your-writes positions unavailable (Redis)');
  }
}
