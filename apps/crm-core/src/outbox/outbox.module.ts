import { Inject, Injectable, Module, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { connectNats } from '@crm/messaging';
import { LOGGER } from '@crm/service-kit';
import type { NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { ensureEventsStream, OutboxRelay } from './outbox';

/**
 * Runs the outbox relay in every crm-core replica (they share the work through SKIP LOCKED) on a
 * NATS connection of its own; stops it, then drains, on shutdown.
 */
@Injectable()
export class OutboxRelayRunner implements OnApplicationBootstrap, OnApplicationShutdown {
  private nc: NatsConnection | undefined;
  private relay: { stop(): Promise<void> } | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: CrmCoreConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.nc = await connectNats({ url: this.config.NATS_URL, name: `crm-core-outbox-${process.pid}`, logger: this.logger });
    await ensureEventsStream(this.nc, this.config.CRM_NAMESPACE);
    this.relay = new OutboxRelay(this.dataSource, this.nc, this.config.CRM_NAMESPACE, this.logger).run();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay?.stop();
    await this.nc?.drain().catch(() => undefined);
  }
}

@Module({ providers: [OutboxRelayRunner] })
export class OutboxModule {}
