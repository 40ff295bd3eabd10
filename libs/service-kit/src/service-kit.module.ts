import { Global, Module, type DynamicModule } from '@nestjs/common';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { OpsController } from './ops.controller';
import { ReadinessRegistry } from './readiness.registry';
import { LOGGER, METRICS_REGISTRY, SERVICE_NAME } from './tokens';

export interface ServiceKitOptions {
  service: string;
  logger: Logger;
  registry: Registry;
}

/** Logger, metrics registry, readiness and the health endpoints, once per service. */
@Global()
@Module({})
export class ServiceKitModule {
  static forRoot(options: ServiceKitOptions): DynamicModule {
    return {
      module: ServiceKitModule,
      controllers: [OpsController],
      providers: [
        ReadinessRegistry,
        { provide: LOGGER, useValue: options.logger },
        { provide: METRICS_REGISTRY, useValue: options.registry },
        { provide: SERVICE_NAME, useValue: options.service },
      ],
      exports: [ReadinessRegistry, LOGGER, METRICS_REGISTRY, SERVICE_NAME],
    };
  }
}
