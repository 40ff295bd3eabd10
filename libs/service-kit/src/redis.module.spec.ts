import { createLogger } from '@crm/observability';
import { Cluster, Redis } from 'ioredis';
import { createRedis, groupBySlot, isCluster, keySlot, parseRedisSeeds, primariesOf } from './redis.module';

const logger = createLogger('redis-module-test', 'silent');

describe('parseRedisSeeds', () => {
  it('reads comma-separated URLs or host:port, with the first credentials for every node', () => {
    expect(parseRedisSeeds('redis://crm-auth:p%40ss@10.0.0.1:7000, redis://10.0.0.2:7001,redis-2:7002')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: 'redis-2', port: 7002 },
      ],
      username: 'crm-auth',
      password: 'p@ss',
      tls: false,
    });
    expect(parseRedisSeeds('rediss://:secret@redis.example:6380')).toEqual({
      nodes: [{ host: 'redis.example', port: 6380 }],
      username: undefined,
      password: 'secret',
      tls: true,
    });
    expect(parseRedisSeeds('redis://[::1]').nodes).toEqual([{ host: '::1', port: 6379 }]);
  });

  it('refuses a list without a node, saying what to give', () => {
    expect(() => parseRedisSeeds(' , ')).toThrow(/redis:\/\/host:port/);
  });
});

describe('keySlot', () => {
  // Values from CLUSTER KEYSLOT (Redis 7); the cluster int-spec compares many more against a live cluster.
  it.each([
    ['foo', 12182],
    ['bar', 5061],
    ['{user1000}.following', 3443],
    ['{user1000}.followers', 3443],
    ['foo{}{bar}', 8363],
    ['foo{{bar}}zap', 4015],
    ['foo{bar}{zap}', 5061],
  ])('%s is in slot %i', (key, slot) => {
    expect(keySlot(key)).toBe(slot);
  });
});

describe('createRedis', () => {
  it('builds a single-server client by default, and a cluster client with the seeds and credentials', () => {
    const single = createRedis('redis://127.0.0.1:1', logger);
    const cluster = createRedis('redis://u:p@127.0.0.1:1,127.0.0.1:2', logger, { cluster: true });
    try {
      expect(single).toBeInstanceOf(Redis);
      expect(isCluster(single)).toBe(false);
      expect(primariesOf(single)).toEqual([single]);
      expect(cluster).toBeInstanceOf(Cluster);
      expect(isCluster(cluster)).toBe(true);
      const options = (cluster as Cluster).options;
      expect(options).toMatchObject({ scaleReads: 'master', enableOfflineQueue: false });
      expect(options.redisOptions).toMatchObject({ username: 'u', password: 'p', commandTimeout: 1000, connectTimeout: 2000 });
    } finally {
      single.disconnect();
      cluster.disconnect();
    }
  });

  it('groups keys by slot on a cluster, and keeps one group on a single server', () => {
    const single = createRedis('redis://127.0.0.1:1', logger);
    const cluster = createRedis('redis://127.0.0.1:1', logger, { cluster: true });
    try {
      const keys = ['a{x}', 'b{x}', 'foo', 'bar'];
      expect(groupBySlot(single, keys, (k) => k)).toEqual([keys]);
      expect(groupBySlot(cluster, keys, (k) => k)).toEqual([['a{x}', 'b{x}'], ['foo'], ['bar']]);
      expect(groupBySlot(single, [], (k: string) => k)).toEqual([]);
    } finally {
      single.disconnect();
      cluster.disconnect();
    }
  });
});
