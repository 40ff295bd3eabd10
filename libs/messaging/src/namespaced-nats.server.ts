import { ServerNats } from '@nestjs/microservices';
import { namespacedSubject, RpcHeaders } from '@crm/contracts';
import { acceptRequestId, runWithRequestId } from '@crm/observability';
import type { Logger } from 'pino';
import { natsClientOptions } from './nats-connection';

export interface NamespacedNatsServerOptions {
  url: string;
  name: string;
  namespace: string;
  queue: string;
  logger: Logger;
  /** Longest wait for in-flight handlers at shutdown. */
  shutdownTimeoutMs: number;
}

interface NatsMsgLike {
  headers?: { get(name: string): string };
}

/**
 * Nest's NATS transport with what production needs: subjects prefixed by the deployment
 * namespace, one queue group per service (replicas share the work), the caller's request id
 * restored from headers, and a graceful close that stops taking messages, waits for in-flight
 * handlers and drains the connection.
 */
export class NamespacedNatsServer extends ServerNats {
  private readonly subs: Array<{ drain(): Promise<void> }> = [];
  private inFlight = 0;
  private idle: (() => void) | null = null;

  constructor(private readonly settings: NamespacedNatsServerOptions) {
    super({ ...natsClientOptions(settings.url, settings.name), queue: settings.queue });
  }

  isConnected(): boolean {
    const client = this.unwrap<{ isClosed(): boolean; isDraining(): boolean } | null>();
    return !!client && !client.isClosed() && !client.isDraining();
  }

  override bindEvents(client: Parameters<ServerNats['bindEvents']>[0]): void {
    for (const channel of this.messageHandlers.keys()) {
      const subject = namespacedSubject(this.settings.namespace, channel);
      const sub = client.subscribe(subject, { queue: this.settings.queue, callback: this.getMessageHandler(channel).bind(this) });
      this.subs.push(sub);
      this.settings.logger.debug({ subject, queue: this.settings.queue }, 'subscribed');
    }
  }

  override async handleMessage(channel: string, natsMsg: NatsMsgLike & Parameters<ServerNats['handleMessage']>[1]): Promise<unknown> {
    this.inFlight += 1;
    const requestId = acceptRequestId(natsMsg.headers?.get(RpcHeaders.requestId) || undefined);
    try {
      return await runWithRequestId(requestId, () => super.handleMessage(channel, natsMsg));
    } finally {
      this.inFlight -= 1;
      if (this.inFlight === 0 && this.idle) this.idle();
    }
  }

  override async close(): Promise<void> {
    const client = this.unwrap<{ drain(): Promise<void>; isClosed(): boolean } | null>();
    if (!client || client.isClosed()) return;
    // Stop taking new messages first: replicas in the queue group get them instead.
    await Promise.allSettled(this.subs.map((sub) => sub.drain()));
    if (this.inFlight > 0) {
      this.settings.logger.info({ inFlight: this.inFlight }, 'waiting for in-flight NATS requests');
      await Promise.race([new Promise<void>((resolve) => (this.idle = resolve)), new Promise((resolve) => setTimeout(resolve, this.settings.shutdownTimeoutMs).unref())]);
    }
    // Replies are published on the next tick after a handler resolves.
    await new Promise((resolve) => setImmediate(resolve));
    await client.drain();
    this.settings.logger.info('NATS connection drained');
  }
}
