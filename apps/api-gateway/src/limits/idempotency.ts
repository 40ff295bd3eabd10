import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { ApiError, ErrorName, type Caller } from '@crm/contracts';
import { REDIS } from '@crm/service-kit';
import type { Redis } from 'ioredis';
import { GatewayConfig } from '../config/gateway.config';

/** decisions.md "Beyond the spec": a repeat within 24 hours returns the first response. */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** How long a repeat waits for the first request with its key to finish. */
const WAIT_FOR_FIRST_MS = 15_000;
const POLL_MS = 50;
/**
 * The largest answer kept for repeats (bytes of its JSON). Answers may reach 16 MiB (RPC_REPLY_LIMITS);
 * a larger one than this is not kept, so that Redis holds at most this much per key for a day.
 */
export const IDEMPOTENCY_MAX_STORED_BYTES = 1024 * 1024;

interface PendingRecord {
  state: 'pending';
  fingerprint: string;
  owner: string;
}
interface DoneRecord {
  state: 'done';
  fingerprint: string;
  status: number;
  /** Absent when the reply carried a secret, or was over IDEMPOTENCY_MAX_STORED_BYTES: such a reply is not stored. */
  body?: unknown;
  secret?: true;
  tooLarge?: true;
}
type StoredRecord = PendingRecord | DoneRecord;

export interface IdempotentOutcome {
  status: number;
  body: unknown;
  replayed: boolean;
}

/** Ends a pending record only if it is still the one this request wrote. */
const FINISH = `
local current = redis.call('GET', KEYS[1])
if not current then return 0 end
local ok, record = pcall(cjson.decode, current)
if not ok or record.owner ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return 1
`;

export function validIdempotencyKey(key: string): boolean {
  return /^[\x21-\x7e]{1,255}$/.test(key);
}

/** Same route, same path, same query and body (key order aside): the same request. */
export function requestFingerprint(operationId: string, params: Record<string, string>, query: unknown, body: unknown): string {
  return createHash('sha256').update(canonicalJson({ operationId, params, query, body })).digest('base64url');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * Whose key it is: the user and the credential, so an OAuth app never sees an answer given to the
 * user's API key or to another app (keys are chosen by clients and may collide).
 */
export function idempotencyScope(caller: Caller): string {
  return `${caller.user_id}:${caller.auth_method}:${caller.client_id ?? ''}`;
}

/**
 * `Idempotency-Key` on POST, per user and credential, in Redis (shared by every gateway replica). The first
 * request with a key runs; a repeat with the same request waits for it and gets its response; a
 * repeat with another request is 409 `conflict`. Two identical requests at the same moment: one
 * runs, the other gets the same response. A first request that fails (4xx/5xx) leaves nothing
 * behind, so the client may retry with the same key. A reply that carries a secret (a new API key, a
 * signing secret) is never stored: its repeat is 409, for the secret went out once. Without Redis the request is refused with
 * 503 rather than risking a duplicate: the client asked for exactly-once.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: GatewayConfig,
  ) {
    this.redis.defineCommand('crmIdempotencyFinish', { numberOfKeys: 1, lua: FINISH });
  }

  async run(
    scope: string,
    key: string,
    fingerprint: string,
    execute: () => Promise<{ status: number; body: unknown }>,
    options: { replyCarriesSecret?: boolean } = {},
  ): Promise<IdempotentOutcome> {
    if (!validIdempotencyKey(key)) throw ApiError.invalid({ 'Idempotency-Key': 'must be 1 to 255 visible ASCII characters' });
    const redisKey = `${this.config.CRM_NAMESPACE}:gw:idem:${createHash('sha256').update(`${scope}\n${key}`).digest('base64url')}`;
    const owner = randomBytes(12).toString('hex');
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const pending: PendingRecord = { state: 'pending', fingerprint, owner };
      const claimed = await this.guard(() => this.redis.set(redisKey, JSON.stringify(pending), 'PX', IDEMPOTENCY_TTL_MS, 'NX'));
      if (claimed === 'OK') break;
      const raw = await this.guard(() => this.redis.get(redisKey));
      if (raw === null) continue; // the first request failed and let go of the key: take it
      const record = JSON.parse(raw) as StoredRecord;
      if (record.fingerprint !== fingerprint)
        throw new ApiError(ErrorName.Conflict, 'This Idempotency-Key was used with a different request');
      if (record.state === 'done') {
        if (record.secret)
          throw new ApiError(
            ErrorName.Conflict,
            'A request with this Idempotency-Key already succeeded; its answer carried a secret, which is never stored, so it cannot be repeated',
          );
        if (record.tooLarge)
          throw new ApiError(
            ErrorName.Conflict,
            'A request with this Idempotency-Key already succeeded; its answer was too large to keep, so it cannot be repeated: read the record instead',
          );
        return { status: record.status, body: record.body, replayed: true };
      }
      if (Date.now() > deadline)
        throw new ApiError(ErrorName.Conflict, 'A request with this Idempotency-Key is still in progress; retry later');
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }

    let outcome: { status: number; body: unknown };
    try {
      outcome = await execute();
    } catch (error) {
      await this.finish(redisKey, owner, '').catch(() => undefined);
      throw error;
    }
    const done: DoneRecord = options.replyCarriesSecret
      ? { state: 'done', fingerprint, status: outcome.status, secret: true }
      : { state: 'done', fingerprint, status: outcome.status, body: outcome.body };
    let stored = JSON.stringify(done);
    if (Buffer.byteLength(stored) > IDEMPOTENCY_MAX_STORED_BYTES)
      stored = JSON.stringify({ state: 'done', fingerprint, status: outcome.status, tooLarge: true } satisfies DoneRecord);
    await this.finish(redisKey, owner, stored).catch(() => undefined);
    return { ...outcome, replayed: false };
  }

  private finish(redisKey: string, owner: string, value: string): Promise<unknown> {
    return (this.redis as Redis & { crmIdempotencyFinish(...args: string[]): Promise<number> }).crmIdempotencyFinish(
      redisKey,
      owner,
      value,
    );
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch {
      throw new ApiError(ErrorName.ServiceUnavailable, 'Idempotency keys cannot be checked right now; retry shortly');
    }
  }
}
