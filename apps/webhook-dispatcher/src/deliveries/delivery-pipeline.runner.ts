import { Inject, Injectable, type BeforeApplicationShutdown, type OnApplicationBootstrap } from '@nestjs/common';
import { LOGGER, METRICS_REGISTRY } from '@crm/service-kit';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { DispatcherConfig } from '../config/dispatcher.config';
import { DeliveryDispatcher } from './delivery-dispatcher';

/** Runs the delivery pipeline for the life of the process; stops it before connections close. */
@Injectable()
export class DeliveryPipelineRunner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private dispatcher: DeliveryDispatcher | undefined;

  constructor(
    private readonly dataSource: DataSource,
    private readonly config: DispatcherConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(METRICS_REGISTRY) private readonly registry: Registry,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    this.dispatcher = new DeliveryDispatcher({
      dataSource: this.dataSource,
      config: this.config,
      logger: this.logger,
      registry: this.registry,
    });
    await this.dispatcher.start();
  }

  async beforeApplicationShutdown(): Promise<void> {
    // In-flight attempts get what is left of the shutdown budget; unfinished ones are retried by another replica.
    await this.dispatcher?.stop(Math.max(1000, this.config.SHUTDOWN_TIMEOUT_MS - 3000));
  }
}
