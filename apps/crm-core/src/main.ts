import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { loadConfig } from '@crm/config';
import { QueueGroups } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { attachNatsServer } from '@crm/messaging';
import { createLogger, createMetricsRegistry, PinoNestLogger, startTracing } from '@crm/observability';
import { listenOn, runService, startupConfig } from '@crm/service-kit';
import { AppModule } from './app.module';
import { CrmCoreConfig } from './config/crm-core.config';
import { crmDataSource } from './database/crm-data-source';
import { withReplicaReads } from './database/replica-reads';
import { ReplicaReadsRunner } from './database/replica-reads.module';
import { IdempotencyService } from './idempotency/idempotency.service';

const SERVICE = 'crm-core';
const config = startupConfig(SERVICE, () => loadConfig(CrmCoreConfig));
const logger = createLogger(SERVICE, config.LOG_LEVEL);

void runService({
  service: SERVICE,
  logger,
  tracing: startTracing(config.tracingOptions(SERVICE)),
  shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
  migrate: () => runMigrations(crmDataSource(config), (msg) => logger.info(msg)).then(() => undefined),
  createApp: async () => {
    const registry = createMetricsRegistry(SERVICE);
    const app = await NestFactory.create(AppModule.forRoot(config, { service: SERVICE, logger, registry }), {
      logger: new PinoNestLogger(logger),
    });
    await attachNatsServer(app, {
      service: SERVICE,
      url: config.NATS_URL,
      namespace: config.CRM_NAMESPACE,
      queue: QueueGroups.crmCore,
      logger,
      shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      verifyKeys: config.CALLER_VERIFY_KEYS,
      // Every write in one transaction, committed only with a reply that can be sent, with its Idempotency-Key.
      // Around that, reads pick the replica or the primary and writes answer with their commit position.
      around: withReplicaReads(app.get(ReplicaReadsRunner).reads, app.get(IdempotencyService).around),
    });
    return app;
  },
  listen: (app) => listenOn(app, config.HTTP_PORT),
  metricsPort: config.METRICS_PORT,
});
