import { createLogger } from '@crm/observability';
import { createRedis, keySlot, type RedisClient } from '@crm/service-kit';
import { startRedisCluster, type RedisCluster } from './redis-cluster';

describe('startRedisCluster (private Redis Cluster)', () => {
  let cluster: RedisCluster;
  let client: RedisClient;

  beforeAll(async () => {
    cluster = await startRedisCluster();
    client = createRedis(cluster.seedUrl(), createLogger('test', 'silent'), { cluster: true });
    await new Promise((resolve) => client.once('ready', resolve));
  }, 120_000);

  afterAll(async () => {
    client?.disconnect();
    await cluster?.destroy();
  });

  it('starts three primaries with one replica each, and computes slots as the cluster does', async () => {
    const nodes = await cluster.nodes();
    expect(nodes.filter((n) => n.role === 'primary')).toHaveLength(3);
    expect(nodes.filter((n) => n.role === 'replica')).toHaveLength(3);
    for (const key of ['a', 'crm:gw:rate:{u1}:9', 'x{}y', '{}', 'é{ü}', 'a{b'])
      expect(keySlot(key)).toBe(Number(await client.cluster('KEYSLOT', key)));
  });

  it('refuses a command, script or MULTI whose keys lie in several slots (what hash tags avoid)', async () => {
    expect(keySlot('a')).not.toBe(keySlot('b'));
    await expect(client.mget('a', 'b')).rejects.toThrow(/CROSSSLOT/);
    await expect(client.eval("return redis.call('GET', KEYS[1])", 2, 'a', 'b')).rejects.toThrow(/CROSSSLOT|different slots/);
    await expect(client.mget('{t}a', '{t}b')).resolves.toEqual([null, null]);
  });

  it('fails a killed primary over to its replica, and the client follows', async () => {
    await client.set('k{one}', 'v');
    const before = await cluster.primaryOf('k{one}');
    const { killed, promoted } = await cluster.killPrimaryOf('k{one}');
    expect(killed.port).toBe(before.port);
    expect(promoted.port).not.toBe(before.port);
    let value: string | null = null;
    for (let i = 0; i < 100 && value === null; i += 1) {
      value = await client.get('k{one}').catch(() => null);
      if (value === null) await new Promise((r) => setTimeout(r, 100));
    }
    expect(value).toBe('v');
    await cluster.restart(killed.port);
    expect((await cluster.nodes()).find((n) => n.port === killed.port)!.role).toBe('replica');
  }, 120_000);
});
