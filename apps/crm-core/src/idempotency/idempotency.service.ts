import { Inject, Injectable } from '@nestjs/common';
import {
  API_ROUTES,
  ApiError,
  ErrorName,
  RPC_REPLY_LIMITS,
  WRITE_IDEMPOTENCY_TOKEN,
  executedByCrmCore,
  type RouteDeclaration,
  type RpcReply,
  type RpcRequest,
  type WriteIdempotency,
} from '@crm/contracts';
import { encodeReplyWithData } from '@crm/messaging';
import { DataSource } from 'typeorm';
import { inRequestTransaction } from '../database/request-transaction';
import { IdempotencyRepository, type IdempotencyKeyRow, type KeptReply } from './idempotency.repository';

/**
 * The largest reply kept for a repeat (bytes of its JSON), as the gateway keeps at most: a larger
 * one is not kept, and its repeat is 409 (read the record instead), so a key holds at most this
 * much for a day.
 */
export const IDEMPOTENCY_MAX_KEPT_BYTES = 1024 * 1024;

/** Bounds of one write (tests lower `replyLimit` to show a refused reply leaves nothing behind). */
export interface WriteLimits {
  /** Bytes of a reply at most (the reply limit of NATS requests, RPC_REPLY_LIMITS.maxBytes). */
  replyLimit: number;
  /** Bytes of a reply kept for a repeat at most. */
  keptLimit: number;
}

const DEFAULT_LIMITS: WriteLimits = { replyLimit: RPC_REPLY_LIMITS.maxBytes, keptLimit: IDEMPOTENCY_MAX_KEPT_BYTES };

/**
 * crm-core's write boundary (docs/decisions.md "Idempotency recorded with the write"): every write
 * route runs in one transaction, which commits only with a success reply that can be sent. With
 * an Idempotency-Key the key's row is inserted first in that transaction and its outcome recorded
 * last, so a repeat (after a lost or late reply, or a gateway restart) gets the recorded reply and
 * writes nothing; a repeat running at the same moment waits for the first on the key's row.
 */
@Injectable()
export class IdempotencyService {
  private readonly writes = new Map<string, RouteDeclaration>(
    API_ROUTES.filter((route) => route.method !== 'GET' && executedByCrmCore(route.subject)).map((route) => [route.subject, route]),
  );

  constructor(
    @Inject(DataSource) private readonly dataSource: DataSource,
    private readonly keys: IdempotencyRepository,
  ) {}

  /** Whether `subject` is a write route's: its handler runs inside {@link write}. */
  isWrite(subject: string): boolean {
    return this.writes.has(subject);
  }

  /** NatsRpcServer's `around`: a write route's handler runs inside {@link write}, any other as it is. */
  readonly around = (subject: string, request: unknown, invoke: () => Promise<RpcReply>): Promise<RpcReply> => {
    const route = this.writes.get(subject);
    return route ? this.write(route, request as RpcRequest, invoke) : invoke();
  };

  /**
   * Runs `invoke` (the route's handler) in one transaction: commits a success reply that fits the
   * reply limit (with the key's outcome), rolls back an error reply, a thrown error, a replay and
   * a reply over the limit (answered with a 400 that says so: nothing was written).
   */
  write(
    route: RouteDeclaration,
    request: RpcRequest,
    invoke: () => Promise<RpcReply>,
    limits: WriteLimits = DEFAULT_LIMITS,
  ): Promise<RpcReply> {
    const key = keyOf(request);
    const accountId = request?.caller?.account_id;
    return inRequestTransaction(this.dataSource, async (db) => {
      if (key && accountId) {
        if (!(await this.keys.claim(db, accountId, key.key, key.fingerprint)))
          return { commit: false, result: replayOf(await this.keys.find(db, accountId, key.key), key) };
      }
      const reply = await invoke();
      if (!reply.ok) return { commit: false, result: reply };
      const text = encodeReplyWithData(reply).text;
      const bytes = Buffer.byteLength(text);
      if (bytes > limits.replyLimit) return { commit: false, result: { ok: false, error: writeReplyTooLarge(limits.replyLimit).toData() } };
      if (key && accountId) {
        const kept: KeptReply = route.replyCarriesSecret ? 'secret' : bytes > limits.keptLimit ? 'too_large' : 'reply';
        await this.keys.record(db, accountId, key.key, reply.http_status ?? route.successStatus, kept, kept === 'reply' ? text : null);
      }
      return { commit: true, result: reply };
    });
  }
}

/** The request's key, when it carries a well-formed one. */
function keyOf(request: RpcRequest | undefined): WriteIdempotency | undefined {
  const key = request?.idempotency;
  if (!key || typeof key.key !== 'string' || typeof key.fingerprint !== 'string') return undefined;
  if (!WRITE_IDEMPOTENCY_TOKEN.test(key.key) || !WRITE_IDEMPOTENCY_TOKEN.test(key.fingerprint))
    throw ApiError.invalid({ 'Idempotency-Key': 'was forwarded malformed' });
  return key;
}

/** A repeat's answer from the key's committed row: the recorded reply, or 409. */
function replayOf(row: IdempotencyKeyRow | undefined, key: WriteIdempotency): RpcReply {
  // Not found after a conflicting insert: the row was purged in between; the client may retry.
  if (!row) throw new ApiError(ErrorName.Conflict, 'A request with this Idempotency-Key is finishing; retry shortly');
  if (row.fingerprint !== key.fingerprint) throw new ApiError(ErrorName.Conflict, 'This Idempotency-Key was used with a different request');
  if (row.kept === 'secret')
    throw new ApiError(
      ErrorName.Conflict,
      'A request with this Idempotency-Key already succeeded; its answer carried a secret, which is never stored, so it cannot be repeated',
    );
  if (row.kept !== 'reply' || row.reply === null)
    throw new ApiError(
      ErrorName.Conflict,
      'A request with this Idempotency-Key already succeeded; its answer was too large to keep, so it cannot be repeated: read the record instead',
    );
  const reply = JSON.parse(row.reply) as RpcReply & { data_versions?: unknown };
  delete reply.data_versions;
  return { ...reply, ok: true, replayed: true } as RpcReply;
}

const MIB = 1024 * 1024;

/** A write whose reply would be over the reply limit: refused, rolled back. */
export function writeReplyTooLarge(limit: number): ApiError {
  return ApiError.invalid(
    {
      reply: `the answer would exceed the ${limit % MIB === 0 ? `${limit / MIB} MiB` : `${limit}-byte`} reply limit, so the change was not applied; make the record smaller (fewer or shorter embedded items) or change it in smaller steps`,
    },
    'The answer to this write would be too large to send; nothing was changed',
  );
}
