import { ApiError, ErrorName, type WriteIdempotency } from '@crm/contracts';
import { createLogger } from '@crm/observability';
import { createRedis, type RedisClient } from '@crm/service-kit';
import { resolveTestInfra, uniqueNamespace } from '@crm/testing';
import { GatewayConfig } from '../config/gateway.config';
import { IdempotencyStore, requestFingerprint, scopedIdempotencyKey } from './idempotency';

const logger = createLogger('idempotency-test', 'silent');
const config = () => Object.assign(new GatewayConfig(), { CRM_NAMESPACE: uniqueNamespace('idem'), RPC_TIMEOUT_MS: 2000 });
const fp = (body: unknown) => requestFingerprint('createContact', {}, {}, body);
const unavailable = () => new ApiError(ErrorName.ServiceUnavailable, 'The service did not answer in time; retry shortly');

/**
 * The gateway's Redis record as crm-core's fast path (decisions.md "Idempotency recorded with the
 * write"): the scoped key goes to crm-core, a request without an answer leaves the decision to
 * crm-core, a pending record of a crm-core route expires with the RPC deadline, and without Redis
 * crm-core's record alone is used; other services' routes keep the Redis record as the authority.
 */
describe('IdempotencyStore with crm-core recording keys (real Redis)', () => {
  let redis: RedisClient;
  let deadRedis: RedisClient;

  beforeAll(async () => {
    redis = createRedis(resolveTestInfra().redisUrl, logger);
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    deadRedis = createRedis('redis://127.0.0.1:1', logger);
  });

  afterAll(() => {
    redis.disconnect();
    deadRedis.disconnect();
  });

  it('hands execute the scoped key and the fingerprint, and passes a replay of crm-core through', async () => {
    const store = new IdempotencyStore(redis, config());
    const seen: WriteIdempotency[] = [];
    const outcome = await store.run(
      'user:api_key:',
      'k1',
      fp({ a: 1 }),
      async (forward) => (seen.push(forward), { status: 201, body: { data: 1 }, replayed: true }),
      { recordedByService: true },
    );
    expect(seen).toEqual([{ key: scopedIdempotencyKey('user:api_key:', 'k1'), fingerprint: fp({ a: 1 }) }]);
    expect(seen[0].key).toMatch(/^[\w-]{43}$/);
    expect(outcome).toEqual({ status: 201, body: { data: 1 }, replayed: true });
  });

  it('after a request without an answer, the repeat goes to crm-core again with the same key (crm-core decides)', async () => {
    const store = new IdempotencyStore(redis, config());
    const forwards: string[] = [];
    await expect(
      store.run('u', 'k2', fp({}), async (f) => (forwards.push(f.key), Promise.reject(unavailable())), { recordedByService: true }),
    ).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    const repeat = await store.run('u', 'k2', fp({}), async (f) => (forwards.push(f.key), { status: 201, body: 'first', replayed: true }), {
      recordedByService: true,
    });
    expect(forwards).toEqual([scopedIdempotencyKey('u', 'k2'), scopedIdempotencyKey('u', 'k2')]);
    expect(repeat.replayed).toBe(true);
    // Then the fast path: stored, no call.
    const third = await store.run('u', 'k2', fp({}), async () => Promise.reject(new Error('not called')), { recordedByService: true });
    expect(third).toEqual({ status: 201, body: 'first', replayed: true });
  });

  it("a crm-core route's pending record lives the RPC deadline and a margin; another service's a minute; a done one a day", async () => {
    const cfg = config();
    const store = new IdempotencyStore(redis, cfg);
    const key = (k: string) => `${cfg.CRM_NAMESPACE}:gw:idem:${scopedIdempotencyKey('u', k)}`;
    let ttl = 0;
    await store.run(
      'u',
      'k3',
      fp({}),
      async () => {
        ttl = await redis.pttl(key('k3'));
        return { status: 201, body: 1 };
      },
      { recordedByService: true },
    );
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(cfg.RPC_TIMEOUT_MS + 3000);
    expect(await redis.pttl(key('k3'))).toBeGreaterThan(23 * 3600 * 1000);
    await store.run('u', 'k4', fp({}), async () => {
      ttl = await redis.pttl(key('k4'));
      return { status: 201, body: 1 };
    });
    expect(ttl).toBeGreaterThan(cfg.RPC_TIMEOUT_MS + 3000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('without Redis: a crm-core route runs (crm-core keeps the write single); another service is refused with 503', async () => {
    const store = new IdempotencyStore(deadRedis, config());
    const forwarded: string[] = [];
    const outcome = await store.run('u', 'k5', fp({}), async (f) => (forwarded.push(f.key), { status: 201, body: 'ok' }), {
      recordedByService: true,
    });
    expect(outcome).toEqual({ status: 201, body: 'ok', replayed: false });
    expect(forwarded).toEqual([scopedIdempotencyKey('u', 'k5')]);
    let ran = false;
    await expect(store.run('u', 'k6', fp({}), async () => ((ran = true), { status: 201, body: 'ok' }))).rejects.toMatchObject({
      errorName: ErrorName.ServiceUnavailable,
    });
    expect(ran).toBe(false);
  });
});
