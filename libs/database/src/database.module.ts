import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { LOGGER, METRICS_REGISTRY, ReadinessRegistry } from '@crm/service-kit';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { waitForMigrations } from './migrate';
import { poolOf, registerPoolMetrics } from './pool-metrics';

/**
 * A bounded context's DataSource: opened at start, provided once its schema has every migration
 * this code knows (applied by the migration Job; until then nothing that needs the database
 * starts, so neither HTTP nor NATS serves), checked by /readyz, its pool's gauges in the metrics
 * (`pool`: its schema), closed last at shutdown.
 */
@Global()
@Module({})
export class DatabaseModule implements OnApplicationShutdown {
  constructor(@Inject(DataSource) private readonly dataSource: DataSource) {}

  static forRoot(create: () => DataSource): DynamicModule {
    return {
      module: DatabaseModule,
      providers: [
        {
          provide: DataSource,
          inject: [ReadinessRegistry, LOGGER, METRICS_REGISTRY],
          useFactory: async (readiness: ReadinessRegistry, logger: Logger, registry: Registry) => {
            const dataSource = await create().initialize();
            await waitForMigrations(dataSource, { log: (msg) => logger.warn(msg) });
            readiness.register('postgres', () => dataSource.query('SELECT 1'));
            const pool = poolOf(dataSource);
            if (pool) registerPoolMetrics(registry, String((dataSource.options as { schema?: string }).schema ?? 'default'), pool);
            return dataSource;
          },
        },
      ],
      exports: [DataSource],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
  }
}
