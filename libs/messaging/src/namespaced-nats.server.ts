import { ServerNats } from '@nestjs/microservices';
import { ApiError, ErrorName, namespacedSubject, RpcHeaders } from '@crm/contracts';
import {
  acceptRequestId,
  deadlineIn,
  endSpan,
  extractTraceContext,
  runInSpan,
  runWithRequestId,
  SpanKind,
  startSpan,
  tracingEnabled,
  type Span,
} from '@crm/observability';
import type { Logger } from 'pino';
import { natsClientOptions } from './nats-connection';
import { outcomeOfPacket, type RpcOutcome } from './rpc-outcome';
import type { RefusalReason, RpcVerifier } from './rpc-signature';

export interface NamespacedNatsServerOptions {
  url: string;
  name: string;
  namespace: string;
  queue: string;
  logger: Logger;
  /** Longest wait for in-flight handlers at shutdown. */
  shutdownTimeoutMs: number;
  /** Checks every request's signature before any handler runs (CALLER_VERIFY_KEYS). */
  verifier: RpcVerifier;
  /** Called for every request refused by the verifier, for metrics. */
  onRefused?: (channel: string, reason: RefusalReason) => void;
  /**
   * Called once per handled request when its final reply is published (or, without a reply
   * expected, when the handler settled): the registered subject, the outcome, the error name of an
   * error reply, and the seconds from receipt. For metrics.
   */
  onHandled?: (channel: string, outcome: RpcOutcome, seconds: number, errorName?: string) => void;
}

/** A request from receipt until its final reply: what its metrics and span need. */
interface InFlight {
  channel: string;
  requestId: string;
  started: bigint;
  outcome: RpcOutcome;
  errorName?: string;
  span?: Span;
}

interface NatsMsgLike {
  subject: string;
  data: Uint8Array;
  reply?: string;
  headers?: { get(name: string): string };
  respond(data: string): boolean;
}

const decoder = new TextDecoder();

/**
 * Nest's NATS transport with what production needs: subjects prefixed by the deployment
 * namespace, one queue group per service (replicas share the work), every request's signature
 * checked before any handler runs (an unsigned, forged, expired, replayed or re-targeted request
 * is answered with an error and never reaches a handler), the caller's request id (and, while
 * tracing, its W3C trace context, continued by a server span) restored from headers, every
 * handled request reported with its outcome and duration (`onHandled`), and a graceful close that stops taking messages, waits for in-flight handlers and
 * drains the connection.
 */
export class NamespacedNatsServer extends ServerNats {
  private readonly subs: Array<{ drain(): Promise<void> }> = [];
  private inFlight = 0;
  private readonly pending = new WeakMap<object, InFlight>();
  private idle: (() => void) | null = null;

  constructor(private readonly settings: NamespacedNatsServerOptions) {
    super({ ...natsClientOptions(settings.url, settings.name), queue: settings.queue });
  }

  isConnected(): boolean {
    const client = this.unwrap<{ isClosed(): boolean; isDraining(): boolean } | null>();
    return !!client && !client.isClosed() && !client.isDraining();
  }

  /** Resolves when the server answered a PING (waits while reconnecting). */
  ping(): Promise<void> {
    const client = this.unwrap<{ flush(): Promise<void> } | null>();
    return client ? client.flush() : Promise.reject(new Error('not connected'));
  }

  override bindEvents(client: Parameters<ServerNats['bindEvents']>[0]): void {
    for (const channel of this.messageHandlers.keys()) {
      const subject = namespacedSubject(this.settings.namespace, channel);
      const sub = client.subscribe(subject, { queue: this.settings.queue, callback: this.getMessageHandler(channel).bind(this) });
      this.subs.push(sub);
      this.settings.logger.debug({ subject, queue: this.settings.queue }, 'subscribed');
    }
  }

  /**
   * A request counts as in flight from receipt until its final reply is published: Nest runs the
   * handler lazily (when the reply stream is subscribed), after handleMessage has resolved.
   */
  override async handleMessage(channel: string, natsMsg: NatsMsgLike & Parameters<ServerNats['handleMessage']>[1]): Promise<unknown> {
    const refusal = this.settings.verifier.check(natsMsg.subject, natsMsg.data, natsMsg.headers?.get(RpcHeaders.signature) || undefined);
    if (refusal) return this.refuse(channel, natsMsg, refusal);
    this.inFlight += 1;
    const requestId = acceptRequestId(natsMsg.headers?.get(RpcHeaders.requestId) || undefined);
    const request: InFlight = { channel, requestId, started: process.hrtime.bigint(), outcome: 'ok' };
    this.pending.set(natsMsg, request);
    // `channel` is a registered handler's subject (from the contracts), never input: a bounded span name.
    if (tracingEnabled())
      request.span = startSpan(
        channel,
        SpanKind.SERVER,
        { 'messaging.system': 'nats', 'messaging.destination.name': channel, 'crm.request_id': requestId },
        extractTraceContext((name) => natsMsg.headers?.get(name)),
      );
    try {
      const deadline = deadlineIn(natsMsg.headers?.get(RpcHeaders.timeout) || undefined);
      const ifMatch = natsMsg.headers?.get(RpcHeaders.ifMatch) || undefined;
      return await runWithRequestId(
        requestId,
        () => runInSpan(request.span, () => super.handleMessage(channel, natsMsg)),
        deadline,
        ifMatch,
      );
    } catch (error) {
      request.outcome = 'server_error';
      request.errorName = 'internal_server_error';
      this.settle(natsMsg);
      throw error;
    } finally {
      if (!natsMsg.reply) this.settle(natsMsg);
    }
  }

  override getPublisher(
    natsMsg: Parameters<ServerNats['getPublisher']>[0],
    id: string,
    ctx: Parameters<ServerNats['getPublisher']>[2],
  ): (packet: unknown) => unknown {
    const publish = super.getPublisher(natsMsg, id, ctx);
    return async (packet: unknown) => {
      const final =
        typeof packet === 'object' &&
        packet !== null &&
        ((packet as { isDisposed?: boolean }).isDisposed || (packet as { err?: unknown }).err !== undefined);
      const request = this.pending.get(natsMsg);
      if (request && typeof packet === 'object' && packet !== null && ('response' in packet || 'err' in packet)) {
        const { outcome, errorName } = outcomeOfPacket(packet);
        request.outcome = outcome;
        request.errorName = errorName;
      }
      try {
        try {
          return await publish(packet);
        } catch (error) {
          // A reply over NATS's max_payload cannot be sent: answer a clean 400 that names the
          // cause at once, instead of leaving the caller to time out with 503.
          if (!isPayloadTooLarge(error) || typeof packet !== 'object' || packet === null || !('response' in packet)) throw error;
          this.settings.logger.warn(
            { subject: (natsMsg as { subject?: string }).subject },
            'reply over the NATS payload limit: answered 400',
          );
          if (request) Object.assign(request, { outcome: 'client_error', errorName: replyTooLarge().errorName });
          return await publish({ ...(packet as object), response: { ok: false, error: replyTooLarge().toData() } });
        }
      } finally {
        if (final) this.settle(natsMsg);
      }
    };
  }

  /** Answers (when a reply is expected) with {@link requestRefused}, logs and counts the refusal. */
  private refuse(channel: string, natsMsg: NatsMsgLike, reason: RefusalReason): void {
    this.settings.onRefused?.(channel, reason);
    this.settings.logger.warn(
      { subject: natsMsg.subject, reason, requestId: acceptRequestId(natsMsg.headers?.get(RpcHeaders.requestId) || undefined) },
      'NATS request refused before any handler: no valid signature',
    );
    if (!natsMsg.reply) return;
    let id: unknown;
    try {
      id = (JSON.parse(decoder.decode(natsMsg.data)) as { id?: unknown }).id;
    } catch {
      return;
    }
    if (typeof id !== 'string' || id.length > 100) return;
    natsMsg.respond(JSON.stringify({ id, response: { ok: false, error: requestRefused().toData() }, isDisposed: true }));
  }

  private settle(natsMsg: object): void {
    const request = this.pending.get(natsMsg);
    if (!request) return;
    this.pending.delete(natsMsg);
    this.inFlight -= 1;
    const seconds = Number(process.hrtime.bigint() - request.started) / 1e9;
    this.settings.onHandled?.(request.channel, request.outcome, seconds, request.errorName);
    if (this.settings.logger.isLevelEnabled('debug'))
      this.settings.logger.debug(
        {
          request_id: request.requestId,
          subject: request.channel,
          outcome: request.outcome,
          error_name: request.errorName,
          duration_ms: Math.round(seconds * 10_000) / 10,
        },
        'NATS request handled',
      );
    if (request.span) {
      if (request.errorName) request.span.setAttribute('crm.error_name', request.errorName);
      endSpan(request.span, request.outcome === 'server_error' ? request.errorName : undefined);
    }
    if (this.inFlight === 0 && this.idle) this.idle();
  }

  override async close(): Promise<void> {
    const client = this.unwrap<{ drain(): Promise<void>; isClosed(): boolean } | null>();
    if (!client || client.isClosed()) return;
    // Stop taking new messages first: replicas in the queue group get them instead.
    await Promise.allSettled(this.subs.map((sub) => sub.drain()));
    if (this.inFlight > 0) {
      this.settings.logger.info({ inFlight: this.inFlight }, 'waiting for in-flight NATS requests');
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise((resolve) => setTimeout(resolve, this.settings.shutdownTimeoutMs).unref()),
      ]);
    }
    // Replies are published on the next tick after a handler resolves.
    await new Promise((resolve) => setImmediate(resolve));
    await client.drain();
    this.settings.logger.info('NATS connection drained');
  }
}

/** What a sender gets for a request without a valid signature (unsigned, forged, expired, replayed, re-targeted). */
export function requestRefused(): ApiError {
  // Not 401: the client of the API authenticated; a refusal here means a misconfigured or forged sender.
  return new ApiError(
    ErrorName.InternalServerError,
    'The request was refused: it carries no valid signature of a service that may send it',
  );
}

function isPayloadTooLarge(error: unknown): boolean {
  return error instanceof Error && /max_payload/i.test(error.message);
}

/** What a caller gets when the answer would not fit in one NATS message (1 MiB by default). */
export function replyTooLarge(): ApiError {
  return ApiError.invalid(
    { reply: 'the answer would exceed the 1 MiB message limit; ask for fewer records (per_page) or fewer embedded fields' },
    'The answer to this request is too large to send',
  );
}
