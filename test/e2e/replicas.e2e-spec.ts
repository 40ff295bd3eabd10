import { createHash, randomBytes } from 'node:crypto';
import { api, createUser, type ApiResponse, type CreatedAccount } from '@crm/testing';
import { registerPublicClient, TEST_REDIRECT_URI } from './oauth-helpers';
import { setupE2e, type Json } from './setup';

/**
 * The promises that span replicas, with two gateways and two auth-servers (one issuer, one
 * database and Redis): the per-user rate and concurrency limits are one budget whichever gateway
 * a request reaches, an Idempotency-Key replays on the other gateway, a rotated API key is refused
 * at once on the other gateway, and the sign-in throttle counts the attempts of both auth-servers.
 * Each test uses a user of its own, so each has a fresh budget.
 */
describe('promises across replicas (e2e, two gateways, two auth-servers)', () => {
  const RATE_LIMIT = 12;
  const CONCURRENT = 2;
  const password = 'correct horse battery staple';
  const { services, admin } = setupE2e({
    services: {
      gatewayReplicas: 2,
      authServerReplicas: 2,
      env: { RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT), RATE_LIMIT_CONCURRENT: String(CONCURRENT) },
    },
    admin: { password },
  });

  /** `who`'s client on gateway `n` (0 or 1). */
  const on = (n: number, who: CreatedAccount) => api({ gatewayUrl: services.gatewayUrls[n] }, who);
  const getSelf = (n: number, who: CreatedAccount) => on(n, who)<Json>('GET', `/users/${who.user.id}`);

  it('runs two of each', () => {
    expect(services.gatewayUrls).toHaveLength(2);
    expect(services.authUrls).toHaveLength(2);
    expect(new Set(services.gatewayUrls).size).toBe(2);
  });

  it('counts a user’s requests per minute once across both gateways: alternating requests share one budget', async () => {
    const user = await createUser(services, admin);
    const answers: Array<{ gateway: number; res: ApiResponse<Json> }> = [];
    for (let i = 0; i < 2 * (RATE_LIMIT + 1) && answers.at(-1)?.res.status !== 403; i += 1)
      answers.push({ gateway: i % 2, res: await getSelf(i % 2, user) });

    // Every answer states the count of its minute (X-RateLimit-Reset names the minute's end), so
    // the check holds when the minute turns over during the loop: the n-th request of a minute,
    // whichever gateway took it, has RATE_LIMIT - n left, and the (RATE_LIMIT + 1)-th is refused.
    const seen = new Map<string, number>();
    for (const { gateway, res } of answers) {
      const minute = res.headers.get('x-ratelimit-reset')!;
      const n = (seen.get(minute) ?? 0) + 1;
      seen.set(minute, n);
      expect({ gateway, n, status: res.status, limit: res.headers.get('x-ratelimit-limit') }).toEqual({
        gateway,
        n,
        status: n > RATE_LIMIT ? 403 : 200,
        limit: String(RATE_LIMIT),
      });
      expect({ gateway, n, remaining: res.headers.get('x-ratelimit-remaining') }).toEqual({
        gateway,
        n,
        remaining: String(Math.max(0, RATE_LIMIT - n)),
      });
    }
    const refused = answers.at(-1)!.res;
    expect(refused.status).toBe(403);
    expect(refused.text).toBe('Rate Limit Exceeded');
    // Either gateway alone saw about half the requests: far below its limit.
    const refusedMinute = refused.headers.get('x-ratelimit-reset');
    const ofThatMinute = answers.filter((a) => a.res.headers.get('x-ratelimit-reset') === refusedMinute);
    expect(ofThatMinute.filter((a) => a.gateway === 0).length).toBeLessThanOrEqual(RATE_LIMIT / 2 + 1);
    expect(ofThatMinute.filter((a) => a.gateway === 1).length).toBeLessThanOrEqual(RATE_LIMIT / 2 + 1);
  });

  it('holds a user to one concurrency limit across both gateways: past it, either one answers 429', async () => {
    const user = await createUser(services, admin);
    // Credentials cached on both gateways first, so only the limits stand between a request and crm-core.
    for (const n of [0, 1]) expect((await getSelf(n, user)).status).toBe(200);
    const crmCores = services.processes.filter((p) => p.app === 'crm-core');
    // crm-core paused: every request the limits let through stays in flight until it resumes.
    for (const p of crmCores) process.kill(p.pid, 'SIGSTOP');
    let answers: Array<ApiResponse<Json>>;
    try {
      // CONCURRENT + 1 requests at once, spread over both gateways so that neither alone gets more than CONCURRENT.
      const requests = Array.from({ length: CONCURRENT + 1 }, (_, i) => getSelf(i % 2, user));
      // With one shared limit one of them is refused at once; with a limit per gateway all would wait for crm-core.
      const first = await Promise.race(requests);
      expect(first.status).toBe(429);
      expect(first.text).toBe('Too Many Requests');
      expect(first.headers.get('retry-after')).toBe('1');
      for (const p of crmCores) process.kill(p.pid, 'SIGCONT');
      answers = await Promise.all(requests);
    } finally {
      for (const p of crmCores) process.kill(p.pid, 'SIGCONT');
    }
    expect(answers.map((a) => a.status).sort()).toEqual([...Array<number>(CONCURRENT).fill(200), 429]);
    // The leases end with the requests: both gateways take the user again.
    for (const n of [0, 1]) expect((await getSelf(n, user)).status).toBe(200);
  });

  it('replays an Idempotency-Key on the other gateway, and refuses it there for another request', async () => {
    const user = await createUser(services, admin);
    const key = `replica-${randomBytes(6).toString('hex')}`;
    const lastName = `Idem ${key}`;
    const first = await on(0, user)<Json>('POST', '/contacts', { last_name: lastName }, { 'idempotency-key': key });
    expect(first.status).toBe(201);
    expect(first.headers.get('idempotent-replayed')).toBeNull();

    const replay = await on(1, user)<Json>('POST', '/contacts', { last_name: lastName }, { 'idempotency-key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    const other = await on(1, user)<Json>('POST', '/contacts', { last_name: `${lastName} 2` }, { 'idempotency-key': key });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ status: 409, error_name: 'conflict' });

    const found = await on(0, user)<Json>('GET', `/contacts?search=${encodeURIComponent(key)}`);
    expect(found.status).toBe(200);
    expect(found.body.data.contacts.map((c: Json) => c.contact.id)).toEqual([first.body.data.contact.id]);
  });

  it('refuses a rotated API key at once on the other gateway, which takes the new key', async () => {
    const user = await createUser(services, admin);
    // The old key is known to (and cached by) both gateways.
    for (const n of [0, 1]) expect((await getSelf(n, user)).status).toBe(200);
    const rotated = await on(0, user)<Json>('POST', '/change_auth_key');
    expect(rotated.status).toBe(201);
    const newKey: string = rotated.body.data.auth_key;
    expect(newKey).not.toBe(user.user.api_key);

    for (const n of [1, 0]) {
      const old = await getSelf(n, user);
      expect({ gateway: n, status: old.status, error_name: old.body.error_name }).toEqual({
        gateway: n,
        status: 401,
        error_name: 'invalid_auth_token',
      });
      const renewed = await getSelf(n, { ...user, user: { ...user.user, api_key: newKey } });
      expect({ gateway: n, status: renewed.status }).toEqual({ gateway: n, status: 200 });
    }
  });

  describe('sign-in throttle', () => {
    let clientId: string;

    beforeAll(async () => {
      clientId = await registerPublicClient(services, 'crm');
    });

    /** A fresh sign-in page on auth-server `n`: its interaction uid, CSRF token and cookies. */
    async function signInPage(n: number): Promise<{ n: number; uid: string; csrf: string; cookies: string[] }> {
      const base = services.authUrls[n];
      const url = new URL(`${base}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: TEST_REDIRECT_URI,
        state: randomBytes(8).toString('hex'),
        code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
        code_challenge_method: 'S256',
      }).toString();
      const authorize = await fetch(url, { redirect: 'manual' });
      expect(authorize.status).toBe(303);
      const cookies = authorize.headers.getSetCookie().map((c) => c.split(';')[0]);
      // The page of this same auth-server (the Location may name the issuer, the first one).
      const { pathname, search } = new URL(authorize.headers.get('location')!, base);
      const html = await (await fetch(`${base}${pathname}${search}`, { headers: { cookie: cookies.join('; ') } })).text();
      const uid = /\/oauth\/interaction\/([^/"]+)\//.exec(html)?.[1] ?? '';
      const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
      expect(uid && csrf).toBeTruthy();
      return { n, uid, csrf, cookies };
    }

    const signIn = (page: { n: number; uid: string; csrf: string; cookies: string[] }, email: string, pass: string) =>
      fetch(`${services.authUrls[page.n]}/oauth/interaction/${page.uid}/login`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: page.cookies.join('; ') },
        body: new URLSearchParams({ csrf: page.csrf, email, password: pass }),
      });

    it('counts the failures of both auth-servers together: five on each lock the pair out of both', async () => {
      const victim = await createUser(services, admin, { password });
      const pages = [await signInPage(0), await signInPage(1)];
      // The pair limit is 10 failures of one email from one address; five reach each auth-server.
      for (let i = 0; i < 10; i += 1) {
        const res = await signIn(pages[i % 2], victim.user.email, `wrong-${i}`);
        expect({ attempt: i, server: i % 2, status: res.status }).toEqual({ attempt: i, server: i % 2, status: 401 });
      }
      // Either auth-server alone saw five: with a count per server the right password would pass.
      for (const page of [pages[0], pages[1]]) {
        const locked = await signIn(page, victim.user.email, password);
        expect({ server: page.n, status: locked.status }).toEqual({ server: page.n, status: 429 });
        expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
      }
    });

    it('lets a user sign in on either auth-server (the control: the pages and the password are right)', async () => {
      const user = await createUser(services, admin, { password });
      for (const n of [0, 1]) {
        const res = await signIn(await signInPage(n), user.user.email, password);
        expect({ server: n, status: res.status }).toEqual({ server: n, status: 303 });
      }
    });
  });
});
