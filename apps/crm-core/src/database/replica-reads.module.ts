import { Inject, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { LOGGER, METRICS_REGISTRY } from '@crm/service-kit';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { ReplicaReads } from './replica-reads';

/** crm-core's {@link ReplicaReads}: started with the app (a no-op router without DATABASE_REPLICA_URL), stopped at shutdown. */
@Injectable()
export class ReplicaReadsRunner implements OnModuleInit, OnApplicationShutdown {
  readonly reads: ReplicaReads;

  constructor(dataSource: DataSource, config: CrmCoreConfig, @Inject(LOGGER) logger: Logger, @Inject(METRICS_REGISTRY) registry: Registry) {
    this.reads = new ReplicaReads({
      primary: dataSource,
      primaryUrl: config.databaseUrl,
      replicaUrl: config.DATABASE_REPLICA_URL,
      maxLagMs: config.REPLICA_MAX_LAG_MS,
      pollMs: config.REPLICA_POLL_MS,
      timeoutMs: config.REPLICA_TIMEOUT_MS,
      poolSize: config.DATABASE_POOL_SIZE,
      registry,
      logger,
    });
  }

  onModuleInit(): void {
    this.reads.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.reads.stop();
  }
}

@Module({ providers: [ReplicaReadsRunner], exports: [ReplicaReadsRunner] })
export class ReplicaReadsModule {}
