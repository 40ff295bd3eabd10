import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ReadinessRegistry } from './readiness.registry';
import { LOGGER } from './tokens';

export const REDIS = Symbol('REDIS');

export interface RedisModuleOptions {
  url: string;
  /** When false, Redis being down leaves the service ready (it degrades instead of failing). */
  requiredForReadiness: boolean;
  /**
   * ioredis's auto-pipelining: the commands issued in one turn of the event loop leave in one
   * write. For a client on every request's path (the gateway's limits), where a socket write costs
   * more than the command; never for a subscribed connection.
   */
  autoPipelining?: boolean;
}

/**
 * One ioredis client per service. Commands fail fast while Redis is unreachable (no offline
 * queue, short timeouts), so callers can take their fallback path instead of hanging.
 */
export function createRedis(url: string, logger: Logger, autoPipelining = false): Redis {
  const redis = new Redis(url, {
    enableAutoPipelining: autoPipelining,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    commandTimeout: 1000,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(times * 200, 2000),
    lazyConnect: false,
  });
  let down = false;
  redis.on('error', (error: Error) => {
    if (!down) logger.warn({ detail: error.message }, 'Redis unavailable');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('Redis reconnected');
    down = false;
  });
  return redis;
}

@Global()
@Module({})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: Redis) {}

  static forRoot(options: RedisModuleOptions): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        {
          provide: REDIS,
          inject: [LOGGER, ReadinessRegistry],
          useFactory: (logger: Logger, readiness: ReadinessRegistry) => {
            const redis = createRedis(options.url, logger, options.autoPipelining === true);
            if (options.requiredForReadiness) readiness.register('redis', () => redis.ping());
            return redis;
          },
        },
      ],
      exports: [REDIS],
    };
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
