import { createLogger } from '@crm/observability';
import { createRedis, keySlot, type RedisClient } from '@crm/service-kit';
import { uniqueNamespace } from './infra';
import { REPO_ROOT } from './services';
import { deployRedisAcl, startRedisCluster, type RedisCluster } from './redis-cluster';

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

describe('startRedisCluster with the ACL users of deploy/redis/users.acl', () => {
  const namespace = uniqueNamespace('rcacl');
  const passwords = { 'crm-gateway': 'gw-secret', 'crm-auth': 'auth-secret' };
  let cluster: RedisCluster;
  const open: RedisClient[] = [];
  const as = async (user: keyof typeof passwords) => {
    const client = createRedis(cluster.seedUrl(user, passwords[user]), createLogger('test', 'silent'), { cluster: true });
    open.push(client);
    await new Promise((resolve) => client.once('ready', resolve));
    return client;
  };

  beforeAll(async () => {
    cluster = await startRedisCluster({ acl: deployRedisAcl(REPO_ROOT, namespace, passwords) });
  }, 120_000);

  afterAll(async () => {
    for (const client of open) client.disconnect();
    await cluster?.destroy();
  });

  it('holds each service to its keys and lets both use the invalidation channel, on every node', async () => {
    const gateway = await as('crm-gateway');
    const auth = await as('crm-auth');
    const channel = `${namespace}:auth:invalidate`;
    // The gateway's subscriber (one node) hears what the auth-server's script publishes (any node).
    const listener = createRedis(cluster.seedUrl('crm-gateway', passwords['crm-gateway']).split(',')[0]!, createLogger('test', 'silent'));
    open.push(listener);
    await new Promise((resolve) => listener.once('ready', resolve));
    const heard: string[] = [];
    listener.on('message', (_c: string, message: string) => heard.push(message));
    await listener.subscribe(channel);
    for (let i = 0; i < 6; i += 1) {
      await gateway.set(`${namespace}:gw:rate:{u${i}}:1`, '1');
      await auth.eval(
        "redis.call('SET', KEYS[1], 'r') redis.call('PUBLISH', ARGV[1], ARGV[2]) return 1",
        1,
        `${namespace}:auth:cred:u${i}`,
        channel,
        `user:u${i}`,
      );
      expect(await gateway.get(`${namespace}:auth:cred:u${i}`)).toBe('r');
    }
    await expect(gateway.set(`${namespace}:auth:cred:u0`, 'forged')).rejects.toThrow(/NOPERM/);
    await expect(auth.get(`${namespace}:gw:rate:{u0}:1`)).rejects.toThrow(/NOPERM/);
    const deadline = Date.now() + 5000;
    while (heard.length < 6 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(heard.sort()).toEqual(Array.from({ length: 6 }, (_, i) => `user:u${i}`).sort());
  });
});
