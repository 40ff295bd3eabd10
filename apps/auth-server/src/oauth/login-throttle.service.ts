import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, REDIS, type RedisClient } from '@crm/service-kit';
import { createHash } from 'node:crypto';
import type { Logger } from 'pino';
import { AuthServerConfig } from '../config/auth-server.config';

export type ThrottleKind = 'login' | 'client';

const WINDOW_SECONDS = 15 * 60;

/**
 * Attempts allowed per 15-minute window (every attempt counts when it starts; a success gives
 * its own back and clears its pair):
 * - pair: one subject (email or client id) from one source (address, IPv6 /64) — the lockout a
 *   user can run into, and only from the source that failed;
 * - source: all subjects from one source — password spraying from one address;
 * - subject: one email from every source together — a distributed guess at one account. Only
 *   sign-ins without the subject's trusted-device cookie are refused past it, so a stranger
 *   cannot lock the owner out of a browser that signed in before. Client secrets have no
 *   such ceiling: they are 256 random bits, and the ceiling would only let a stranger stop an app.
 */
export const THROTTLE_LIMITS = { pair: 10, source: 100, subject: 100 } as const;

/**
 * Counts one attempt on one counter and answers [count, seconds until its window ends]: each
 * counter is counted atomically, so N parallel attempts see N distinct counts. The three counters
 * are keys of three owners (pair, source, subject), so on a Redis Cluster they are three slots and
 * three commands, never one script (decisions.md "Redis Cluster").
 */
const COUNT = `
local n = redis.call('INCR', KEYS[1])
redis.call('EXPIRE', KEYS[1], ARGV[1], 'NX')
local ttl = redis.call('TTL', KEYS[1])
if ttl < 1 then ttl = 1 end
return {n, ttl}`;

/** Gives an attempt back on one counter: after a success the pair is cleared (`success`), else decremented. */
const GIVE_BACK = `
if ARGV[1] == 'success' then redis.call('DEL', KEYS[1]) return 1 end
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
if n > 0 then redis.call('DECR', KEYS[1]) end
return 1`;

/** An attempt that was let through; hand it back with {@link LoginThrottleService.succeeded} or {@link LoginThrottleService.abandoned}. */
export interface ThrottleTicket {
  readonly keys: readonly string[];
}

export type ThrottleDecision = { allowed: true; ticket: ThrottleTicket | null } | { allowed: false; retryAfterSeconds: number };

/**
 * Slows brute force on logins and client secrets (limits in {@link THROTTLE_LIMITS}). Each
 * attempt is counted atomically before the secret is checked, so N parallel guesses count N.
 * If Redis is down the attempt is let through (logged): availability of sign-in over throttling;
 * the hashing limit still bounds the work.
 */
@Injectable()
export class LoginThrottleService {
  private lastWarnedAt = 0;

  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** `source` is the client's address as {@link throttleSource} reduces it. */
  async attempt(kind: ThrottleKind, subject: string, source: string, options: { trustedDevice?: boolean } = {}): Promise<ThrottleDecision> {
    const ns = this.config.CRM_NAMESPACE;
    const who = digest(subject);
    const keys = [
      `${ns}:auth:fail:${kind}:pair:${who}:${source}`,
      `${ns}:auth:fail:ip:${source}`,
      `${ns}:auth:fail:${kind}:subject:${who}`,
    ];
    const subjectLimit = kind === 'login' ? THROTTLE_LIMITS.subject : 0;
    try {
      // Pair and source always count (both before deciding, as parallel attempts need); the
      // subject counts only for an attempt the first two let through.
      const [pair, sourceCount] = await Promise.all([this.count(keys[0]), this.count(keys[1])]);
      if (pair[0] > THROTTLE_LIMITS.pair) return { allowed: false, retryAfterSeconds: pair[1] };
      if (sourceCount[0] > THROTTLE_LIMITS.source) return { allowed: false, retryAfterSeconds: sourceCount[1] };
      if (subjectLimit === 0) return { allowed: true, ticket: { keys: keys.slice(0, 2) } };
      const subjectCount = await this.count(keys[2]);
      if (subjectCount[0] > subjectLimit && !options.trustedDevice) return { allowed: false, retryAfterSeconds: subjectCount[1] };
      return { allowed: true, ticket: { keys } };
    } catch (error) {
      this.warn(error);
      return { allowed: true, ticket: null };
    }
  }

  private async count(key: string): Promise<[number, number]> {
    return (await this.redis.eval(COUNT, 1, key, WINDOW_SECONDS)) as [number, number];
  }

  /** The secret matched: this attempt does not count, and the pair's failures are forgiven. */
  async succeeded(ticket: ThrottleTicket | null): Promise<void> {
    await this.giveBack(ticket, 'success');
  }

  /** The secret was never checked (e.g. no hashing capacity): the attempt does not count. */
  async abandoned(ticket: ThrottleTicket | null): Promise<void> {
    await this.giveBack(ticket, 'abandon');
  }

  private async giveBack(ticket: ThrottleTicket | null, how: 'success' | 'abandon'): Promise<void> {
    if (!ticket) return;
    await Promise.all(
      ticket.keys.map((key, i) => this.redis.eval(GIVE_BACK, 1, key, i === 0 && how === 'success' ? 'success' : 'refund')),
    ).catch((error: unknown) => this.warn(error));
  }

  private warn(error: unknown): void {
    if (Date.now() - this.lastWarnedAt < 1000) return;
    this.lastWarnedAt = Date.now();
    this.logger.warn({ detail: (error as Error).message }, 'login throttle unavailable');
  }
}

/** Subjects are keyed by a digest: fixed length whatever was typed, and no emails in Redis key names. */
function digest(subject: string): string {
  return createHash('sha256').update(subject.trim().toLowerCase()).digest('base64url').slice(0, 32);
}
