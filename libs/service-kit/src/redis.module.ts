import { Global, Inject, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { Cluster, Redis, type ClusterNode, type ClusterOptions, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { ReadinessRegistry } from './readiness.registry';
import { LOGGER } from './tokens';

export const REDIS = Symbol('REDIS');

/**
 * What a service holds under {@link REDIS}: one Redis server, or a Redis Cluster (REDIS_CLUSTER).
 * Both answer the commands the services use; a command, a script or a MULTI block naming several
 * keys must keep them in one hash slot (decisions.md "Redis Cluster"), which a single server never
 * checks and a cluster refuses with CROSSSLOT.
 */
export type RedisClient = Redis | Cluster;

export interface RedisClientOptions {
  /**
   * REDIS_URL names seed nodes of a Redis Cluster (comma-separated URLs, or host:port after the
   * first URL); the user and password of the first URL that has them apply to every node.
   */
  cluster?: boolean;
  /**
   * ioredis's auto-pipelining: the commands issued in one turn of the event loop leave in one
   * write (per node in a cluster). For a client on every request's path (the gateway's limits),
   * where a socket write costs more than the command; never for a subscribed connection.
   */
  autoPipelining?: boolean;
}

export interface RedisModuleOptions extends RedisClientOptions {
  url: string;
  /** When false, Redis being down leaves the service ready (it degrades instead of failing). */
  requiredForReadiness: boolean;
}

/** Fail fast while a server is unreachable, so callers take their fallback path instead of hanging. */
const TIMEOUTS = { commandTimeout: 1000, connectTimeout: 2000, maxRetriesPerRequest: 1 } as const;
const retryDelay = (times: number) => Math.min(times * 200, 2000);

/** The seed nodes and shared credentials of a comma-separated list of Redis URLs (or host:port after the first). */
export function parseRedisSeeds(urls: string): { nodes: ClusterNode[]; username?: string; password?: string; tls: boolean } {
  const entries = urls
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  if (entries.length === 0) throw new Error('REDIS_URL names no Redis node: give redis://host:port (comma-separated for cluster seeds)');
  let username: string | undefined;
  let password: string | undefined;
  let tls = false;
  const nodes = entries.map((entry) => {
    const url = new URL(/^rediss?:\/\//.test(entry) ? entry : `redis://${entry}`);
    if (url.protocol === 'rediss:') tls = true;
    if (password === undefined && (url.username || url.password)) {
      username = url.username ? decodeURIComponent(url.username) : undefined;
      password = url.password ? decodeURIComponent(url.password) : undefined;
    }
    return { host: url.hostname.replace(/^\[(.*)\]$/, '$1'), port: url.port ? Number(url.port) : 6379 };
  });
  return { nodes, username, password, tls };
}

function clusterOptions(url: string, autoPipelining: boolean): { nodes: ClusterNode[]; options: ClusterOptions } {
  const { nodes, username, password, tls } = parseRedisSeeds(url);
  // The node connections keep ioredis's own offline queue: they connect lazily, and the cluster
  // (enableOfflineQueue: false) already refuses commands while it is not ready.
  const redisOptions: RedisOptions = { ...TIMEOUTS, username, password, ...(tls ? { tls: {} } : {}) };
  return {
    nodes,
    options: {
      redisOptions,
      // Every read and write goes to the slot's primary: the services read their own writes.
      scaleReads: 'master',
      enableOfflineQueue: false,
      enableAutoPipelining: autoPipelining,
      clusterRetryStrategy: retryDelay,
      slotsRefreshTimeout: 2000,
      // A failover is seen within a few seconds even by a client that sends nothing to the failed node.
      slotsRefreshInterval: 2000,
      retryDelayOnFailover: 200,
      retryDelayOnClusterDown: 200,
      retryDelayOnTryAgain: 200,
      maxRedirections: 8,
      lazyConnect: false,
    },
  };
}

/**
 * One ioredis client per service: a {@link Redis} for one server, a {@link Cluster} with
 * `cluster`. Commands fail fast while Redis is unreachable (no offline queue, short timeouts),
 * so callers can take their fallback path instead of hanging.
 */
export function createRedis(url: string, logger: Logger, options: RedisClientOptions = {}): RedisClient {
  const autoPipelining = options.autoPipelining === true;
  let redis: RedisClient;
  if (options.cluster) {
    const { nodes, options: clusterOpts } = clusterOptions(url, autoPipelining);
    redis = new Cluster(nodes, clusterOpts);
  } else {
    redis = new Redis(url, {
      ...TIMEOUTS,
      enableAutoPipelining: autoPipelining,
      enableOfflineQueue: false,
      retryStrategy: retryDelay,
      lazyConnect: false,
    });
  }
  let down = false;
  const unavailable = (error: Error) => {
    if (!down) logger.warn({ detail: error.message }, 'Redis unavailable');
    down = true;
  };
  redis.on('error', unavailable);
  // A cluster reports a failing node on its own (the cluster itself may stay usable): at most one line per 10 s.
  let lastNodeWarning = 0;
  redis.on('node error', (error: Error, node?: string) => {
    if (Date.now() - lastNodeWarning < 10_000) return;
    lastNodeWarning = Date.now();
    logger.warn({ detail: error.message, node }, 'Redis Cluster node unavailable');
  });
  redis.on('ready', () => {
    if (down) logger.info('Redis reconnected');
    down = false;
  });
  return redis;
}

const CRC16_TABLE = (() => {
  const table = new Uint16Array(256);
  for (let i = 0; i < 256; i += 1) {
    let crc = i << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    table[i] = crc;
  }
  return table;
})();

/**
 * The Redis Cluster hash slot of a key (CRC16 of the key, or of its hash tag: the part between
 * the first `{` and the next `}` when that part is not empty), as `CLUSTER KEYSLOT` answers.
 */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open >= 0) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) key = key.slice(open + 1, close);
  }
  let crc = 0;
  for (const byte of Buffer.from(key, 'utf8')) crc = ((crc << 8) & 0xffff) ^ CRC16_TABLE[((crc >> 8) ^ byte) & 0xff]!;
  return crc % 16384;
}

/**
 * Keys grouped so that each group may go into one script or MULTI block: by hash slot on a
 * cluster, all together on a single server (where nothing changes).
 */
export function groupBySlot<T>(redis: RedisClient, items: readonly T[], keyOf: (item: T) => string): T[][] {
  if (!isCluster(redis)) return items.length > 0 ? [[...items]] : [];
  const groups = new Map<number, T[]>();
  for (const item of items) {
    const slot = keySlot(keyOf(item));
    const group = groups.get(slot);
    if (group) group.push(item);
    else groups.set(slot, [item]);
  }
  return [...groups.values()];
}

/** Whether the client talks to a Redis Cluster. */
export function isCluster(redis: RedisClient): redis is Cluster {
  return (redis as Cluster).isCluster === true;
}

/**
 * The primaries a cluster client knows now (one entry, the server itself, for a single node):
 * where a keyspace scan must run, and where a script's PUBLISH is first delivered.
 */
export function primariesOf(redis: RedisClient): Redis[] {
  return isCluster(redis) ? redis.nodes('master') : [redis];
}

/**
 * Answers once the client can serve a command: a cluster must know its slots and reach a primary.
 * PING goes to one node; for a cluster, `cluster_state:ok` of that node says every slot is served.
 */
export async function redisHealthy(redis: RedisClient): Promise<void> {
  if (!isCluster(redis)) {
    await redis.ping();
    return;
  }
  const info = await redis.cluster('INFO');
  if (!/cluster_state:ok/.test(String(info))) throw new Error('Redis Cluster state is not ok (a slot has no reachable primary)');
}

@Global()
@Module({})
export class RedisModule implements OnApplicationShutdown {
  constructor(@Inject(REDIS) private readonly redis: RedisClient) {}

  static forRoot(options: RedisModuleOptions): DynamicModule {
    return {
      module: RedisModule,
      providers: [
        {
          provide: REDIS,
          inject: [LOGGER, ReadinessRegistry],
          useFactory: (logger: Logger, readiness: ReadinessRegistry) => {
            const redis = createRedis(options.url, logger, options);
            if (options.requiredForReadiness) readiness.register('redis', () => redisHealthy(redis));
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
