import { headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import { ApiError, ErrorName, namespacedSubject, RpcHeaders, type RpcReply } from '@crm/contracts';
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
}

/**
 * Request/reply over NATS to a message handler (NatsRpcServer; wire format: nats-wire.ts). A missing responder (no replica running),
 * a timeout or a lost connection becomes 503 service_unavailable within `timeoutMs`; a reply
 * that carries an error comes back as data. Every request carries the request id and, while
 * tracing, a client span's W3C `traceparent` in its headers.
 */
export class RpcClient {
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
      const msg = await this.nc.request(fullSubject, data, {
        timeout: timeoutMs,
        headers,
      });
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
