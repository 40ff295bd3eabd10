import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { ReadinessRegistry } from '@crm/service-kit';
import { DataSource } from 'typeorm';

/** A bounded context's DataSource: opened at start, checked by /readyz, closed last at shutdown. */
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
          inject: [ReadinessRegistry],
          useFactory: async (readiness: ReadinessRegistry) => {
            const dataSource = await create().initialize();
            readiness.register('postgres', () => dataSource.query('SELECT 1'));
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
