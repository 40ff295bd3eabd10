import { ServerNats } from '@nestjs/microservices';
import { ApiError, ErrorName, namespacedSubject, RpcHeaders } from '@crm/contracts';
import { acceptRequestId, deadlineIn, runWithRequestId } from '@crm/observability';
import type { Logger } from 'pino';
import { natsClientOptions } from './nats-connection';
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
 * is answered with an error and never reaches a handler), the caller's request id restored from
 * headers, and a graceful close that stops taking messages, waits for in-flight handlers and
 * drains the connection.
 */
export class NamespacedNatsServer extends ServerNats {
  private readonly subs: Array<{ drain(): Promise<void> }> = [];
  private inFlight = 0;
  private readonly pending = new WeakMap<object, true>();
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
    this.pending.set(natsMsg, true);
    const requestId = acceptRequestId(natsMsg.headers?.get(RpcHeaders.requestId) || undefined);
    try {
      const deadline = deadlineIn(natsMsg.headers?.get(RpcHeaders.timeout) || undefined);
      return await runWithRequestId(requestId, () => super.handleMessage(channel, natsMsg), deadline);
    } catch (error) {
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
    if (!this.pending.delete(natsMsg)) return;
    this.inFlight -= 1;
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
