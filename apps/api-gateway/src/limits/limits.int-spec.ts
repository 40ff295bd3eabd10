import { ErrorName } from '@crm/contracts';
import { createLogger, createMetricsRegistry } from '@crm/observability';
import { createRedis, type RedisClient } from '@crm/service-kit';
import { redisTargets, uniqueNamespace } from '@crm/testing';
import type { Registry } from 'prom-client';
import { GatewayConfig } from '../config/gateway.config';
import { IDEMPOTENCY_MAX_STORED_BYTES, IdempotencyStore, requestFingerprint } from './idempotency';
import { RateLimiter, type RateVerdict } from './rate-limiter';

const logger = createLogger('limits-test', 'silent');
const config = (overrides: Partial<GatewayConfig> = {}) =>
  Object.assign(new GatewayConfig(), {
    CRM_NAMESPACE: uniqueNamespace('lim'),
    RATE_LIMIT_PER_MINUTE: 5,
    RATE_LIMIT_CONCURRENT: 2,
    ...overrides,
  });
/**
 * The limiter counts per clock minute: a test whose counts must share one minute starts at least
 * 5 s before the next one (waiting for it if need be), so a turn of the minute cannot split them.
 */
async function withinOneMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await new Promise((resolve) => setTimeout(resolve, left + 10));
}
const counter = async (registry: Registry, result: string) =>
  (await registry.getSingleMetric('gateway_rate_limit_decisions_total')!.get()).values.find((v) => v.labels.result === result)?.value ?? 0;

describe.each(redisTargets())('per-user limits and idempotency keys (real Redis, $name)', (target) => {
  let redis: RedisClient;
  let deadRedis: RedisClient;

  beforeAll(async () => {
    await target.start();
    redis = createRedis(target.url(), logger, { cluster: target.cluster });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    // Nothing listens on port 1: every command fails at once.
    deadRedis = createRedis('redis://127.0.0.1:1', logger);
  }, 120_000);

  afterAll(async () => {
    redis.disconnect();
    deadRedis.disconnect();
    await target.stop();
  });

  describe('RateLimiter', () => {
    it('refuses the request past the per-minute limit with 403 headers, per user', async () => {
      const limiter = new RateLimiter(redis, config(), logger, createMetricsRegistry('t'));
      const seen: RateVerdict[] = [];
      await withinOneMinute();
      for (let i = 0; i < 6; i += 1) {
        const verdict = await limiter.acquire('user-a');
        if (verdict.kind === 'allowed') verdict.release();
        seen.push(verdict);
      }
      expect(seen.slice(0, 5).map((v) => v.kind)).toEqual(['allowed', 'allowed', 'allowed', 'allowed', 'allowed']);
      expect(seen.map((v) => v.headers['X-RateLimit-Remaining'])).toEqual(['4', '3', '2', '1', '0', '0']);
      expect(seen[5].kind).toBe('rate_limited');
      expect(seen[5].headers['X-RateLimit-Limit']).toBe('5');
      const reset = Number(seen[5].headers['X-RateLimit-Reset']);
      expect(reset).toBeGreaterThan(Date.now() / 1000);
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);
      expect((await limiter.acquire('user-b')).kind).toBe('allowed');
    });

    it('refuses more concurrent requests than the ceiling with 429, without using up the rate', async () => {
      const registry = createMetricsRegistry('t');
      const limiter = new RateLimiter(redis, config({ RATE_LIMIT_PER_MINUTE: 100 }), logger, registry);
      await withinOneMinute();
      const first = await limiter.acquire('u');
      const second = await limiter.acquire('u');
      const third = await limiter.acquire('u');
      expect([first.kind, second.kind, third.kind]).toEqual(['allowed', 'allowed', 'too_many_concurrent']);
      expect(third.headers['Retry-After']).toBe('1');
      expect(third.headers['X-RateLimit-Remaining']).toBe('98');
      // The release goes out on the same Redis connection before the next request's command.
      if (first.kind === 'allowed') first.release();
      const fourth = await limiter.acquire('u');
      expect(fourth.kind).toBe('allowed');
      expect(await counter(registry, 'too_many_concurrent')).toBe(1);
    });

    if (target.cluster) {
      it("keeps a user's counter and leases in one slot (the script would fail with CROSSSLOT), one slot per user", async () => {
        const limiter = new RateLimiter(
          redis,
          config({ RATE_LIMIT_PER_MINUTE: 3, RATE_LIMIT_CONCURRENT: 5 }),
          logger,
          createMetricsRegistry('t'),
        );
        const ns = (limiter as unknown as { config: GatewayConfig }).config.CRM_NAMESPACE;
        await withinOneMinute();
        const verdicts = [await limiter.acquire('u-slot'), await limiter.acquire('u-slot'), await limiter.acquire('u-slot')];
        expect(verdicts.map((v) => v.kind)).toEqual(['allowed', 'allowed', 'allowed']);
        expect(verdicts.map((v) => v.headers['X-RateLimit-Remaining'])).toEqual(['2', '1', '0']);
        const window = Math.floor(Date.now() / 60_000);
        const slots = await Promise.all(
          [`${ns}:gw:rate:{u-slot}:${window}`, `${ns}:gw:inflight:{u-slot}`].map(async (key) =>
            Number(await redis.cluster('KEYSLOT', key)),
          ),
        );
        expect(slots[0]).toBe(slots[1]);
        expect(await redis.zcard(`${ns}:gw:inflight:{u-slot}`)).toBe(3);
      });

      it('fails open while the primary of a user is killed, then counts again on the promoted replica', async () => {
        const registry = createMetricsRegistry('t');
        const limiter = new RateLimiter(redis, config({ RATE_LIMIT_PER_MINUTE: 100, RATE_LIMIT_CONCURRENT: 100 }), logger, registry);
        const ns = (limiter as unknown as { config: GatewayConfig }).config.CRM_NAMESPACE;
        expect((await limiter.acquire('u-failover')).headers['X-RateLimit-Limit']).toBe('100');
        const cluster = target.redisCluster();
        const { killed } = await cluster.killPrimaryOf(`${ns}:gw:inflight:{u-failover}`);
        // Requests keep passing while the slot has no primary the client knows (fail open, counted),
        // then the limiter counts again: the headers come back.
        const deadline = Date.now() + 30_000;
        let verdict = await limiter.acquire('u-failover');
        while (verdict.headers['X-RateLimit-Limit'] === undefined && Date.now() < deadline) {
          expect(verdict.kind).toBe('allowed');
          await new Promise((resolve) => setTimeout(resolve, 100));
          verdict = await limiter.acquire('u-failover');
        }
        expect(verdict.kind).toBe('allowed');
        expect(verdict.headers['X-RateLimit-Limit']).toBe('100');
        await withinOneMinute();
        const [first, second] = [await limiter.acquire('u-failover'), await limiter.acquire('u-failover')];
        expect(Number(second.headers['X-RateLimit-Remaining'])).toBe(Number(first.headers['X-RateLimit-Remaining']) - 1);
        await cluster.restart(killed.port);
      }, 120_000);
    }

    if (target.cluster) {
      it("takes back the leases released while a user's primary was failing over", async () => {
        const limiter = new RateLimiter(
          redis,
          config({ RATE_LIMIT_PER_MINUTE: 1000, RATE_LIMIT_CONCURRENT: 2 }),
          logger,
          createMetricsRegistry('t'),
        );
        const ns = (limiter as unknown as { config: GatewayConfig }).config.CRM_NAMESPACE;
        await withinOneMinute();
        const held = [await limiter.acquire('u-leases'), await limiter.acquire('u-leases')];
        expect(held.map((v) => v.kind)).toEqual(['allowed', 'allowed']);
        const cluster = target.redisCluster();
        // The leases reach the replica (asynchronous replication) before its primary dies.
        await new Promise((resolve) => setTimeout(resolve, 500));
        const killing = cluster.killPrimaryOf(`${ns}:gw:inflight:{u-leases}`);
        // Released while the slot has no primary the client reaches: Redis does not take the removals.
        await new Promise((resolve) => setTimeout(resolve, 200));
        for (const verdict of held) if (verdict.kind === 'allowed') verdict.release();
        const { killed } = await killing;
        // Once the promoted replica answers, both leases are gone: the user has its whole ceiling back
        // (without the retries they would hold it for two minutes).
        const deadline = Date.now() + 30_000;
        let verdicts: RateVerdict[] = [];
        for (;;) {
          verdicts = [await limiter.acquire('u-leases'), await limiter.acquire('u-leases')];
          for (const verdict of verdicts) if (verdict.kind === 'allowed') verdict.release();
          const counted = verdicts.every((v) => v.headers['X-RateLimit-Limit'] !== undefined);
          if ((counted && verdicts.every((v) => v.kind === 'allowed')) || Date.now() > deadline) break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        expect(verdicts.map((v) => [v.kind, v.headers['X-RateLimit-Limit']])).toEqual([
          ['allowed', '1000'],
          ['allowed', '1000'],
        ]);
        await cluster.restart(killed.port);
      }, 120_000);
    }

    it('fails open when Redis cannot answer, and counts it', async () => {
      const registry = createMetricsRegistry('t');
      const limiter = new RateLimiter(deadRedis, config(), logger, registry);
      const verdict = await limiter.acquire('u');
      expect(verdict.kind).toBe('allowed');
      expect(verdict.headers).toEqual({});
      expect(await counter(registry, 'fail_open')).toBe(1);
    });
  });

  describe('IdempotencyStore', () => {
    const fp = (body: unknown) => requestFingerprint('createThing', {}, {}, body);

    it('runs two identical concurrent requests once; both get the first response', async () => {
      const store = new IdempotencyStore(redis, config());
      let runs = 0;
      const execute = async () => {
        runs += 1;
        await new Promise((r) => setTimeout(r, 200));
        return { status: 201, body: { data: { id: runs } } };
      };
      const [a, b] = await Promise.all([store.run('u', 'key-1', fp({ x: 1 }), execute), store.run('u', 'key-1', fp({ x: 1 }), execute)]);
      expect(runs).toBe(1);
      expect(a.body).toEqual({ data: { id: 1 } });
      expect(b.body).toEqual(a.body);
      expect([a.replayed, b.replayed].sort()).toEqual([false, true]);
      const later = await store.run('u', 'key-1', fp({ x: 1 }), execute);
      expect(later).toEqual({ status: 201, body: { data: { id: 1 } }, replayed: true });
      expect(runs).toBe(1);
    });

    it('answers 409 for the same key with another request, and keys are per user', async () => {
      const store = new IdempotencyStore(redis, config());
      await store.run('u', 'k', fp({ x: 1 }), async () => ({ status: 201, body: 1 }));
      await expect(store.run('u', 'k', fp({ x: 2 }), async () => ({ status: 201, body: 2 }))).rejects.toMatchObject({
        errorName: ErrorName.Conflict,
      });
      expect(await store.run('other-user', 'k', fp({ x: 2 }), async () => ({ status: 201, body: 2 }))).toMatchObject({
        body: 2,
        replayed: false,
      });
    });

    it('key order in the body does not change the fingerprint; a value does', () => {
      expect(fp({ a: 1, b: { c: 2, d: 3 } })).toBe(fp({ b: { d: 3, c: 2 }, a: 1 }));
      expect(fp({ a: 1 })).not.toBe(fp({ a: 2 }));
    });

    it('keeps no answer over IDEMPOTENCY_MAX_STORED_BYTES: its repeat runs nothing and is 409, naming why', async () => {
      const store = new IdempotencyStore(redis, config());
      let runs = 0;
      const large = { data: { text: 'é'.repeat(IDEMPOTENCY_MAX_STORED_BYTES / 2) } };
      const first = await store.run('u', 'large', fp({}), async () => ((runs += 1), { status: 200, body: large }));
      expect(first).toEqual({ status: 200, body: large, replayed: false });
      await expect(store.run('u', 'large', fp({}), async () => ((runs += 1), { status: 200, body: large }))).rejects.toMatchObject({
        errorName: ErrorName.Conflict,
        message: expect.stringContaining('too large to keep'),
      });
      expect(runs).toBe(1);
      // Just under the bound it is kept and replayed.
      const kept = { data: { text: 'x'.repeat(IDEMPOTENCY_MAX_STORED_BYTES - 200) } };
      await store.run('u', 'kept', fp({}), async () => ({ status: 200, body: kept }));
      expect(await store.run('u', 'kept', fp({}), async () => ({ status: 200, body: 'again' }))).toEqual({
        status: 200,
        body: kept,
        replayed: true,
      });
    });

    it('lets a retry run again after the first attempt failed', async () => {
      const store = new IdempotencyStore(redis, config());
      await expect(store.run('u', 'k2', fp({}), async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
      expect(await store.run('u', 'k2', fp({}), async () => ({ status: 201, body: 'second' }))).toEqual({
        status: 201,
        body: 'second',
        replayed: false,
      });
    });

    it('refuses malformed keys with 400 naming the header, and fails closed (503) without Redis', async () => {
      const store = new IdempotencyStore(redis, config());
      await expect(store.run('u', 'x'.repeat(256), fp({}), async () => ({ status: 201, body: 1 }))).rejects.toMatchObject({
        errorName: ErrorName.InvalidRequestData,
        errors: { 'Idempotency-Key': expect.any(String) },
      });
      await expect(store.run('u', 'has space', fp({}), async () => ({ status: 201, body: 1 }))).rejects.toMatchObject({
        errorName: ErrorName.InvalidRequestData,
      });
      let ran = false;
      await expect(
        new IdempotencyStore(deadRedis, config()).run('u', 'k', fp({}), async () => ((ran = true), { status: 201, body: 1 })),
      ).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
      expect(ran).toBe(false);
    });
  });
});
