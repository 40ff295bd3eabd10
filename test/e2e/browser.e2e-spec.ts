import { createAccount } from '@crm/testing';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { launchChromium } from './chromium';
import { setupE2e } from './setup';

/** The authorization code flow as a person does it: Debian's Chromium driven by playwright-core. */
describe('login and consent in a real browser (e2e)', () => {
  const { services } = setupE2e({ services: { crmCoreReplicas: 1 }, admin: false });
  let browser: Browser;
  let callbackServer: http.Server;
  let redirectUri: string;
  const received: URL[] = [];
  const password = 'browser test password';

  beforeAll(async () => {
    callbackServer = http.createServer((req, res) => {
      // Only the OAuth callback counts (browsers also ask for /favicon.ico).
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/callback') received.push(url);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Done</title><p>Signed in</p>');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    callbackServer?.close();
  });

  async function start(scope: string) {
    const account = await createAccount(services, { password });
    const res = await fetch(`${services.operatorUrl}/operator/clients`, {
      method: 'POST',
      headers: { authorization: `Bearer ${services.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ client_name: 'Browser Test App', redirect_uris: [redirectUri], scope, token_endpoint_auth_method: 'none' }),
    });
    const { client_id } = (await res.json()) as { client_id: string };
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const url = new URL(`${services.authUrl}/oauth/authorize`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id,
      redirect_uri: redirectUri,
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    }).toString();
    return { account, client_id, verifier, state, url };
  }

  it('signs in, shows a clear error for a wrong password, approves, and returns code, state and iss', async () => {
    const { account, client_id, verifier, state, url } = await start('crm crm.readonly');
    const page = await browser.newPage();
    await page.goto(url.href);
    await page.getByLabel('Email').fill(account.user.email);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toContain('not correct');

    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /wants access/ }).waitFor();
    expect(await page.content()).toContain('crm.readonly');
    mkdirSync(path.join('test-results'), { recursive: true });
    await page.screenshot({ path: path.join('test-results', 'oauth-consent.png') });
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));

    const callback = received.at(-1)!;
    expect(callback.searchParams.get('state')).toBe(state);
    expect(callback.searchParams.get('iss')).toBe(services.authUrl);
    const token = await fetch(`${services.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id,
      }),
    });
    expect(token.status).toBe(200);
    const body = await token.json();
    expect(body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'crm crm.readonly', aud: account.account.base_url });
    await page.close();
  });

  it('sends access_denied back to the app when the user declines', async () => {
    const { account, state, url } = await start('crm');
    const page = await browser.newPage();
    await page.goto(url.href);
    await page.getByLabel('Email').fill(account.user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));
    const callback = received.at(-1)!;
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(state);
    await page.close();
  });

  it('lets a single-page app on the registered origin get a token and call the API with it, and refuses other origins', async () => {
    const { account, client_id, verifier, url } = await start('crm');
    const page = await browser.newPage();
    await page.goto(url.href);
    await page.getByLabel('Email').fill(account.user.email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL((u) => u.href.startsWith(redirectUri));

    // In the app's page (its origin is the registered redirect URI's): token exchange, then the API.
    const results = await page.evaluate(
      async ({ authUrl, apiUrl, clientId, codeVerifier, redirect, userId, apiKey }) => {
        const code = new URL((globalThis as unknown as { location: { href: string } }).location.href).searchParams.get('code')!;
        const tokenRes = await fetch(`${authUrl}/oauth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirect,
            code_verifier: codeVerifier,
            client_id: clientId,
          }),
        });
        const { access_token } = (await tokenRes.json()) as { access_token: string };
        const headers = { authorization: `Bearer ${access_token}`, 'content-type': 'application/json' };
        const created = await fetch(`${apiUrl}/contacts`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ last_name: 'From the browser' }),
        });
        const read = await fetch(`${apiUrl}/users/${userId}`, { headers });
        const basic = await fetch(`${apiUrl}/users/${userId}`, { headers: { authorization: `Basic ${btoa(`${userId}:${apiKey}`)}` } });
        return {
          created: created.status,
          read: read.status,
          user: ((await read.json()) as { data: { user: { id: string } } }).data.user.id,
          requestId: read.headers.get('x-request-id'),
          basic: basic.status,
        };
      },
      {
        authUrl: services.authUrl,
        apiUrl: `${services.gatewayUrl}/api/v3`,
        clientId: client_id,
        codeVerifier: verifier,
        redirect: redirectUri,
        userId: account.user.id,
        apiKey: account.user.api_key,
      },
    );
    expect(results).toMatchObject({ created: 201, read: 200, user: account.user.id, basic: 401 });
    expect(results.requestId).toEqual(expect.any(String));

    // A page of another origin cannot read the API's answers, even with a valid token.
    const other = http.createServer((_req, res) =>
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Other</title>'),
    );
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.1', resolve));
    try {
      await page.goto(`http://127.0.0.1:${(other.address() as AddressInfo).port}/`);
      const outcome = await page.evaluate(async (apiUrl) => {
        try {
          await fetch(`${apiUrl}/contacts`, { headers: { authorization: 'Bearer x' } });
          return 'read';
        } catch {
          return 'blocked';
        }
      }, `${services.gatewayUrl}/api/v3`);
      expect(outcome).toBe('blocked');
    } finally {
      other.close();
      await page.close();
    }
  });
});
