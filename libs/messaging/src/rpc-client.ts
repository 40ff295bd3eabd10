import {
  ClosedConnectionError,
  createInbox,
  headers as natsHeaders,
  NoRespondersError,
  RequestError,
  TimeoutError,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
} from '@nats-io/transport-node';
import { ApiError, ErrorName, namespacedSubject, RPC_REPLY_LIMITS, RpcHeaders, type RpcReply } from '@crm/contracts';
import { contextWithSpan, currentRequestId, endSpan, injectTraceHeaders, SpanKind, startSpan } from '@crm/observability';
import type { Logger } from 'pino';
import { decodeReply, decodeReplyRaw, encodeRequest, nextNonce, signedBytes } from './nats-wire';
import { isServerError } from './rpc-outcome';
import type { RpcSigner } from './rpc-signature';

export interface RpcClientOptions {
  namespace: string;
  timeoutMs: number;
  logger: Logger;
  /**
   * Signs every request (CALLER_SIGNING_KEY). Without it requests go unsigned, and every consumer
   * refuses them: only the services that authenticate users hold the key.
   */
  signer?: RpcSigner;
  /** Called with the outcome of every call, for metrics. */
  observe?: (subject: string, outcome: 'ok' | 'error' | 'unavailable', seconds: number) => void;
  /** Where this client's reply inbox lives (the connection's `inboxPrefix`, `_INBOX.<NATS user>`); default `_INBOX`. */
  inboxPrefix?: string;
}

/** A request waiting for its reply: the parts received so far. */
interface PendingReply {
  subject: string;
  parts: Uint8Array[];
  bytes: number;
  expected: number;
  headers: MsgHdrs | undefined;
  timer: NodeJS.Timeout;
  resolve(reply: { data: Uint8Array; headers: MsgHdrs | undefined }): void;
  reject(error: Error): void;
}

/**
 * Request/reply over NATS to a message handler (NatsRpcServer; wire format: nats-wire.ts). A missing responder (no replica running),
 * a timeout or a lost connection becomes 503 service_unavailable within `timeoutMs`; a reply
 * that carries an error comes back as data. Every request carries the request id and, while
 * tracing, a client span's W3C `traceparent` in its headers.
 *
 * Replies arrive on one inbox subscription per client (`<inbox>.<n>`, one token per request); a
 * reply larger than one NATS message arrives in parts (RpcHeaders.replyParts), joined here, at
 * most RPC_REPLY_LIMITS in all (docs/decisions.md "Replies larger than one NATS message").
 */
export class RpcClient {
  private inbox: string | undefined;
  private readonly pending = new Map<string, PendingReply>();
  private nextToken = 0;

  constructor(
    private readonly nc: NatsConnection,
    private readonly options: RpcClientOptions,
  ) {}

  /**
   * `ifMatch`: the HTTP request's If-Match header, for crm-core to check against the record it
   * locks. `rawData`: a success reply's `data` comes as a {@link RawJsonData} (its JSON text,
   * unparsed) when the handler wrote it so, for a caller that only passes it on.
   */
  async call<D = unknown>(
    subject: string,
    body: unknown,
    timeoutMs = this.options.timeoutMs,
    { ifMatch, rawData = false }: { ifMatch?: string; rawData?: boolean } = {},
  ): Promise<RpcReply<D>> {
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    const headers = natsHeaders();
    const requestId = currentRequestId();
    if (requestId) headers.set(RpcHeaders.requestId, requestId);
    headers.set(RpcHeaders.timeout, String(timeoutMs));
    if (ifMatch !== undefined) headers.set(RpcHeaders.ifMatch, ifMatch);
    const fullSubject = namespacedSubject(this.options.namespace, subject);
    // `subject` is a contract constant (never input): a bounded span name.
    const span = startSpan(subject, SpanKind.CLIENT, { 'messaging.system': 'nats', 'messaging.destination.name': subject });
    if (span) injectTraceHeaders((name, value) => headers.set(name, value), contextWithSpan(span));
    const data = encodeRequest(body);
    if (this.options.signer) {
      const nonce = nextNonce();
      headers.set(RpcHeaders.nonce, nonce);
      headers.set(RpcHeaders.signature, this.options.signer.sign(fullSubject, signedBytes(data, nonce), timeoutMs));
    }
    let reply: RpcReply<D>;
    try {
      const msg = await this.send(fullSubject, data, headers, timeoutMs);
      const dataAt = rawData ? msg.headers?.get(RpcHeaders.replyDataAt) : undefined;
      const answer = dataAt ? decodeReplyRaw(msg.data, Number(dataAt)) : decodeReply(msg.data);
      if (isReply(answer)) reply = answer as RpcReply<D>;
      else {
        this.options.logger.error({ subject }, 'RPC answer is not a reply');
        reply = { ok: false, error: new ApiError(ErrorName.InternalServerError).toData() };
      }
    } catch (error) {
      this.options.observe?.(subject, 'unavailable', seconds());
      endSpan(span, 'no reply');
      this.options.logger.warn({ subject, reason: (error as Error).name, detail: (error as Error).message }, 'RPC call failed: no reply');
      throw new ApiError(ErrorName.ServiceUnavailable, 'The service did not answer in time; retry shortly');
    }
    this.options.observe?.(subject, reply.ok ? 'ok' : 'error', seconds());
    if (span && !reply.ok) span.setAttribute('crm.error_name', reply.error.error_name);
    endSpan(span, reply.ok || !isServerError(reply.error.error_name) ? undefined : reply.error.error_name);
    return reply;
  }

  /** Publishes the request with this client's inbox as its reply subject; resolves with the reply's bytes (its parts joined). */
  private send(
    subject: string,
    data: Uint8Array,
    headers: MsgHdrs,
    timeoutMs: number,
  ): Promise<{ data: Uint8Array; headers: MsgHdrs | undefined }> {
    const token = (this.nextToken++).toString(36);
    const inbox = this.replyInbox();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => this.settle(token, new TimeoutError()), timeoutMs);
      this.pending.set(token, { subject, parts: [], bytes: 0, expected: 1, headers: undefined, timer, resolve, reject });
      try {
        this.nc.publish(subject, data, { reply: `${inbox}.${token}`, headers });
      } catch (error) {
        this.settle(token, error as Error);
      }
    });
  }

  /** The reply inbox, subscribed on first use; a closed connection fails whatever still waits. */
  private replyInbox(): string {
    if (this.inbox !== undefined) return this.inbox;
    const inbox = createInbox(this.options.inboxPrefix);
    this.nc.subscribe(`${inbox}.*`, { callback: (error, msg) => (error ? undefined : this.receive(inbox, msg)) });
    void this.nc.closed().then(() => {
      for (const token of [...this.pending.keys()]) this.settle(token, new ClosedConnectionError());
    });
    return (this.inbox = inbox);
  }

  /** One message on the inbox: NATS's no-responders notice, a whole reply, or one part of one. */
  private receive(inbox: string, msg: Msg): void {
    const token = msg.subject.slice(inbox.length + 1);
    const waiting = this.pending.get(token);
    if (!waiting) return; // its caller stopped waiting
    if (msg.data.length === 0 && msg.headers?.code === 503) return this.settle(token, new NoRespondersError(waiting.subject));
    if (waiting.parts.length === 0) {
      const parts = Number(msg.headers?.get(RpcHeaders.replyParts) || 1);
      if (!Number.isInteger(parts) || parts < 1 || parts > RPC_REPLY_LIMITS.maxParts)
        return this.settle(token, new RequestError(`a reply in ${msg.headers?.get(RpcHeaders.replyParts)} parts`));
      waiting.expected = parts;
      waiting.headers = msg.headers;
    } else if (msg.headers?.get(RpcHeaders.replyPart) !== String(waiting.parts.length)) {
      return this.settle(token, new RequestError(`part ${waiting.parts.length} of a reply missing`));
    }
    waiting.parts.push(msg.data);
    waiting.bytes += msg.data.length;
    if (waiting.bytes > RPC_REPLY_LIMITS.maxBytes) return this.settle(token, new RequestError('a reply over the reply limit'));
    if (waiting.parts.length === waiting.expected) this.settle(token);
  }

  /** Ends a wait: with the reply (its parts joined), or with `error`. */
  private settle(token: string, error?: Error): void {
    const waiting = this.pending.get(token);
    if (!waiting) return;
    this.pending.delete(token);
    clearTimeout(waiting.timer);
    if (error) return waiting.reject(error);
    const data = waiting.parts.length === 1 ? waiting.parts[0] : Buffer.concat(waiting.parts, waiting.bytes);
    waiting.resolve({ data, headers: waiting.headers });
  }

  /** Like {@link call} but returns the data or throws the reply's error. */
  async request<D = unknown>(subject: string, body: unknown, timeoutMs?: number): Promise<D> {
    const reply = await this.call<D>(subject, body, timeoutMs);
    if (!reply.ok) throw ApiError.fromData(reply.error);
    return reply.data;
  }
}

/** A reply's shape (a handler that returned nothing answers `{"ok":true}`: its data went with JSON). */
function isReply(value: unknown): value is RpcReply {
  if (typeof value !== 'object' || value === null) return false;
  const { ok, error } = value as { ok?: unknown; error?: unknown };
  return ok === true || (ok === false && typeof error === 'object' && error !== null);
}
