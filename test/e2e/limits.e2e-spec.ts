import { api } from '@crm/testing';
import { setupE2e } from './setup';

/** Per-user rate and concurrency limits through the gateway (decisions.md "Envelopes ..."). */
describe('rate limits (e2e)', () => {
  const LIMIT = 25;
  const {
    services,
    admin: account,
    stranger: other,
  } = setupE2e({
    services: { crmCoreReplicas: 1, env: { RATE_LIMIT_PER_MINUTE: String(LIMIT), RATE_LIMIT_CONCURRENT: '1' } },
    stranger: true,
  });

  it('answers 429 Too Many Requests (plain text, Retry-After) past the concurrent ceiling', async () => {
    const get = api(services, other);
    // Credentials cached first, so only the limits stand between a request and crm-core.
    expect((await get('GET', `/users/${other.user.id}`)).status).toBe(200);
    const crmCores = services.processes.filter((p) => p.app === 'crm-core');
    // crm-core paused: a request the limits let through stays in flight until it resumes.
    for (const p of crmCores) process.kill(p.pid, 'SIGSTOP');
    let answers: Array<Awaited<ReturnType<typeof get>>>;
    try {
      // Two at once with a ceiling of 1: one waits for crm-core, the other is refused at once.
      const requests = [get('GET', `/users/${other.user.id}`), get('GET', `/users/${other.user.id}`)];
      const refused = await Promise.race(requests);
      expect(refused.status).toBe(429);
      expect(refused.text).toBe('Too Many Requests');
      expect(refused.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(refused.headers.get('retry-after')).toBe('1');
      for (const p of crmCores) process.kill(p.pid, 'SIGCONT');
      answers = await Promise.all(requests);
    } finally {
      for (const p of crmCores) process.kill(p.pid, 'SIGCONT');
    }
    expect(answers.map((a) => a.status).sort()).toEqual([200, 429]);
  });

  it('counts requests per user per minute with X-RateLimit headers, then answers 403 Rate Limit Exceeded', async () => {
    const get = api(services, account);
    const before = Date.now();
    const first = await get('GET', `/users/${account.user.id}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    expect(remaining).toBeLessThan(LIMIT);
    // The end of the minute the request fell in: after it was sent, at most a minute after the answer.
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(before / 1000);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 60);

    let last = first;
    for (let i = 0; i < LIMIT + 1 && last.status === 200; i += 1) last = await get('GET', `/users/${account.user.id}`);
    // The window may have turned over during the loop; then the limit is reached in the next one.
    for (let i = 0; i < LIMIT + 1 && last.status === 200; i += 1) last = await get('GET', `/users/${account.user.id}`);
    expect(last.status).toBe(403);
    expect(last.text).toBe('Rate Limit Exceeded');
    expect(last.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(last.headers.get('x-ratelimit-remaining')).toBe('0');

    // Errors before authentication are not rate limited, and other users keep their own budget.
    expect((await api(services)('GET', `/users/${account.user.id}`)).status).toBe(401);
    const otherUser = await api(services, other)('GET', `/users/${other.user.id}`);
    expect(otherUser.status).toBe(200);
  });
});
