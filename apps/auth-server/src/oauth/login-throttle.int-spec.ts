import { createLogger } from '@crm/observability';
import { createRedis, type RedisClient } from '@crm/service-kit';
import { redisTargets, uniqueNamespace } from '@crm/testing';
import { AuthServerConfig } from '../config/auth-server.config';
import { LoginThrottleService, THROTTLE_LIMITS, type ThrottleDecision } from './login-throttle.service';

describe.each(redisTargets())('login and client-secret throttle (real Redis, $name)', (target) => {
  let redis: RedisClient;
  let throttle: LoginThrottleService;

  beforeAll(async () => {
    await target.start();
    const config = Object.assign(new AuthServerConfig(), {
      CRM_NAMESPACE: uniqueNamespace('throttle'),
      REDIS_URL: target.url(),
      REDIS_CLUSTER: target.cluster,
    });
    redis = createRedis(config.REDIS_URL, createLogger('test', 'silent'), { cluster: target.cluster });
    throttle = new LoginThrottleService(redis, config, createLogger('test', 'silent'));
    // The client queues nothing while connecting, and the throttle lets attempts through when Redis cannot answer.
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
  }, 120_000);

  afterAll(async () => {
    redis?.disconnect();
    await target.stop();
  });

  const allowed = (decisions: ThrottleDecision[]) => decisions.filter((d) => d.allowed).length;
  const failFrom = async (email: string, source: string, times: number) => {
    for (let i = 0; i < times; i += 1) await throttle.attempt('login', email, source);
  };

  it('counts parallel guesses before checking: 30 at once against a limit of 10 let exactly 10 through', async () => {
    const decisions = await Promise.all(Array.from({ length: 30 }, () => throttle.attempt('login', 'racer@example.test', '203.0.113.1')));
    expect(allowed(decisions)).toBe(THROTTLE_LIMITS.pair);
    const refused = decisions.find((d) => !d.allowed) as Extract<ThrottleDecision, { allowed: false }>;
    expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(15 * 60);
  });

  it("a stranger's failures lock the email out only from the stranger's own address", async () => {
    await failFrom('victim@example.test', '198.51.100.66', 10);
    expect((await throttle.attempt('login', 'victim@example.test', '198.51.100.66')).allowed).toBe(false);
    expect((await throttle.attempt('login', 'victim@example.test', '203.0.113.20')).allowed).toBe(true);
  });

  it('a success forgives its own source and gives the attempt back', async () => {
    await failFrom('typo@example.test', '203.0.113.30', 9);
    const last = await throttle.attempt('login', 'typo@example.test', '203.0.113.30');
    expect(last.allowed).toBe(true);
    await throttle.succeeded(last.allowed ? last.ticket : null);
    const decisions = await Promise.all(Array.from({ length: 10 }, () => throttle.attempt('login', 'typo@example.test', '203.0.113.30')));
    expect(allowed(decisions)).toBe(10);
  });

  it('an attempt never checked (no hashing capacity) does not count', async () => {
    for (let i = 0; i < 20; i += 1) {
      const decision = await throttle.attempt('client', 'crm_busy', '203.0.113.40');
      expect(decision.allowed).toBe(true);
      await throttle.abandoned(decision.allowed ? decision.ticket : null);
    }
  });

  it('one address spraying many emails stops at the per-source limit', async () => {
    const decisions: ThrottleDecision[] = [];
    for (let i = 0; i < THROTTLE_LIMITS.source + 5; i += 1)
      decisions.push(await throttle.attempt('login', `spray${i}@example.test`, '198.51.100.77'));
    expect(allowed(decisions)).toBe(THROTTLE_LIMITS.source);
  });

  it('many addresses guessing one email hit the per-email ceiling, which spares a browser that signed in before', async () => {
    const email = 'target@example.test';
    const perSource = THROTTLE_LIMITS.pair;
    for (let s = 0; s < THROTTLE_LIMITS.subject / perSource; s += 1) await failFrom(email, `192.0.2.${s + 1}`, perSource);
    expect((await throttle.attempt('login', email, '192.0.2.200')).allowed).toBe(false);
    expect((await throttle.attempt('login', email, '192.0.2.201', { trustedDevice: true })).allowed).toBe(true);
    // A client id has no such ceiling: its secret cannot be guessed, and a stranger must not stop the app.
    for (let s = 0; s < THROTTLE_LIMITS.subject / perSource; s += 1)
      for (let i = 0; i < perSource; i += 1) await throttle.attempt('client', 'crm_app', `192.0.2.${s + 1}`);
    expect((await throttle.attempt('client', 'crm_app', '192.0.2.200')).allowed).toBe(true);
  });
});
