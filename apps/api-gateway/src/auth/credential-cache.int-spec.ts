import { hashApiKey, newId } from '@crm/common';
import { ApiError, CacheInvalidation, CacheKeys, ErrorName, sealCredentialRecord, Subjects, type CredentialRecord } from '@crm/contracts';
import type { RpcClient } from '@crm/messaging';
import { createLogger, createMetricsRegistry } from '@crm/observability';
import { createRedis, primariesOf, type RedisClient } from '@crm/service-kit';
import { redisTargets, uniqueNamespace } from '@crm/testing';
import type { Registry } from 'prom-client';
import { GatewayConfig } from '../config/gateway.config';
import { CredentialsVerifier } from './credentials.verifier';

const logger = createLogger('credential-cache-test', 'silent');

/** Polls `check` every 5 ms until it holds; fails after `ms`. Returns how long it took. */
async function until(check: () => boolean | Promise<boolean>, ms = 2000): Promise<number> {
  const start = Date.now();
  while (!(await check())) {
    if (Date.now() - start > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return Date.now() - start;
}

const lookups = async (registry: Registry, source: string) =>
  (await registry.getSingleMetric('gateway_credential_lookups_total')!.get()).values.find((v) => v.labels.source === source)?.value ?? 0;

/**
 * The gateway's in-memory credential cache against the real Redis, with the auth-server's side
 * played by hand: it writes a sealed record or a grant flag, then announces it on the channel
 * (credentials.cache.ts and grant-revocation.service.ts do both in one script).
 */
describe.each(redisTargets())('credential cache invalidated through Redis pub/sub (real Redis, $name)', (target) => {
  /** A client of the target (waits until ready), or of `url` (a single server that may be down). */
  async function connect(url?: string): Promise<RedisClient> {
    const redis = createRedis(url ?? target.url(), logger, { cluster: url === undefined && target.cluster });
    if (url === undefined && redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    return redis;
  }

  const namespace = uniqueNamespace('credcache');
  const config = Object.assign(new GatewayConfig(), { CRM_NAMESPACE: namespace, CREDENTIAL_CACHE_MAX_LAG_MS: 300 });
  const rpc = { request: jest.fn() };
  const opened: Array<{ verifier: CredentialsVerifier; redis: RedisClient }> = [];
  let writer: RedisClient;
  let version = 1;

  beforeAll(async () => {
    await target.start();
    writer = await connect();
  }, 120_000);

  beforeEach(() => {
    rpc.request.mockReset();
    rpc.request.mockRejectedValue(new Error('the auth-server must not be asked'));
  });

  afterEach(async () => {
    for (const { verifier, redis } of opened.splice(0)) {
      await verifier.onApplicationShutdown();
      redis.disconnect();
    }
  });

  afterAll(async () => {
    writer.disconnect();
    await target.stop();
  });

  /** A gateway replica: its own Redis connection, verifier and subscriber; live before it returns. */
  async function replica(
    options: { url?: string; live?: boolean } = {},
  ): Promise<{ verifier: CredentialsVerifier; redis: RedisClient; registry: Registry }> {
    const redis = await connect(options.url);
    const registry = createMetricsRegistry('t');
    const verifier = new CredentialsVerifier(redis, rpc as unknown as RpcClient, config, logger, registry);
    verifier.onModuleInit();
    opened.push({ verifier, redis });
    if (options.live !== false) await until(() => verifier.cache.isLive());
    return { verifier, redis, registry };
  }

  /** What the auth-server does on a change: the sealed record, then the announcement. */
  async function publishRecord(
    userId: string,
    apiKey: string | null,
    billing: 'active' | 'subscription_canceled' = 'active',
  ): Promise<void> {
    const record: CredentialRecord = {
      found: true,
      user_id: userId,
      account_id: 'acc-' + userId,
      role: 'admin',
      api_key_hash: apiKey === null ? null : hashApiKey(config.API_KEY_PEPPER, apiKey),
      billing_status: billing,
      version: (version += 1),
    };
    await writer.set(CacheKeys.credentials(namespace, userId), sealCredentialRecord(config.API_KEY_PEPPER, record), 'EX', 60);
    await writer.publish(CacheKeys.invalidations(namespace), CacheInvalidation.user(userId));
  }

  /**
   * Reads until the record is kept: a read that raced with the announcement of the record's own
   * write is (rightly) not kept.
   */
  async function warm(verifier: CredentialsVerifier, userId: string, apiKey: string): Promise<void> {
    await until(async () => {
      await verifier.verifyApiKey(userId, apiKey);
      return verifier.cache.record(userId) !== undefined;
    });
  }

  async function refused(verifier: CredentialsVerifier, userId: string, apiKey: string): Promise<boolean> {
    return verifier.verifyApiKey(userId, apiKey).then(
      () => false,
      (error: unknown) => error instanceof ApiError,
    );
  }

  it('serves a cached key from memory, without a Redis GET', async () => {
    const { verifier, redis, registry } = await replica();
    const userId = newId();
    await publishRecord(userId, 'key-one');
    await warm(verifier, userId, 'key-one');
    const get = jest.spyOn(redis, 'get');
    const fromMemory = await lookups(registry, 'memory');
    for (let i = 0; i < 5; i += 1) expect((await verifier.verifyApiKey(userId, 'key-one')).user_id).toBe(userId);
    expect(get).not.toHaveBeenCalled();
    expect((await lookups(registry, 'memory')) - fromMemory).toBe(5);
    expect(await lookups(registry, 'redis')).toBeGreaterThanOrEqual(1);
    // A wrong key is refused from memory too.
    expect(await refused(verifier, userId, 'key-two')).toBe(true);
    expect(get).not.toHaveBeenCalled();
  });

  it('refuses a changed or revoked key on every replica well within 1 s of the change, without waiting for a TTL', async () => {
    const first = await replica();
    const second = await replica();
    const userId = newId();
    await publishRecord(userId, 'old-key');
    for (const { verifier } of [first, second]) await warm(verifier, userId, 'old-key');
    await publishRecord(userId, 'new-key');
    for (const { verifier } of [first, second]) {
      expect(await until(() => refused(verifier, userId, 'old-key'), 1000)).toBeLessThan(1000);
      expect((await verifier.verifyApiKey(userId, 'new-key')).user_id).toBe(userId);
    }
    // Billing stopped: refused (402) on both replicas too.
    await publishRecord(userId, 'new-key', 'subscription_canceled');
    for (const { verifier } of [first, second]) await until(() => refused(verifier, userId, 'new-key'), 1000);
    // Revoked (key removed) and the record deleted: refused, and the miss goes to the auth-server.
    await writer.del(CacheKeys.credentials(namespace, userId));
    await writer.publish(CacheKeys.invalidations(namespace), CacheInvalidation.user(userId));
    rpc.request.mockResolvedValue({ found: false, user_id: userId });
    for (const [asked, { verifier }] of [first, second].entries()) {
      await until(async () => (await refused(verifier, userId, 'new-key')) && rpc.request.mock.calls.length > asked, 1000);
    }
    expect(rpc.request).toHaveBeenCalledWith(Subjects.CredentialsResolve, { user_id: userId });
    expect(first.verifier.cache.record(userId)).toBeUndefined();
  });

  it('refuses a revoked grant on every replica after the announcement', async () => {
    const first = await replica();
    const second = await replica();
    const userId = newId();
    const grantId = `grant-${newId()}`;
    await publishRecord(userId, 'k');
    for (const { verifier } of [first, second]) {
      await until(async () => !(await verifier.tokenStatus(userId, grantId)).revoked && verifier.cache.grantRevoked(grantId) === false);
    }
    const get = jest.spyOn(first.redis, 'get');
    expect((await first.verifier.tokenStatus(userId, grantId)).revoked).toBe(false);
    expect(get).not.toHaveBeenCalled();
    await writer.set(CacheKeys.revokedGrant(namespace, grantId), '1', 'EX', 60);
    await writer.publish(CacheKeys.invalidations(namespace), CacheInvalidation.grant(grantId));
    for (const { verifier } of [first, second]) {
      await until(async () => (await verifier.tokenStatus(userId, grantId)).revoked, 1000);
    }
  });

  it('keeps no value whose read raced with an announcement', async () => {
    const { verifier } = await replica();
    const userId = newId();
    const ticket = verifier.cache.ticket();
    expect(ticket).not.toBeNull();
    await publishRecord(userId, 'k');
    // The announcement arrived after the ticket was taken: a value read before it is not kept.
    await until(() => verifier.cache.ticket() !== ticket);
    verifier.cache.keepRecord(ticket, userId, { found: false, user_id: userId });
    expect(verifier.cache.record(userId)).toBeUndefined();
  });

  it('bypasses and empties the cache while the subscription is down, and uses it again once resubscribed', async () => {
    const { verifier, redis } = await replica();
    const userId = newId();
    await publishRecord(userId, 'old-key');
    await warm(verifier, userId, 'old-key');

    // Dropped (on a cluster: one of its connections, to one primary), and the change lands
    // while nobody listens there: the announcement is lost.
    let killed = 0;
    for (const node of primariesOf(writer)) {
      const clients = (await node.call('CLIENT', 'LIST', 'TYPE', 'pubsub')) as string;
      const id = clients
        .split('\n')
        .find((line) => line.includes(` name=${namespace}:auth-invalidations `))
        ?.match(/^id=(\d+)/)?.[1];
      if (id === undefined) continue;
      await node.client('KILL', 'ID', id);
      killed += 1;
      break;
    }
    expect(killed).toBe(1);
    await until(() => !verifier.cache.isLive(), 1000);
    await publishRecord(userId, 'new-key');
    const get = jest.spyOn(redis, 'get');
    expect(await refused(verifier, userId, 'old-key')).toBe(true);
    expect(get).toHaveBeenCalled();

    // Reconnected and subscribed again: in use again, with nothing from before the loss.
    await until(() => verifier.cache.isLive(), 3000);
    expect(verifier.cache.record(userId)).toBeUndefined();
    await warm(verifier, userId, 'new-key');
    get.mockClear();
    await verifier.verifyApiKey(userId, 'new-key');
    expect(get).not.toHaveBeenCalled();
  });

  it('lapses to Redis reads when the subscriber stops answering PINGs (a silent partition)', async () => {
    const { verifier, redis } = await replica();
    const userId = newId();
    await publishRecord(userId, 'k');
    await warm(verifier, userId, 'k');
    const [subscriber] = verifier.cache.subscribers();
    jest.spyOn(subscriber!, 'ping').mockReturnValue(new Promise<'PONG'>(() => undefined));
    const lapsed = await until(() => !verifier.cache.isLive(), 1000);
    expect(lapsed).toBeLessThanOrEqual(config.CREDENTIAL_CACHE_MAX_LAG_MS + 50);
    const get = jest.spyOn(redis, 'get');
    await verifier.verifyApiKey(userId, 'k');
    expect(get).toHaveBeenCalledTimes(1);
  });

  it('with Redis down, asks the auth-server on every request and never uses the cache', async () => {
    // Nothing listens on port 1.
    const { verifier, registry } = await replica({ url: 'redis://127.0.0.1:1', live: false });
    const userId = newId();
    rpc.request.mockResolvedValue({
      found: true,
      user_id: userId,
      account_id: 'a',
      role: 'admin',
      api_key_hash: hashApiKey(config.API_KEY_PEPPER, 'k'),
      billing_status: 'active',
    });
    await verifier.verifyApiKey(userId, 'k');
    await verifier.verifyApiKey(userId, 'k');
    expect(rpc.request).toHaveBeenCalledTimes(2);
    expect(await lookups(registry, 'memory')).toBe(0);
    // The auth-server failing too is a 503, never a pass.
    rpc.request.mockRejectedValue(new ApiError(ErrorName.ServiceUnavailable, 'down'));
    await expect(verifier.verifyApiKey(userId, 'k')).rejects.toBeInstanceOf(ApiError);
    expect(verifier.cache.isLive()).toBe(false);
  });

  if (target.cluster) {
    it('on a cluster, subscribes on every primary and hears the announcements from each', async () => {
      const { verifier } = await replica();
      const primaries = primariesOf(writer).map((node) => node.options.port);
      expect(primaries).toHaveLength(3);
      expect(
        verifier.cache
          .subscribers()
          .map((s) => s.options.port)
          .sort(),
      ).toEqual([...primaries].sort());
      // An announcement from any primary's slot reaches it: one user per primary.
      const users: string[] = [];
      const owners = new Set<number>();
      while (owners.size < 3) {
        const userId = newId();
        const owner = (await target.redisCluster().primaryOf(CacheKeys.credentials(namespace, userId))).port;
        if (!owners.has(owner)) users.push(userId);
        owners.add(owner);
      }
      for (const userId of users) await publishRecord(userId, 'k1');
      for (const userId of users) await warm(verifier, userId, 'k1');
      for (const userId of users) await publishRecord(userId, 'k2');
      for (const userId of users) await until(() => refused(verifier, userId, 'k1'), 1000);
    });

    it('after the primary of a record is killed, errs for a short while, then answers right from the new primary', async () => {
      const { verifier } = await replica();
      const userId = newId();
      await publishRecord(userId, 'before');
      await warm(verifier, userId, 'before');
      const cluster = target.redisCluster();
      const { killed, promoted } = await cluster.killPrimaryOf(CacheKeys.credentials(namespace, userId));
      // The connection to the killed primary is gone: the cache was emptied (nothing kept from before).
      expect(verifier.cache.record(userId)).toBeUndefined();
      // The auth-server's side writes the change once Redis answers again (the writer recovers too).
      await until(
        async () =>
          publishRecord(userId, 'after').then(
            () => true,
            () => false,
          ),
        20_000,
      );
      await until(
        async () =>
          (await refused(verifier, userId, 'before')) &&
          (await verifier.verifyApiKey(userId, 'after').then(
            () => true,
            () => false,
          )),
        20_000,
      );
      // Back in memory, subscribed to the promoted primary and no longer to the killed one.
      await until(() => verifier.cache.isLive(), 10_000);
      const ports = verifier.cache.subscribers().map((s) => s.options.port);
      expect(ports).toContain(promoted.port);
      expect(ports).not.toContain(killed.port);
      await warm(verifier, userId, 'after');
      await cluster.restart(killed.port);
    }, 120_000);
  }
});
