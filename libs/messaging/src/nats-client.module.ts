import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { NatsConnection } from '@nats-io/transport-node';
import { LOGGER, METRICS_REGISTRY, ReadinessRegistry } from '@crm/service-kit';
import type { Logger } from 'pino';
import { Histogram, type Registry } from 'prom-client';
import { connectNats, parseNatsUrl } from './nats-connection';
import { RpcClient } from './rpc-client';
import { RpcSigner } from './rpc-signature';

export const NATS_CONNECTION = Symbol('NATS_CONNECTION');

export interface NatsClientModuleOptions {
  url: string;
  name: string;
  namespace: string;
  timeoutMs: number;
  /**
   * CALLER_SIGNING_KEY of a service that sends requests (the gateway, the auth-server): required
   * (an empty one stops the start). Absent for a service that sends none.
   */
  signingKey?: string;
}

/** A NATS connection and an {@link RpcClient} over it; drained at shutdown. */
@Global()
@Module({})
export class NatsClientModule implements OnApplicationShutdown {
  constructor(@Inject(NATS_CONNECTION) private readonly nc: NatsConnection) {}

  static forRoot(options: NatsClientModuleOptions): DynamicModule {
    return {
      module: NatsClientModule,
      providers: [
        {
          provide: NATS_CONNECTION,
          inject: [LOGGER, ReadinessRegistry],
          useFactory: async (logger: Logger, readiness: ReadinessRegistry) => {
            const nc = await connectNats({ url: options.url, name: options.name, logger });
            readiness.register('nats', () => {
              if (nc.isClosed() || nc.isDraining()) throw new Error('closed');
              return nc.flush();
            });
            return nc;
          },
        },
        {
          provide: RpcClient,
          inject: [NATS_CONNECTION, LOGGER, METRICS_REGISTRY],
          useFactory: (nc: NatsConnection, logger: Logger, registry: Registry) => {
            const duration = new Histogram({
              name: 'nats_rpc_duration_seconds',
              help: 'NATS request/reply duration by subject and outcome',
              labelNames: ['subject', 'outcome'],
              buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
              registers: [registry],
            });
            return new RpcClient(nc, {
              namespace: options.namespace,
              timeoutMs: options.timeoutMs,
              logger,
              signer: options.signingKey === undefined ? undefined : new RpcSigner(options.signingKey),
              observe: (subject, outcome, seconds) => duration.observe({ subject, outcome }, seconds),
              inboxPrefix: parseNatsUrl(options.url).inboxPrefix,
            });
          },
        },
      ],
      exports: [NATS_CONNECTION, RpcClient],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.nc.isClosed()) await this.nc.drain().catch(() => this.nc.close());
  }
}
