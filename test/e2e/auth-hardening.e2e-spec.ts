import { request as httpRequest } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { createAccount } from '@crm/testing';
import { registerPublicClient, TEST_REDIRECT_URI } from './oauth-helpers';
import { setupE2e, type Json } from './setup';

/**
 * The auth-server's defences against an anonymous client (issue 16): forwarding headers, the
 * login throttle and the hashing limit, over HTTP. The test's own address (loopback) is the one
 * trusted proxy here, so X-Forwarded-For stands for distinct client addresses; hashing runs one
 * at a time with four waiting, so a burst meets the limit.
 */
describe('auth-server hardening (e2e)', () => {
  const password = 'correct horse battery staple';
  const { services, admin } = setupE2e({
    services: { env: { AUTH_TRUSTED_PROXIES: 'loopback', AUTH_HASH_CONCURRENCY: '1', AUTH_HASH_QUEUE: '4' } },
    admin: { password },
  });
  let clientId: string;

  beforeAll(async () => {
    clientId = await registerPublicClient(services, 'crm');
  });

  /** A fresh sign-in page: its interaction uid, CSRF token and cookies. */
  async function signInPage(): Promise<{ uid: string; csrf: string; cookies: string[] }> {
    const url = new URL(`${services.authUrl}/oauth/authorize`);
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
    const html = await (
      await fetch(new URL(authorize.headers.get('location')!, services.authUrl), { headers: { cookie: cookies.join('; ') } })
    ).text();
    const uid = /\/oauth\/interaction\/([^/"]+)\//.exec(html)?.[1] ?? '';
    const csrf = /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
    expect(uid && csrf).toBeTruthy();
    return { uid, csrf, cookies };
  }

  /** POST the sign-in form from `clientAddress` (X-Forwarded-For, believed from the trusted loopback proxy). */
  const signIn = (
    page: { uid: string; csrf: string; cookies: string[] },
    email: string,
    pass: string,
    clientAddress: string,
    extraCookies: string[] = [],
  ) =>
    fetch(`${services.authUrl}/oauth/interaction/${page.uid}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        cookie: [...page.cookies, ...extraCookies].join('; '),
        'x-forwarded-for': clientAddress,
      },
      body: new URLSearchParams({ csrf: page.csrf, email, password: pass }),
    });

  /** GET with exactly these headers, Host included (fetch would not send a Host of our choosing). */
  function rawGet(pathname: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const { hostname, port } = new URL(services.authUrl);
    return new Promise((resolve, reject) => {
      const req = httpRequest({ hostname, port, path: pathname, headers }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      req.end();
    });
  }

  it('builds the discovery document from AUTH_ISSUER whatever Host and X-Forwarded-Host/Proto say', async () => {
    const res = await rawGet('/.well-known/oauth-authorization-server', {
      host: 'evil.example',
      'x-forwarded-host': 'evil.example',
      'x-forwarded-proto': 'https',
    });
    expect(res.status).toBe(200);
    const doc = JSON.parse(res.body) as Json;
    expect(doc).toMatchObject({
      issuer: services.authUrl,
      authorization_endpoint: `${services.authUrl}/oauth/authorize`,
      token_endpoint: `${services.authUrl}/oauth/token`,
      jwks_uri: `${services.authUrl}/oauth/jwks`,
      registration_endpoint: `${services.authUrl}/oauth/register`,
    });
    expect(res.body).not.toContain('evil.example');
  });

  it('counts parallel guesses before checking them: of 30 at once at most 10 reach the password check', async () => {
    const page = await signInPage();
    const statuses = await Promise.all(
      Array.from({ length: 30 }, async (_, i) => (await signIn(page, 'racer@example.test', `guess-${i}`, '198.51.100.30')).status),
    );
    // 401: the password was checked. 429: refused by the count. 503: no hashing slot (that attempt is given back).
    for (const status of statuses) expect([401, 429, 503]).toContain(status);
    const checked = statuses.filter((s) => s === 401).length;
    expect(checked).toBeGreaterThan(0);
    expect(checked).toBeLessThanOrEqual(10);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(20 - statuses.filter((s) => s === 503).length);
  });

  it("lets a stranger's failures lock the email out only from the stranger's address", async () => {
    const page = await signInPage();
    for (let i = 0; i < 10; i += 1) expect((await signIn(page, admin.user.email, `guess-${i}`, '198.51.100.66')).status).toBe(401);
    const locked = await signIn(page, admin.user.email, password, '198.51.100.66');
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);

    const owner = await signIn(await signInPage(), admin.user.email, password, '203.0.113.5');
    expect(owner.status).toBe(303);
    const device = owner.headers.getSetCookie().find((c) => c.startsWith('crm_device='));
    expect(device).toMatch(/; Path=\/oauth\/interaction/);
    expect(device).toMatch(/; HttpOnly/i);
  });

  it('stops guesses at one email from many addresses at a ceiling that spares the browser that signed in before', async () => {
    const victim = await createAccount(services, { password });
    const email = victim.user.email;
    const owner = await signIn(await signInPage(), email, password, '203.0.113.50');
    expect(owner.status).toBe(303);
    const device = owner.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .find((c) => c.startsWith('crm_device='))!;

    const page = await signInPage();
    // Ten addresses, ten failures each: no address is over its own limit.
    for (let source = 1; source <= 10; source += 1)
      for (let i = 0; i < 10; i += 1) expect((await signIn(page, email, `guess-${i}`, `192.0.2.${source}`)).status).toBe(401);
    expect((await signIn(page, email, password, '192.0.2.200')).status).toBe(429);
    expect((await signIn(await signInPage(), email, password, '192.0.2.201', [device])).status).toBe(303);
  });

  it('answers 503 with Retry-After beyond the hashing limit, and signs in normally once the burst is over', async () => {
    const page = await signInPage();
    const answers = await Promise.all(
      Array.from({ length: 20 }, async (_, i) => {
        const res = await signIn(page, `nobody-${i}@example.test`, 'wrong password', `198.51.100.${100 + i}`);
        return { status: res.status, retryAfter: res.headers.get('retry-after') };
      }),
    );
    for (const answer of answers) expect([401, 503]).toContain(answer.status);
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThan(0);
    for (const answer of busy) expect(answer.retryAfter).toBe('1');
    expect((await signIn(await signInPage(), admin.user.email, password, '203.0.113.77')).status).toBe(303);
  });
});
