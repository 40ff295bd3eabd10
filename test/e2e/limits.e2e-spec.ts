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
    let answers: Array<Awaited<ReturnType<typeof get>>> = [];
    // With a ceiling of 1, a burst of parallel requests overlaps; try a few bursts to be sure.
    for (let burst = 0; burst < 5 && !answers.some((a) => a.status === 429); burst += 1) {
      answers = await Promise.all(Array.from({ length: 4 }, () => get('GET', `/users/${other.user.id}`)));
    }
    const refused = answers.find((a) => a.status === 429)!;
    expect(refused).toBeDefined();
    expect(refused.text).toBe('Too Many Requests');
    expect(refused.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(answers.some((a) => a.status === 200)).toBe(true);
  });

  it('counts requests per user per minute with X-RateLimit headers, then answers 403 Rate Limit Exceeded', async () => {
    const get = api(services, account);
    const first = await get('GET', `/users/${account.user.id}`);
    expect(first.status).toBe(200);
    expect(first.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
    const remaining = Number(first.headers.get('x-ratelimit-remaining'));
    expect(remaining).toBeLessThan(LIMIT);
    const reset = Number(first.headers.get('x-ratelimit-reset'));
    expect(reset).toBeGreaterThan(Date.now() / 1000 - 1);
    expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 61);

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
