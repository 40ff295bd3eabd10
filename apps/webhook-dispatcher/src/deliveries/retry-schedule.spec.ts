import { decideAttempt, MAX_TRIES, parseRetryAfter, retryDelayMs } from './retry-schedule';

describe('retry schedule', () => {
  const noJitter = () => 0;

  it('waits about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then gives up', () => {
    const delays = Array.from({ length: MAX_TRIES }, (_, i) => retryDelayMs(i + 1, 1, noJitter));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, null]);
    expect(MAX_TRIES).toBe(8);
  });

  it('adds at most 10% jitter and scales for tests', () => {
    expect(retryDelayMs(1, 1, () => 0.999)).toBeLessThanOrEqual(5_500);
    expect(retryDelayMs(2, 0.001, noJitter)).toBe(300);
  });

  it('decides: 2xx delivered, 410 disables, others retry until the last try', () => {
    expect(decideAttempt({ responseCode: 204 }, 1)).toEqual({ status: 'delivered', delayMs: null, disableWebhook: false });
    expect(decideAttempt({ responseCode: 410 }, 1)).toEqual({ status: 'failed', delayMs: null, disableWebhook: true });
    expect(decideAttempt({ responseCode: 500 }, 1, 1, noJitter)).toEqual({ status: 'pending', delayMs: 5_000, disableWebhook: false });
    expect(decideAttempt({ responseCode: null }, 2, 1, noJitter)).toMatchObject({ status: 'pending', delayMs: 300_000 });
    expect(decideAttempt({ responseCode: 302 }, 3, 1, noJitter)).toMatchObject({ status: 'pending', delayMs: 1_800_000 });
    expect(decideAttempt({ responseCode: 500 }, MAX_TRIES)).toEqual({ status: 'failed', delayMs: null, disableWebhook: false });
  });

  it('honours Retry-After on 429 and 503 only', () => {
    expect(decideAttempt({ responseCode: 429, retryAfterMs: 120_000 }, 1)).toMatchObject({ status: 'pending', delayMs: 120_000 });
    expect(decideAttempt({ responseCode: 503, retryAfterMs: 0 }, 2)).toMatchObject({ status: 'pending', delayMs: 1_000 });
    expect(decideAttempt({ responseCode: 500, retryAfterMs: 120_000 }, 1, 1, noJitter)).toMatchObject({ delayMs: 5_000 });
    expect(decideAttempt({ responseCode: 429, retryAfterMs: 60_000 }, MAX_TRIES)).toMatchObject({ status: 'failed' });
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('999999999', now)).toBe(24 * 3600 * 1000);
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });
});
