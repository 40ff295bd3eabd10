import { connect, headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import { ApiError, ErrorName, namespacedSubject, RPC_REPLY_LIMITS, RpcHeaders, type RpcReply } from '@crm/contracts';
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
import { natsClientOptions, watchStatus } from './nats-connection';
import { decodeRequest, encodeReply, encodeReplyWithData, signedBytes } from './nats-wire';
import { RpcArgumentContext, type RpcHandler } from './rpc-handlers';
import { outcomeOfReply, type RpcOutcome } from './rpc-outcome';
import { replyOf, replyOfError } from './rpc-reply.interceptor';
import type { RefusalReason, RpcVerifier } from './rpc-signature';

export interface NatsRpcServerOptions {
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
  onRefused?: (subject: string, reason: RefusalReason) => void;
  /**
   * Called once per handled request when its reply is published (or, without a reply expected,
   * when the handler settled): the registered subject, the outcome, the error name of an error
   * reply, and the seconds from receipt. For metrics.
   */
  onHandled?: (subject: string, outcome: RpcOutcome, seconds: number, errorName?: string) => void;
  /**
   * Called for a reply larger than one NATS message: sent in parts, or refused as over
   * RPC_REPLY_LIMITS.maxBytes (the clean 400). The registered subject and the reply's bytes. For metrics.
   */
  onLargeReply?: (subject: string, kind: 'parts' | 'too_large', bytes: number) => void;
  /**
   * Runs around every handler call with the decoded request; `invoke` resolves with the handler's
   * reply or rejects with its error. crm-core's writes run in one transaction here, committed only
   * with a reply that can be sent (docs/decisions.md "Idempotency recorded with the write").
   */
  around?: RpcAround;
}

/** See {@link NatsRpcServerOptions.around}. */
export type RpcAround = (subject: string, request: unknown, invoke: () => Promise<RpcReply>) => Promise<RpcReply>;

/**
 * The platform's NATS request server (decisions.md "Lean RPC and validation once"): Nest builds
 * and wires the handlers, this calls them directly. Subjects are prefixed by the deployment
 * namespace, one queue group per service (replicas share the work); every request's signature is
 * checked before any handler runs (an unsigned, forged, expired, replayed or re-targeted request
 * is answered with an error and never reaches a handler); the caller's request id, deadline,
 * If-Match and, while tracing, its W3C trace context (continued by a server span) are restored
 * from headers; results and errors become replies as RpcReplyInterceptor declares; every handled
 * request is reported with its outcome and duration (`onHandled`); and close stops taking
 * messages, waits for in-flight handlers and drains the connection.
 */
export class NatsRpcServer {
  private nc: NatsConnection | undefined;
  private readonly subs: Subscription[] = [];
  private inFlight = 0;
  private idle: (() => void) | null = null;

  constructor(
    private readonly handlers: readonly RpcHandler[],
    private readonly settings: NatsRpcServerOptions,
  ) {}

  /** Connects (retrying until NATS answers) and subscribes every handler's subject in the queue group. */
  async listen(): Promise<void> {
    const nc = await connect(natsClientOptions(this.settings.url, this.settings.name));
    this.nc = nc;
    void watchStatus(nc, this.settings.logger);
    for (const handler of this.handlers) {
      const subject = namespacedSubject(this.settings.namespace, handler.subject);
      const sub = nc.subscribe(subject, {
        queue: this.settings.queue,
        callback: (error, msg) => {
          if (error) this.settings.logger.warn({ subject, detail: error.message }, 'NATS subscription error');
          else this.receive(handler, msg);
        },
      });
      this.subs.push(sub);
      this.settings.logger.debug({ subject, queue: this.settings.queue }, 'subscribed');
    }
    await nc.flush();
  }

  isConnected(): boolean {
    return !!this.nc && !this.nc.isClosed() && !this.nc.isDraining();
  }

  /** Resolves when the server answered a PING (waits while reconnecting). */
  ping(): Promise<void> {
    return this.nc ? this.nc.flush() : Promise.reject(new Error('not connected'));
  }

  private receive(handler: RpcHandler, msg: Msg): void {
    const headers = msg.headers;
    const signed = signedBytes(msg.data, headers?.get(RpcHeaders.nonce) || undefined);
    const refusal = this.settings.verifier.check(msg.subject, signed, headers?.get(RpcHeaders.signature) || undefined);
    if (refusal) return this.refuse(handler.subject, msg, refusal);
    void this.handle(handler, msg);
  }

  /** Runs the handler in the request's context, answers, and reports; never rejects. */
  private async handle(handler: RpcHandler, msg: Msg): Promise<void> {
    this.inFlight += 1;
    try {
      const started = process.hrtime.bigint();
      const headers = msg.headers;
      const requestId = acceptRequestId(headers?.get(RpcHeaders.requestId) || undefined);
      // The subject is a registered handler's (from the contracts), never input: a bounded span name.
      const span = tracingEnabled()
        ? startSpan(
            handler.subject,
            SpanKind.SERVER,
            { 'messaging.system': 'nats', 'messaging.destination.name': handler.subject, 'crm.request_id': requestId },
            extractTraceContext((name) => headers?.get(name)),
          )
        : undefined;
      const deadline = deadlineIn(headers?.get(RpcHeaders.timeout) || undefined);
      const ifMatch = headers?.get(RpcHeaders.ifMatch) || undefined;
      // The reply and its report too run in the request's context: the log line carries its request and trace ids.
      await runWithRequestId(
        requestId,
        () => runInSpan(span, () => this.answer(handler, msg, requestId, started, span)),
        deadline,
        ifMatch,
      );
    } catch (error) {
      this.settings.logger.error({ err: error, subject: handler.subject }, 'NATS request could not be answered');
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0 && this.idle) this.idle();
    }
  }

  /** Calls the handler, publishes its reply (when one is expected) and reports the request. */
  private async answer(handler: RpcHandler, msg: Msg, requestId: string, started: bigint, span: Span | undefined): Promise<void> {
    let reply = await this.invoke(handler, msg);
    if (msg.reply) reply = this.respond(handler.subject, msg, reply);
    const { outcome, errorName } = outcomeOfReply(reply);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    this.settings.onHandled?.(handler.subject, outcome, seconds, errorName);
    if (this.settings.logger.isLevelEnabled('debug'))
      this.settings.logger.debug(
        {
          request_id: requestId,
          subject: handler.subject,
          outcome,
          error_name: errorName,
          duration_ms: Math.round(seconds * 10_000) / 10,
        },
        'NATS request handled',
      );
    if (span) {
      if (errorName) span.setAttribute('crm.error_name', errorName);
      endSpan(span, outcome === 'server_error' ? errorName : undefined);
    }
  }

  /** The handler's reply: its arguments are computed inside, so a refused parameter is an error reply too. */
  private async invoke(handler: RpcHandler, msg: Msg): Promise<RpcReply> {
    try {
      const request = decodeRequest(msg.data);
      const call = async () => replyOf(await handler.method.apply(handler.instance, new RpcArgumentContext(handler, request).arguments()));
      return await (this.settings.around ? this.settings.around(handler.subject, request, call) : call());
    } catch (error) {
      return replyOfError(error, handler.subject, this.settings.logger);
    }
  }

  /**
   * Publishes the reply and returns what was sent. A reply over NATS's max_payload goes in parts
   * (RpcHeaders.replyParts, RPC_REPLY_LIMITS), one message each, in order; one over
   * RPC_REPLY_LIMITS.maxBytes cannot be sent: a clean 400 that names the cause goes instead, at
   * once, rather than leaving the caller to time out with 503.
   */
  private respond(subject: string, msg: Msg, reply: RpcReply): RpcReply {
    const { text, dataAt } = encodeReplyWithData(reply);
    const bytes = encoder.encode(text);
    const partSize = replyPartSize(this.nc?.info?.max_payload);
    const parts = Math.max(1, Math.ceil(bytes.length / partSize));
    if (bytes.length > RPC_REPLY_LIMITS.maxBytes || parts > RPC_REPLY_LIMITS.maxParts) return this.tooLarge(subject, msg, bytes.length);
    let first: MsgHdrs | undefined;
    if (dataAt !== undefined || parts > 1) {
      first = natsHeaders();
      if (dataAt !== undefined) first.set(RpcHeaders.replyDataAt, String(dataAt));
      if (parts > 1) first.set(RpcHeaders.replyParts, String(parts));
    }
    try {
      msg.respond(parts === 1 ? bytes : bytes.subarray(0, partSize), first ? { headers: first } : undefined);
      for (let part = 1; part < parts; part += 1) {
        const headers = natsHeaders();
        headers.set(RpcHeaders.replyPart, String(part));
        this.nc!.publish(msg.reply!, bytes.subarray(part * partSize, (part + 1) * partSize), { headers });
      }
      if (parts > 1) this.settings.onLargeReply?.(subject, 'parts', bytes.length);
      return reply;
    } catch (error) {
      // The server's limit is below what its INFO said (or unknown): the caller gets the 400, not a timeout.
      if (!isPayloadTooLarge(error)) throw error;
      return this.tooLarge(subject, msg, bytes.length);
    }
  }

  private tooLarge(subject: string, msg: Msg, bytes: number): RpcReply {
    this.settings.onLargeReply?.(subject, 'too_large', bytes);
    this.settings.logger.warn({ subject: msg.subject, bytes }, 'reply over the RPC reply limit: answered 400');
    const tooLarge: RpcReply = { ok: false, error: replyTooLarge().toData() };
    msg.respond(encodeReply(tooLarge));
    return tooLarge;
  }

  /** Answers (when a reply is expected) with {@link requestRefused}, logs and counts the refusal. */
  private refuse(subject: string, msg: Msg, reason: RefusalReason): void {
    this.settings.onRefused?.(subject, reason);
    this.settings.logger.warn(
      { subject: msg.subject, reason, requestId: acceptRequestId(msg.headers?.get(RpcHeaders.requestId) || undefined) },
      'NATS request refused before any handler: no valid signature',
    );
    if (msg.reply) msg.respond(encodeReply({ ok: false, error: requestRefused().toData() }));
  }

  /** Stops taking messages (replicas in the queue group get them instead), waits for in-flight handlers, drains the connection. */
  async close(): Promise<void> {
    const nc = this.nc;
    if (!nc || nc.isClosed()) return;
    await Promise.allSettled(this.subs.map((sub) => sub.drain()));
    if (this.inFlight > 0) {
      this.settings.logger.info({ inFlight: this.inFlight }, 'waiting for in-flight NATS requests');
      await Promise.race([
        new Promise<void>((resolve) => (this.idle = resolve)),
        new Promise((resolve) => setTimeout(resolve, this.settings.shutdownTimeoutMs).unref()),
      ]);
    }
    await nc.drain();
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

const encoder = new TextEncoder();

/** Bytes of each part of a reply: the server's max_payload (1 MiB when unknown) less the room for headers. */
function replyPartSize(maxPayload: number | undefined): number {
  const max = maxPayload && maxPayload > 2 * RPC_REPLY_LIMITS.headerRoom ? maxPayload : 1024 * 1024;
  return max - RPC_REPLY_LIMITS.headerRoom;
}

function isPayloadTooLarge(error: unknown): boolean {
  return error instanceof Error && /max_payload/i.test(error.message);
}

/** What a caller gets when the answer is over RPC_REPLY_LIMITS.maxBytes (16 MiB). */
export function replyTooLarge(): ApiError {
  return ApiError.invalid(
    { reply: 'the answer would exceed the 16 MiB reply limit; ask for fewer records (per_page) or fewer embedded fields' },
    'The answer to this request is too large to send',
  );
}
