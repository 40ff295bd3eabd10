import type { ErrorData } from '../errors/api-error';
import type { ListFormatChoice } from '../paging/list-format';
import type { Caller } from './caller';
import type { WriteIdempotency } from './write-idempotency';

/** Request body of every caller-scoped NATS request. */
export interface RpcRequest<P = unknown> {
  caller: Caller;
  payload: P;
  /**
   * On a route with `listFormat` (RouteDeclaration): the format its HTTP request asked for (the
   * X-List-Format header, validated by the gateway) and whether its query pages.
   */
  list_format?: ListFormatChoice;
  /**
   * On a read: the WAL position the data read must include (read-consistency.ts): crm-core reads
   * from its replica only once it has replayed that far; `primary` or no value: from the primary.
   */
  read_after?: string;
  /**
   * A write's Idempotency-Key, scoped, with the request's fingerprint: crm-core records the key's
   * outcome in the write's transaction and answers a repeat with it (docs/decisions.md
   * "Idempotency recorded with the write").
   */
  idempotency?: WriteIdempotency;
}

export interface RpcSuccess<D = unknown> {
  ok: true;
  data: D;
  /** HTTP status the gateway answers with (200 when absent; 201 for creates). */
  http_status?: number;
  /** Top-level summary blocks that sit beside `data` in the envelope. */
  summary?: Record<string, unknown>;
  /**
   * On the wire only (libs/messaging nats-wire.ts encodeReplyWithData): the version of `data`
   * (key '') and of each of its top-level records, for the gateway's ETag without parsing `data`.
   */
  data_versions?: Record<string, number>;
  /** On a write's reply: the primary's WAL position after its commit (read-consistency.ts). */
  commit_lsn?: string;
  /** The recorded outcome of an earlier request with the same Idempotency-Key, not a new write. */
  replayed?: true;
}

export interface RpcFailure {
  ok: false;
  error: ErrorData;
}

/** Every NATS reply: errors cross as data, never as thrown stack traces. */
export type RpcReply<D = unknown> = RpcSuccess<D> | RpcFailure;

/** Header names carried on NATS messages. */
export const RpcHeaders = {
  requestId: 'X-Request-Id',
  /**
   * How long (ms) the caller waits for the reply. The handler counts it from receipt (no clock is
   * shared across hosts) and stops before its next statement once it has passed.
   */
  timeout: 'X-Timeout-Ms',
  /**
   * The sender's HMAC-SHA256 over the subject, the message bytes and an expiry, under the
   * consumer's own key (libs/messaging rpc-signature.ts); consumers refuse a request without a
   * valid one.
   */
  signature: 'X-Rpc-Signature',
  /**
   * A token unique to each request, signed with the body (libs/messaging nats-wire.ts
   * signedBytes): two equal requests (the same GET twice at once) are two messages, not a replay.
   */
  nonce: 'X-Rpc-Nonce',
  /**
   * The HTTP request's If-Match header (a write to one record): crm-core compares it with the
   * record's version after locking the row (docs/decisions.md "ETags and conditional requests").
   */
  ifMatch: 'X-If-Match',
  /**
   * On a success reply: where its `data` starts in the reply's UTF-8 bytes (data is last), so the
   * gateway can pass those bytes on into its answer without decoding, parsing and re-serializing
   * them. (Named apart from the UTF-16 offset earlier builds sent as X-Reply-Data-At: a gateway
   * and a crm-core of different builds parse the reply whole instead.)
   */
  replyDataAt: 'X-Reply-Data-Byte-At',
  /**
   * On the first message of a reply larger than one NATS message: how many messages the reply's
   * bytes come in (RPC_REPLY_LIMITS); the next ones carry {@link RpcHeaders.replyPart}.
   */
  replyParts: 'X-Reply-Parts',
  /** On the second and later messages of a reply in parts: the part's index (1, 2, ...), in order. */
  replyPart: 'X-Reply-Part',
} as const;

/**
 * How large a reply may be (docs/decisions.md "Replies larger than one NATS message"). A reply over
 * the server's max_payload (1 MiB by default) goes in parts, each one NATS message published to the
 * request's reply subject in order; the caller joins them. `parts` also bounds how often a
 * responder may publish to one reply subject (NATS `allow_responses`).
 */
export const RPC_REPLY_LIMITS = {
  /** Bytes (UTF-8) of one reply at most, all parts together. */
  maxBytes: 16 * 1024 * 1024,
  /** Messages of one reply at most. */
  maxParts: 64,
  /** Bytes of each message left for its headers below the server's max_payload. */
  headerRoom: 16 * 1024,
} as const;
