import { Inject, Injectable } from '@nestjs/common';
import { createHash, randomBytes } from 'node:crypto';
import { ApiError, ErrorName, IDEMPOTENCY_RETENTION_HOURS, type Caller, type WriteIdempotency } from '@crm/contracts';
import { REDIS, type RedisClient } from '@crm/service-kit';
import { GatewayConfig } from '../config/gateway.config';

/** decisions.md "Beyond the spec": a repeat within 24 hours returns the first response. */
export const IDEMPOTENCY_TTL_MS = IDEMPOTENCY_RETENTION_HOURS * 3600 * 1000;
/**
 * How long a pending record holds its key: longer than any request runs, so a gateway that stopped
 * mid-request frees its keys within a minute, not a day. For crm-core's routes it is the RPC
 * deadline and a margin: a repeat after a gateway crash waits less than WAIT_FOR_FIRST_MS, then
 * goes to crm-core, which decides from its own record whatever happened.
 */
export const IDEMPOTENCY_PENDING_TTL_MS = 60_000;
const PENDING_MARGIN_MS = 3000;
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
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
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

/** The key within its scope, hashed: what Redis and crm-core key their records by (WriteIdempotency.key). */
export function scopedIdempotencyKey(scope: string, key: string): string {
  return createHash('sha256').update(`${scope}\n${key}`).digest('base64url');
}

/** What `execute` gets: the scoped key and fingerprint, to forward to crm-core with the write. */
export type IdempotentExecute = (forward: WriteIdempotency) => Promise<{ status: number; body: unknown; replayed?: boolean }>;

/**
 * `Idempotency-Key` on POST, per user and credential (docs/decisions.md "Idempotency recorded with
 * the write"). For a route crm-core executes, crm-core is the authority: it records the key's
 * outcome in the write's own transaction, so a repeat after a lost or late reply gets the first
 * outcome and writes nothing. This Redis record (shared by every gateway replica) is its fast path:
 * a repeat while the first request runs waits for it and gets its response; a repeat after it
 * gets the stored response without a call. A request that gets no answer (503, timeout) lets go
 * of its Redis record, so its repeat goes to crm-core, which decides; and when Redis is down the
 * request goes to crm-core alone. For the other services' routes (auth-server, webhook-dispatcher)
 * this record is all there is: a request that fails leaves nothing behind, so the client may
 * retry, and without Redis the request is refused with 503 rather than risking a duplicate. A
 * repeat with another request is 409 `conflict`. A reply that carries a secret (a new API key, a
 * signing secret) is never stored: its repeat is 409, for the secret went out once.
 */
@Injectable()
export class IdempotencyStore {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: GatewayConfig,
  ) {
    this.redis.defineCommand('crmIdempotencyFinish', { numberOfKeys: 1, lua: FINISH });
  }

  async run(
    scope: string,
    key: string,
    fingerprint: string,
    execute: IdempotentExecute,
    options: { replyCarriesSecret?: boolean; recordedByService?: boolean } = {},
  ): Promise<IdempotentOutcome> {
    if (!validIdempotencyKey(key)) throw ApiError.invalid({ 'Idempotency-Key': 'must be 1 to 255 visible ASCII characters' });
    const scoped = scopedIdempotencyKey(scope, key);
    const forward: WriteIdempotency = { key: scoped, fingerprint };
    const redisKey = `${this.config.CRM_NAMESPACE}:gw:idem:${scoped}`;
    const owner = randomBytes(12).toString('hex');
    let claimed: boolean;
    try {
      const pendingTtl = options.recordedByService
        ? Math.min(this.config.RPC_TIMEOUT_MS + PENDING_MARGIN_MS, IDEMPOTENCY_PENDING_TTL_MS)
        : IDEMPOTENCY_PENDING_TTL_MS;
      const stored = await this.claim(redisKey, owner, fingerprint, pendingTtl);
      if (stored !== undefined) return stored;
      claimed = true;
    } catch (error) {
      // Redis cannot answer: crm-core's record alone keeps the write single.
      if (!(options.recordedByService && error instanceof RedisUnavailable)) throw error;
      claimed = false;
    }

    let outcome: { status: number; body: unknown; replayed?: boolean };
    try {
      outcome = await execute(forward);
    } catch (error) {
      // No record in Redis: a repeat runs again, and for crm-core's routes crm-core answers it from its own.
      if (claimed) await this.finish(redisKey, owner, '').catch(() => undefined);
      throw error;
    }
    if (claimed) {
      const done: DoneRecord = options.replyCarriesSecret
        ? { state: 'done', fingerprint, status: outcome.status, secret: true }
        : { state: 'done', fingerprint, status: outcome.status, body: outcome.body };
      let stored = JSON.stringify(done);
      if (Buffer.byteLength(stored) > IDEMPOTENCY_MAX_STORED_BYTES)
        stored = JSON.stringify({ state: 'done', fingerprint, status: outcome.status, tooLarge: true } satisfies DoneRecord);
      await this.finish(redisKey, owner, stored).catch(() => undefined);
    }
    return { status: outcome.status, body: outcome.body, replayed: outcome.replayed === true };
  }

  /**
   * Takes the key for this request (undefined), or answers from the first request's record: its
   * stored response, or 409 for another request, a secret, a response too large to keep, or a
   * first request still running after WAIT_FOR_FIRST_MS.
   */
  private async claim(redisKey: string, owner: string, fingerprint: string, pendingTtl: number): Promise<IdempotentOutcome | undefined> {
    const deadline = Date.now() + WAIT_FOR_FIRST_MS;
    for (;;) {
      const pending: PendingRecord = { state: 'pending', fingerprint, owner };
      const claimed = await this.guard(() => this.redis.set(redisKey, JSON.stringify(pending), 'PX', pendingTtl, 'NX'));
      if (claimed === 'OK') return undefined;
      const raw = await this.guard(() => this.redis.get(redisKey));
      if (raw === null) continue; // the first request ended without an answer and let go of the key: take it
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
  }

  /** Ends this request's pending record: deleted (`value` empty), or replaced by the done record for 24 hours. */
  private finish(redisKey: string, owner: string, value: string): Promise<unknown> {
    return (this.redis as RedisClient & { crmIdempotencyFinish(...args: string[]): Promise<number> }).crmIdempotencyFinish(
      redisKey,
      owner,
      value,
      String(IDEMPOTENCY_TTL_MS),
    );
  }

  private async guard<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch {
      throw new RedisUnavailable();
    }
  }
}

class RedisUnavailable extends ApiError {
  constructor() {
    super(ErrorName.ServiceUnavailable, 'Idempotency keys cannot be checked right now; retry shortly');
  }
}
