import { Inject, Injectable } from '@nestjs/common';
import { LOGGER, REDIS } from '@crm/service-kit';
import type { Redis } from 'ioredis';
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

/** Counts first, then decides, in one step: parallel attempts can never all see the old count. */
const ATTEMPT = `
local window = tonumber(ARGV[1])
local function count(key)
  local n = redis.call('INCR', key)
  redis.call('EXPIRE', key, window, 'NX')
  return n
end
local function wait(key)
  local ttl = redis.call('TTL', key)
  if ttl < 1 then return 1 end
  return ttl
end
local pair = count(KEYS[1])
local source = count(KEYS[2])
if pair > tonumber(ARGV[2]) then return {0, wait(KEYS[1]), 0} end
if source > tonumber(ARGV[3]) then return {0, wait(KEYS[2]), 0} end
if tonumber(ARGV[4]) == 0 then return {1, 0, 0} end
local subject = count(KEYS[3])
if subject > tonumber(ARGV[4]) and ARGV[5] ~= '1' then return {0, wait(KEYS[3]), 1} end
return {1, 0, 1}`;

/** Gives an attempt back: after a success (the pair is cleared) or when it was never checked. */
const GIVE_BACK = `
local function refund(key)
  local n = tonumber(redis.call('GET', key) or '0')
  if n > 0 then redis.call('DECR', key) end
end
if ARGV[1] == 'success' then redis.call('DEL', KEYS[1]) else refund(KEYS[1]) end
for i = 2, #KEYS do refund(KEYS[i]) end
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
    @Inject(REDIS) private readonly redis: Redis,
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
      const [allowed, retryAfter, countedSubject] = (await this.redis.eval(
        ATTEMPT,
        3,
        ...keys,
        WINDOW_SECONDS,
        THROTTLE_LIMITS.pair,
        THROTTLE_LIMITS.source,
        subjectLimit,
        options.trustedDevice ? '1' : '0',
      )) as [number, number, number];
      if (allowed !== 1) return { allowed: false, retryAfterSeconds: retryAfter };
      return { allowed: true, ticket: { keys: countedSubject === 1 ? keys : keys.slice(0, 2) } };
    } catch (error) {
      this.warn(error);
      return { allowed: true, ticket: null };
    }
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
    await this.redis.eval(GIVE_BACK, ticket.keys.length, ...ticket.keys, how).catch((error: unknown) => this.warn(error));
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
