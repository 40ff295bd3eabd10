import { connectNats, whenJetStreamAnswers } from '@crm/messaging';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import type { DispatcherConfig } from '../config/dispatcher.config';
import { DeliveriesRepository } from './deliveries.repository';
import { DeliveryMetrics } from './delivery-metrics';
import { DeliverySender } from './delivery-sender';
import { DuePoller } from './due-poller';
import { ensureDispatcherConsumer, EventIngestor } from './event-ingestor';
import { ReceiverClient } from './receiver-client';
import { ReplicaCoordinator } from './replica-coordinator';
import { WebhookCache } from './webhook-cache';

export interface DeliveryDispatcherOptions {
  dataSource: DataSource;
  config: DispatcherConfig;
  logger: Logger;
  registry: Registry;
  /** Wait for retries coming due at least this often. */
  pollIntervalMs?: number;
}

/** Deliveries held per replica at most (queued and in flight). */
const MAX_HELD = 10_000;
const PURGE_EVERY_MS = 3600_000;

/**
 * The delivery pipeline of one dispatcher replica: events from JetStream (while this replica holds
 * the ingest lock) -> deliveries in PostgreSQL -> signed POSTs with per-webhook caps -> outcomes and
 * the retry schedule in PostgreSQL, shared with every other replica.
 */
export class DeliveryDispatcher {
  private nc: NatsConnection | undefined;
  private readonly repository: DeliveriesRepository;
  private readonly client: ReceiverClient;
  private readonly sender: DeliverySender;
  private readonly poller: DuePoller;
  private readonly coordinator: ReplicaCoordinator;
  private readonly metrics: DeliveryMetrics;
  private readonly webhooks: WebhookCache;
  private ingestor: EventIngestor | undefined;
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: DeliveryDispatcherOptions) {
    const { config, logger } = options;
    const metrics = new DeliveryMetrics(options.registry);
    this.repository = new DeliveriesRepository(options.dataSource);
    this.webhooks = new WebhookCache(this.repository);
    this.client = new ReceiverClient({
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      allowPrivate: config.WEBHOOK_ALLOW_PRIVATE,
      userAgent: 'crm-webhooks/1',
    });
    this.coordinator = new ReplicaCoordinator(config.databaseUrl, this.repository, logger, {
      onIngest: () => this.ingestor?.start(),
      onIngestLost: () => void this.ingestor?.stop(),
      onDue: () => this.poller.wake(),
      onWebhooksChanged: (accountId) => (accountId === null ? this.webhooks.clear() : this.webhooks.invalidate(accountId)),
    });
    this.sender = new DeliverySender(
      this.repository,
      this.client,
      metrics,
      logger,
      { perWebhook: config.WEBHOOK_RECEIVER_CONCURRENCY, maxHeld: MAX_HELD, retryScale: config.WEBHOOK_RETRY_SCALE },
      () => this.poller.wake(),
    );
    this.poller = new DuePoller(this.repository, this.sender, () => this.coordinator.claimKey, logger);
    this.metrics = metrics;
  }

  async start(): Promise<void> {
    const { config, logger } = this.options;
    this.nc = await connectNats({ url: config.NATS_URL, name: `webhook-dispatcher-deliveries-${process.pid}`, logger });
    const nc = this.nc;
    await whenJetStreamAnswers(
      'events stream and consumer',
      () => ensureDispatcherConsumer(nc, config.CRM_NAMESPACE, config.EVENTS_STREAM_REPLICAS),
      logger,
    );
    const ingestor = new EventIngestor(
      this.nc,
      config.CRM_NAMESPACE,
      this.repository,
      this.webhooks,
      this.sender,
      this.metrics,
      logger,
      () => this.coordinator.claimKey,
      () => this.coordinator.notifyDue(),
    );
    this.ingestor = ingestor;
    this.metrics.watch({
      stream: () => ingestor.streamDepth(),
      backlog: () => this.repository.backlog(),
      local: () => this.sender.heldCount,
    });
    await this.coordinator.start();
    this.poller.start(this.options.pollIntervalMs ?? 250);
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.purgeTimer.unref();
  }

  /**
   * Stops in the order that loses nothing: no more events taken (unacknowledged ones go to the
   * next replica), no more claims, queued deliveries given back, in-flight attempts finished and
   * recorded, then the replica session (and its locks) ends.
   */
  async stop(timeoutMs: number): Promise<void> {
    clearInterval(this.purgeTimer);
    await this.ingestor?.stop();
    await this.poller.stop();
    await this.sender.stop(timeoutMs);
    await this.coordinator.stop();
    this.client.close();
    await this.nc?.drain().catch(() => undefined);
  }

  private async purge(): Promise<void> {
    if (!this.coordinator.isIngesting) return;
    try {
      let removed = 0;
      for (
        let n = await this.repository.purge(this.options.config.WEBHOOK_DELIVERY_RETENTION_DAYS);
        n > 0;
        n = await this.repository.purge(this.options.config.WEBHOOK_DELIVERY_RETENTION_DAYS)
      )
        removed += n;
      if (removed > 0)
        this.options.logger.info({ deliveries: removed }, 'webhook dispatcher: removed finished deliveries past their retention');
    } catch (error) {
      this.options.logger.warn({ detail: (error as Error).message }, 'webhook dispatcher: purging old deliveries failed');
    }
  }
}
