import { newId } from '@crm/common';
import { CacheKeys } from '@crm/contracts';
import { createLogger } from '@crm/observability';
import { createRedis, type RedisClient } from '@crm/service-kit';
import { redisTargets, uniqueNamespace } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { AuthServerConfig } from '../config/auth-server.config';
import { BrowserOrigins } from './browser-origins';
import type { OAuthClientsRepository } from './oauth-clients.repository';
import { createOidcAdapter } from './oidc.adapter';

const logger = createLogger('oauth-redis-test', 'silent');

/**
 * The OAuth pieces' Redis keys on one server and on a Redis Cluster: the oidc-provider adapter's
 * short-lived artifacts (a record, its `:consumed` mark, its grant's set, its uid) and the browser
 * origins. Each key group lies in several slots on a cluster, where one MULTI, MGET or DEL across
 * them would fail with CROSSSLOT.
 */
describe.each(redisTargets())('OAuth keys in Redis ($name)', (target) => {
  const namespace = uniqueNamespace('oauthredis');
  let redis: RedisClient;
  const invalidGrant = (description: string) => Object.assign(new Error(description), { name: 'InvalidGrant' });
  const Adapter = () =>
    createOidcAdapter({
      // Only the durable models (Grant, RefreshToken) and clients use PostgreSQL: none here.
      dataSource: undefined as unknown as DataSource,
      redis,
      namespace,
      clients: undefined as unknown as OAuthClientsRepository,
      invalidGrant,
    });

  beforeAll(async () => {
    await target.start();
    redis = createRedis(target.url(), logger, { cluster: target.cluster });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  }, 120_000);

  afterAll(async () => {
    redis?.disconnect();
    await target.stop();
  });

  it('stores, finds, consumes once and destroys a code, and finds a session by its uid', async () => {
    const OidcAdapter = Adapter();
    const codes = new OidcAdapter('AuthorizationCode');
    const id = newId();
    const grantId = newId();
    await codes.upsert(id, { grantId, accountId: 'u1', scope: 'crm' }, 60);
    expect(await codes.find(id)).toEqual({ grantId, accountId: 'u1', scope: 'crm' });
    await codes.consume(id);
    expect((await codes.find(id))?.consumed).toEqual(expect.any(Number));
    // A second use at once is refused.
    await expect(codes.consume(id)).rejects.toMatchObject({ name: 'InvalidGrant' });
    await codes.destroy(id);
    expect(await codes.find(id)).toBeUndefined();
    expect(await redis.exists(`${namespace}:oidc:AuthorizationCode:${id}:consumed`)).toBe(0);

    const sessions = new OidcAdapter('Session');
    const sessionId = newId();
    const uid = newId();
    await sessions.upsert(sessionId, { uid, accountId: 'u1' }, 60);
    expect(await sessions.findByUid(uid)).toEqual({ uid, accountId: 'u1' });
  });

  it('revoking a grant removes every artifact of it and their marks, whatever slots they are in', async () => {
    const OidcAdapter = Adapter();
    const grantId = newId();
    const codes = new OidcAdapter('AuthorizationCode');
    const sessions = new OidcAdapter('Session');
    const ids = Array.from({ length: 8 }, () => newId());
    for (const id of ids) await codes.upsert(id, { grantId }, 60);
    await sessions.upsert('s-' + ids[0], { grantId, uid: newId() }, 60);
    await codes.consume(ids[0]!);
    await codes.consume(ids[1]!);
    if (target.cluster) {
      const slots = new Set(
        await Promise.all(ids.map(async (id) => Number(await redis.cluster('KEYSLOT', `${namespace}:oidc:AuthorizationCode:${id}`)))),
      );
      expect(slots.size).toBeGreaterThan(1);
    }
    // Another grant's code is left alone.
    const other = newId();
    await codes.upsert(other, { grantId: newId() }, 60);

    await codes.revokeByGrantId(grantId);
    for (const id of ids) expect(await codes.find(id)).toBeUndefined();
    expect(await sessions.find('s-' + ids[0])).toBeUndefined();
    expect(await redis.exists(`${namespace}:oidc:AuthorizationCode:${ids[0]}:consumed`)).toBe(0);
    expect(await redis.exists(`${namespace}:oidc:grant:${grantId}`)).toBe(0);
    expect(await codes.find(other)).toEqual({ grantId: expect.any(String) });
  });

  it('publishes the browser origins of public clients at start and on registration', async () => {
    const config = Object.assign(new AuthServerConfig(), { CRM_NAMESPACE: namespace });
    const clients = { publicRedirectUris: async () => ['https://app.example.test/cb', 'https://spa.example.test/x'] };
    const origins = new BrowserOrigins(clients as unknown as OAuthClientsRepository, redis, config, logger);
    await redis.sadd(CacheKeys.browserOrigins(namespace), 'https://stale.example.test');
    await origins.onApplicationBootstrap();
    expect((await redis.smembers(CacheKeys.browserOrigins(namespace))).sort()).toEqual([
      'https://app.example.test',
      'https://spa.example.test',
    ]);
    await origins.add(['https://new.example.test/cb']);
    expect(await redis.sismember(CacheKeys.browserOrigins(namespace), 'https://new.example.test')).toBe(1);
  });
});
