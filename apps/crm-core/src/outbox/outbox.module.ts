import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { connectNats, whenJetStreamAnswers } from '@crm/messaging';
import { LOGGER, METRICS_REGISTRY } from '@crm/service-kit';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { ensureEventsStream, OutboxRelay } from './outbox';
import { OutboxListener } from './outbox-listener';
import { OutboxMetrics } from './outbox-metrics';
import { OutboxRetention } from './outbox-retention';
import { outboxBacklog } from './outbox.repository';

/**
 * Runs the outbox relay in every crm-core replica (they share the backlog, in order per record)
 * on a NATS connection of its own, woken by the NOTIFY of every committed event, with its metrics
 * in the service's registry, and the retention of relayed rows; stops them, then drains, on shutdown.
 */
@Injectable()
export class OutboxRelayRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private nc: NatsConnection | undefined;
  private relay: { stop(): Promise<void> } | undefined;
  private listener: OutboxListener | undefined;
  private retention: OutboxRetention | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: CrmCoreConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.nc = await connectNats({ url: this.config.NATS_URL, name: `crm-core-outbox-${process.pid}`, logger: this.logger });
    const nc = this.nc;
    await whenJetStreamAnswers(
      'events stream',
      () => ensureEventsStream(nc, this.config.CRM_NAMESPACE, this.config.EVENTS_STREAM_REPLICAS),
      this.logger,
    );
    const metrics = new OutboxMetrics(this.registry);
    metrics.readBacklogFrom(() => outboxBacklog(this.dataSource.manager));
    const relay = new OutboxRelay({
      dataSource: this.dataSource,
      nc: this.nc,
      namespace: this.config.CRM_NAMESPACE,
      logger: this.logger,
      metrics,
    });
    this.listener = new OutboxListener(this.config.databaseUrl, this.logger, () => relay.wake());
    this.listener.start();
    this.relay = relay.run();
    this.retention = new OutboxRetention({
      dataSource: this.dataSource,
      logger: this.logger,
      retentionSeconds: this.config.OUTBOX_RETENTION_HOURS * 3600,
    });
    this.retention.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.retention?.stop();
    await this.listener?.stop();
    await this.relay?.stop();
    await this.nc?.drain().catch(() => undefined);
  }
}

@Module({ providers: [OutboxRelayRunner] })
export class OutboxModule {}
