import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { METRICS_REGISTRY, ReadinessRegistry } from '@crm/service-kit';
import type { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import { poolOf, registerPoolMetrics } from './pool-metrics';

/**
 * A bounded context's DataSource: opened at start, checked by /readyz, its pool's gauges in the
 * metrics (`pool`: its schema), closed last at shutdown.
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
          inject: [ReadinessRegistry, METRICS_REGISTRY],
          useFactory: async (readiness: ReadinessRegistry, registry: Registry) => {
            const dataSource = await create().initialize();
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
