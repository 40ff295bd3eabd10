import { createAccount } from '@crm/testing';
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { setupE2e } from './setup';

/**
 * The OAuth 2.1 authorization server and the gateway's token checks, over HTTP only, with
 * panva's oauth4webapi as an independent, strict client (iss, state, PKCE, token response rules).
 */
describe('OAuth 2.1 authorization server (e2e)', () => {
  const password = 'correct horse battery staple';
  const { services, admin: account } = setupE2e({
    services: {
      crmCoreReplicas: 1,
      env: { ENABLE_TEST_CLOCK: 'true', SIGNING_KEY_CHECK_INTERVAL_MS: '300', JWKS_REFETCH_COOLDOWN_MS: '500' },
    },
    admin: { password },
  });
  const redirectUri = 'http://localhost:8765/callback';
  let as: oauth.AuthorizationServer;
  const secretsSeen: string[] = [];

  const operator = (pathname: string, body: unknown, method = 'POST') =>
    fetch(`${services.operatorUrl}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${services.operatorToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  async function registerClient(
    method: 'none' | 'client_secret_basic' | 'client_secret_post',
    scope = 'crm crm.readonly',
    extra: Record<string, unknown> = {},
  ) {
    const res = await operator('/operator/clients', {
      client_name: `Test ${method}`,
      redirect_uris: [redirectUri],
      scope,
      token_endpoint_auth_method: method,
      ...extra,
    });
    expect(res.status).toBe(201);
    const body = (await res.json()) as { client_id: string; client_secret?: string };
    if (body.client_secret) secretsSeen.push(body.client_secret);
    return body;
  }

  /** A browser's cookie jar, enough for the login and consent forms. */
  function browser() {
    const cookies = new Map<string, string>();
    const go = async (url: string, form?: Record<string, string>) => {
      const res = await fetch(new URL(url, services.authUrl), {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: { cookie: [...cookies.values()].join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
        body: form ? new URLSearchParams(form) : undefined,
      });
      for (const c of res.headers.getSetCookie()) {
        const [kv] = c.split(';');
        cookies.set(kv.split('=')[0], kv);
      }
      return res;
    };
    return { go };
  }

  const formField = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
  const interactionUid = (html: string) => /\/oauth\/interaction\/([^/"]+)\//.exec(html)?.[1] ?? '';

  /** Runs the authorization request through login and consent; returns the callback URL. */
  async function authorizeInBrowser(authorizationUrl: URL, opts: { decline?: boolean; email?: string } = {}): Promise<URL> {
    const b = browser();
    let res = await b.go(authorizationUrl.href);
    expect(res.status).toBe(303);
    let page = await b.go(res.headers.get('location')!);
    let html = await page.text();
    expect(html).toContain('Sign in');
    res = await b.go(`/oauth/interaction/${interactionUid(html)}/login`, {
      csrf: formField(html, 'csrf'),
      email: opts.email ?? account.user.email,
      password,
    });
    res = await b.go(res.headers.get('location')!);
    page = await b.go(res.headers.get('location')!);
    html = await page.text();
    expect(html).toContain('wants access');
    res = await b.go(`/oauth/interaction/${interactionUid(html)}/${opts.decline ? 'abort' : 'confirm'}`, { csrf: formField(html, 'csrf') });
    res = await b.go(res.headers.get('location')!);
    expect(res.status).toBe(303);
    return new URL(res.headers.get('location')!);
  }

  async function authorizationUrl(clientId: string, params: Record<string, string> = {}) {
    const verifier = oauth.generateRandomCodeVerifier();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: redirectUri,
      state: oauth.generateRandomState(),
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...params,
    }).toString();
    return { url, verifier, state: url.searchParams.get('state')! };
  }

  async function obtainTokens(clientId: string, auth: oauth.ClientAuth, scope?: string) {
    const { url, verifier, state } = await authorizationUrl(clientId, scope ? { scope } : {});
    const callback = await authorizeInBrowser(url);
    const client: oauth.Client = { client_id: clientId };
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const response = await oauth.authorizationCodeGrantRequest(as, client, auth, params, redirectUri, verifier, {
      [oauth.allowInsecureRequests]: true,
    });
    const tokens = await oauth.processAuthorizationCodeResponse(as, client, response);
    secretsSeen.push(tokens.access_token, tokens.refresh_token!);
    return { tokens, client, raw: tokens as unknown as Record<string, unknown> };
  }

  const api = (pathname: string, token: string, init: RequestInit = {}) =>
    fetch(`${services.gatewayUrl}/api/v3${pathname}`, { ...init, headers: { authorization: `Bearer ${token}`, ...(init.headers ?? {}) } });
  /**
   * GET /users/{id} with `token` until the gateway refuses it (a revocation reaches the gateways
   * through Redis; the 1 s promise itself is gateway-tokens.e2e-spec.ts's): the refusal, or the
   * last answer after 10 s.
   */
  const untilRefused = async (token: string): Promise<Response> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const res = await api(`/users/${account.user.id}`, token);
      if (res.status === 401 || Date.now() > deadline) return res;
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 50));
    }
  };
  const tokenRequest = (form: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${services.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(form),
    });
  const setClock = (offsetSeconds: number) => operator('/operator/test/clock', { offset_seconds: offsetSeconds });

  beforeAll(async () => {
    secretsSeen.push(account.user.api_key, services.operatorToken);
    as = await oauth.processDiscoveryResponse(
      new URL(services.authUrl),
      await oauth.discoveryRequest(new URL(services.authUrl), { algorithm: 'oauth2', [oauth.allowInsecureRequests]: true }),
    );
  });

  afterEach(async () => {
    if (services) await setClock(0);
  });

  it('serves exactly the spec discovery document with open CORS', async () => {
    const res = await fetch(`${services.authUrl}/.well-known/oauth-authorization-server`, { headers: { origin: 'https://any.example' } });
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    const doc = await res.json();
    expect(doc).toMatchObject({
      issuer: services.authUrl,
      registration_endpoint: `${services.authUrl}/oauth/register`,
      authorization_endpoint: `${services.authUrl}/oauth/authorize`,
      token_endpoint: `${services.authUrl}/oauth/token`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['crm', 'crm.readonly', 'mcp'],
    });
    for (const absent of [
      'userinfo_endpoint',
      'revocation_endpoint',
      'introspection_endpoint',
      'claims_supported',
      'id_token_signing_alg_values_supported',
    ])
      expect(doc).not.toHaveProperty(absent);
  });

  it('closes registration and exposes no revocation, introspection or userinfo endpoint', async () => {
    const reg = await fetch(`${services.authUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(reg.status).toBe(403);
    expect(await reg.json()).toEqual({ error: 'access_denied', error_description: 'registration is closed' });
    for (const p of ['/oauth/revocation', '/oauth/introspection', '/oauth/userinfo', '/oauth/token/revocation', '/me']) {
      expect((await fetch(`${services.authUrl}${p}`, { method: 'POST' })).status).toBe(404);
    }
  });

  it('refuses custom-scheme and non-local http redirect URIs at registration', async () => {
    for (const uri of ['myapp://callback', 'http://example.com/cb']) {
      const res = await operator('/operator/clients', {
        client_name: 'Bad',
        redirect_uris: [uri],
        scope: 'crm',
        token_endpoint_auth_method: 'none',
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: 'invalid_redirect_uri' });
    }
  });

  it('runs the whole code flow for a public client: iss, state, PKCE, aud, JWT access token usable at the gateway', async () => {
    const { client_id } = await registerClient('none');
    const { tokens, raw } = await obtainTokens(client_id, oauth.None());
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.scope).toBe('crm crm.readonly');
    expect(raw.aud).toBe(account.account.base_url);
    const [header] = tokens.access_token.split('.');
    expect(JSON.parse(Buffer.from(header, 'base64url').toString())).toMatchObject({ alg: 'ES256', typ: 'at+jwt', kid: expect.any(String) });
    const claims = await oauth.validateJwtAccessToken(
      as,
      new Request(`${account.account.base_url}/users`, { headers: { authorization: `Bearer ${tokens.access_token}` } }),
      account.account.base_url,
      { [oauth.allowInsecureRequests]: true },
    );
    expect(claims.sub).toBe(account.user.id);
    const res = await api(`/users/${account.user.id}.json`, tokens.access_token);
    expect(res.status).toBe(200);
    expect((await res.json()).data.user.id).toBe(account.user.id);
  });

  it('defaults the scope to the client registration and narrows a request, never widens it', async () => {
    const { client_id } = await registerClient('none', 'crm.readonly');
    const { tokens } = await obtainTokens(client_id, oauth.None());
    expect(tokens.scope).toBe('crm.readonly');
    const wide = await authorizationUrl(client_id, { scope: 'crm' });
    const res = await fetch(wide.url, { redirect: 'manual' });
    const location = new URL(res.headers.get('location')!);
    expect(location.searchParams.get('error')).toBe('invalid_scope');
    expect(location.searchParams.get('state')).toBe(wide.state);
  });

  it('lets crm.readonly and mcp tokens read but not write (403 naming scope crm); crm tokens write', async () => {
    const body = JSON.stringify({ name: `Scope probe ${Date.now()}`, type: 'text' });
    const post = (token: string) => api('/custom_fields', token, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    for (const scope of ['crm.readonly', 'mcp']) {
      const { client_id } = await registerClient('none', scope);
      const { tokens } = await obtainTokens(client_id, oauth.None());
      expect((await api('/custom_fields', tokens.access_token)).status).toBe(200);
      const refused = await post(tokens.access_token);
      expect(refused.status).toBe(403);
      const error = await refused.json();
      expect(error).toMatchObject({ status: 403, error_name: 'no_permission_to_complete_action' });
      expect(error.error_message).toMatch(/\bcrm\b/);
    }
    const { client_id } = await registerClient('none', 'crm');
    const { tokens } = await obtainTokens(client_id, oauth.None());
    const created = await post(tokens.access_token);
    expect(created.status).toBe(201);
    expect((await created.json()).data.custom_field).toMatchObject({ type: 'text' });
  });

  it('rotates public refresh tokens and revokes the whole family on replay', async () => {
    const { client_id } = await registerClient('none');
    const { tokens } = await obtainTokens(client_id, oauth.None());
    const first = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id });
    expect(first.status).toBe(200);
    const rotated = await first.json();
    secretsSeen.push(rotated.access_token, rotated.refresh_token);
    expect(rotated.refresh_token).not.toBe(tokens.refresh_token);
    expect(rotated.aud).toBe(account.account.base_url);
    expect((await api(`/users/${account.user.id}`, rotated.access_token)).status).toBe(200);

    const replay = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id });
    expect(replay.status).toBe(400);
    expect((await replay.json()).error).toBe('invalid_grant');
    const afterReplay = await tokenRequest({ grant_type: 'refresh_token', refresh_token: rotated.refresh_token, client_id });
    expect((await afterReplay.json()).error).toBe('invalid_grant');
    for (const token of [tokens.access_token, rotated.access_token]) {
      const res = await untilRefused(token);
      expect(res.status).toBe(401);
      expect(await res.json()).toMatchObject({ status: 400, error_name: 'invalid_access_token' });
    }
  });

  it('keeps confidential refresh tokens, narrows scope on request and refuses a wider one', async () => {
    const { client_id, client_secret } = await registerClient('client_secret_basic');
    const basic = { authorization: `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}` };
    const { tokens } = await obtainTokens(client_id, oauth.ClientSecretBasic(client_secret!));
    const narrow = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, scope: 'crm.readonly' }, basic);
    const narrowed = await narrow.json();
    expect(narrowed.scope).toBe('crm.readonly');
    expect(narrowed.refresh_token ?? tokens.refresh_token).toBe(tokens.refresh_token);
    const again = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, basic);
    expect(again.status).toBe(200);
    const wider = await registerClient('client_secret_basic', 'crm.readonly');
    const w = await obtainTokens(wider.client_id, oauth.ClientSecretBasic(wider.client_secret!));
    const res = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: w.tokens.refresh_token!, scope: 'crm' },
      { authorization: `Basic ${Buffer.from(`${wider.client_id}:${wider.client_secret}`).toString('base64')}` },
    );
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('invalid_scope');
  });

  it('authenticates clients by exactly one method and rejects bad credentials', async () => {
    const { client_id, client_secret } = await registerClient('client_secret_basic');
    const basic = `Basic ${Buffer.from(`${client_id}:${client_secret}`).toString('base64')}`;
    const mixed = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: 'x', client_id, client_secret: client_secret! },
      { authorization: basic },
    );
    expect(mixed.status).toBe(400);
    expect((await mixed.json()).error).toBe('invalid_request');
    const wrong = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: 'x' },
      { authorization: `Basic ${Buffer.from(`${client_id}:wrong`).toString('base64')}` },
    );
    expect(wrong.status).toBe(401);
    expect((await wrong.json()).error).toBe('invalid_client');
    const wrongMethod = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'x', client_id, client_secret: client_secret! });
    expect(wrongMethod.status).toBe(401);
    expect((await wrongMethod.json()).error).toBe('invalid_client');
    const json = await fetch(`${services.authUrl}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: basic },
      body: JSON.stringify({ grant_type: 'refresh_token', refresh_token: 'x' }),
    });
    expect(json.status).toBe(400);
    expect((await json.json()).error).toBe('invalid_request');
  });

  it('adds token-endpoint CORS only for public clients from a registered origin', async () => {
    const pub = await registerClient('none');
    const conf = await registerClient('client_secret_basic');
    const form = (clientId: string) => ({ grant_type: 'refresh_token', refresh_token: 'unknown', client_id: clientId });
    const allowed = await tokenRequest(form(pub.client_id), { origin: 'http://localhost:8765' });
    expect(allowed.headers.get('access-control-allow-origin')).toBe('http://localhost:8765');
    const other = await tokenRequest(form(pub.client_id), { origin: 'https://evil.example' });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const confidential = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: 'unknown' },
      {
        origin: 'http://localhost:8765',
        authorization: `Basic ${Buffer.from(`${conf.client_id}:${conf.client_secret}`).toString('base64')}`,
      },
    );
    expect(confidential.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers unauthorized_client for a grant type the client was not registered for', async () => {
    const { client_id } = await registerClient('none', 'crm', { grant_types: ['authorization_code'] });
    const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'whatever', client_id });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('unauthorized_client');
  });

  it('makes codes single use, bound to the verifier and the redirect URI, and revokes the grant on reuse', async () => {
    const { client_id } = await registerClient('none');
    const client: oauth.Client = { client_id };
    const start = async () => {
      const { url, verifier, state } = await authorizationUrl(client_id);
      const callback = await authorizeInBrowser(url);
      return { params: oauth.validateAuthResponse(as, client, callback, state), verifier, code: callback.searchParams.get('code')! };
    };
    const a = await start();
    const bad = await tokenRequest({
      grant_type: 'authorization_code',
      code: a.code,
      redirect_uri: redirectUri,
      code_verifier: oauth.generateRandomCodeVerifier(),
      client_id,
    });
    expect((await bad.json()).error).toBe('invalid_grant');
    const b = await start();
    const badRedirect = await tokenRequest({
      grant_type: 'authorization_code',
      code: b.code,
      redirect_uri: 'http://localhost:8765/other',
      code_verifier: b.verifier,
      client_id,
    });
    expect((await badRedirect.json()).error).toBe('invalid_grant');
    const c = await start();
    const ok = await tokenRequest({
      grant_type: 'authorization_code',
      code: c.code,
      redirect_uri: redirectUri,
      code_verifier: c.verifier,
      client_id,
    });
    const tokens = await ok.json();
    expect(ok.status).toBe(200);
    const reuse = await tokenRequest({
      grant_type: 'authorization_code',
      code: c.code,
      redirect_uri: redirectUri,
      code_verifier: c.verifier,
      client_id,
    });
    expect(reuse.status).toBe(400);
    expect((await reuse.json()).error).toBe('invalid_grant');
    expect((await untilRefused(tokens.access_token)).status).toBe(401);
  });

  it('redirects authorize errors with state, but never for an unknown client or redirect URI', async () => {
    const { client_id } = await registerClient('none');
    const noPkce = new URL(as.authorization_endpoint!);
    noPkce.search = new URLSearchParams({ response_type: 'code', client_id, redirect_uri: redirectUri, state: 'st-1' }).toString();
    const res = await fetch(noPkce, { redirect: 'manual' });
    const location = new URL(res.headers.get('location')!);
    expect(location.origin + location.pathname).toBe(redirectUri);
    expect(location.searchParams.get('error')).toBe('invalid_request');
    expect(location.searchParams.get('state')).toBe('st-1');
    expect(location.searchParams.get('error_description')).toBeTruthy();

    const unknownClient = await authorizationUrl('no-such-client');
    const page = await fetch(unknownClient.url, { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(page.headers.get('location')).toBeNull();
    expect(await page.text()).toContain('invalid_client');

    const badRedirect = await authorizationUrl(client_id, { redirect_uri: 'https://evil.example/cb' });
    const page2 = await fetch(badRedirect.url, { redirect: 'manual' });
    expect(page2.status).toBe(400);
    expect(page2.headers.get('location')).toBeNull();
    expect(await page2.text()).toContain('invalid_request');
  });

  it('returns access_denied with state when the user declines', async () => {
    const { client_id } = await registerClient('none');
    const { url, state } = await authorizationUrl(client_id);
    const callback = await authorizeInBrowser(url, { decline: true });
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(state);
  });

  it('expires codes after 10 minutes and public refresh tokens after 7 idle days (injected clock)', async () => {
    const { client_id } = await registerClient('none');
    const { url, verifier } = await authorizationUrl(client_id);
    const code = (await authorizeInBrowser(url)).searchParams.get('code')!;
    await setClock(601);
    const late = await tokenRequest({
      grant_type: 'authorization_code',
      code,
      redirect_uri: redirectUri,
      code_verifier: verifier,
      client_id,
    });
    expect((await late.json()).error).toBe('invalid_grant');
    await setClock(0);

    const { tokens } = await obtainTokens(client_id, oauth.None());
    await setClock(6 * 86400);
    const within = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id });
    expect(within.status).toBe(200);
    const next = (await within.json()).refresh_token as string;
    await setClock(6 * 86400 + 7 * 86400 + 60);
    const idle = await tokenRequest({ grant_type: 'refresh_token', refresh_token: next, client_id });
    expect((await idle.json()).error).toBe('invalid_grant');
  });

  it('ends public refresh chains at 90 days however often they are used', async () => {
    const { client_id } = await registerClient('none');
    const { tokens } = await obtainTokens(client_id, oauth.None());
    let refresh = tokens.refresh_token!;
    for (let day = 6; day <= 84; day += 6) {
      await setClock(day * 86400);
      const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: refresh, client_id });
      expect(res.status).toBe(200);
      refresh = (await res.json()).refresh_token;
    }
    await setClock(90 * 86400 + 60);
    expect((await (await tokenRequest({ grant_type: 'refresh_token', refresh_token: refresh, client_id })).json()).error).toBe(
      'invalid_grant',
    );
  });

  it('slides confidential refresh tokens on each use (30 idle days) up to 365 days', async () => {
    const { client_id, client_secret } = await registerClient('client_secret_post');
    const { tokens } = await obtainTokens(client_id, oauth.ClientSecretPost(client_secret!));
    const refresh = (offsetDays: number) =>
      setClock(offsetDays * 86400).then(() =>
        tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id, client_secret: client_secret! }),
      );
    expect((await refresh(29)).status).toBe(200);
    expect((await refresh(58)).status).toBe(200);
    const idle = await refresh(58 + 31);
    expect((await idle.json()).error).toBe('invalid_grant');

    await setClock(0);
    const second = await obtainTokens(client_id, oauth.ClientSecretPost(client_secret!));
    const use = (d: number) =>
      setClock(d * 86400).then(() =>
        tokenRequest({
          grant_type: 'refresh_token',
          refresh_token: second.tokens.refresh_token!,
          client_id,
          client_secret: client_secret!,
        }),
      );
    for (let d = 25; d <= 350; d += 25) expect((await use(d)).status).toBe(200);
    expect((await (await use(366)).json()).error).toBe('invalid_grant');
  });

  it('rotates the signing key: the successor is published before it signs, the old key stays until its tokens expired', async () => {
    const { client_id } = await registerClient('none');
    const jwks = async () =>
      ((await (await fetch(`${services.authUrl}/oauth/jwks`)).json()) as { keys: Array<{ kid: string; d?: string }> }).keys;
    const kidOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split('.')[0], 'base64url').toString('utf8')) as { kid: string }).kid;
    const waitFor = async (what: string, check: () => Promise<boolean>) => {
      for (let i = 0; i < 60; i += 1) {
        if (await check()) return;
        await new Promise((r) => setTimeout(r, 200));
      }
      throw new Error(`${what}: not within 12 s`);
    };
    const { tokens } = await obtainTokens(client_id, oauth.None());
    let refreshToken = tokens.refresh_token!;
    const refreshAccessToken = async () => {
      const res = await tokenRequest({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { access_token: string; refresh_token: string };
      secretsSeen.push(body.access_token, body.refresh_token);
      refreshToken = body.refresh_token;
      return body.access_token;
    };
    const oldKid = kidOf(tokens.access_token);

    const rotated = await operator('/operator/signing-keys/rotate', { activate_in_seconds: 3600 });
    expect(rotated.status).toBe(201);
    const { kid: newKid, activates_at: activatesAt } = (await rotated.json()) as { kid: string; activates_at: number };
    expect(newKid).not.toBe(oldKid);
    expect(activatesAt - Math.floor(Date.now() / 1000)).toBeGreaterThan(3500);
    const published = await jwks();
    expect(published.map((k) => k.kid)).toEqual(expect.arrayContaining([oldKid, newKid]));
    expect(published.some((k) => k.d !== undefined)).toBe(false);
    expect(kidOf(await refreshAccessToken())).toBe(oldKid);
    const listed = (await (
      await fetch(`${services.operatorUrl}/operator/signing-keys`, { headers: { authorization: `Bearer ${services.operatorToken}` } })
    ).json()) as { keys: Array<{ kid: string; status: string }> };
    expect(listed.keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kid: oldKid, status: 'active' }),
        expect.objectContaining({ kid: newKid, status: 'next' }),
      ]),
    );

    await setClock(3600 + 5);
    let fresh = '';
    await waitFor('the successor signs', async () => kidOf((fresh = await refreshAccessToken())) === newKid);
    expect((await api(`/users/${account.user.id}`, fresh)).status).toBe(200);
    expect((await api(`/users/${account.user.id}`, tokens.access_token)).status).toBe(200);
    expect((await jwks()).map((k) => k.kid)).toContain(oldKid);

    await setClock(3600 + 3600 + 600 + 5);
    await waitFor('the old key is retired', async () => !(await jwks()).some((k) => k.kid === oldKid));
    expect((await operator('/operator/signing-keys/rotate', { activate_in_seconds: -1 })).status).toBe(400);
  });

  it('revokes every OAuth grant of a user when the API key changes', async () => {
    const { client_id } = await registerClient('none');
    const { tokens } = await obtainTokens(client_id, oauth.None());
    expect((await api(`/users/${account.user.id}`, tokens.access_token)).status).toBe(200);
    const viaBearer = await api('/change_auth_key', tokens.access_token, { method: 'POST' });
    expect(viaBearer.status).toBe(401);
    expect(await viaBearer.json()).toMatchObject({
      error_name: 'invalid_auth_token',
      error_message: 'This endpoint is not available for OAuth applications',
    });
    const basic = `Basic ${Buffer.from(`${account.user.id}:${account.user.api_key}`).toString('base64')}`;
    const changed = await fetch(`${services.gatewayUrl}/api/v3/change_auth_key`, { method: 'POST', headers: { authorization: basic } });
    expect(changed.status).toBe(201);
    const newKey = (await changed.json()).data.auth_key as string;
    secretsSeen.push(newKey);
    expect((await fetch(`${services.gatewayUrl}/api/v3/users/${account.user.id}`, { headers: { authorization: basic } })).status).toBe(401);
    expect(
      (
        await fetch(`${services.gatewayUrl}/api/v3/users/${account.user.id}`, {
          headers: { authorization: `Basic ${Buffer.from(`${account.user.id}:${newKey}`).toString('base64')}` },
        })
      ).status,
    ).toBe(200);
    expect((await api(`/users/${account.user.id}`, tokens.access_token)).status).toBe(401);
    const refresh = await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id });
    expect((await refresh.json()).error).toBe('invalid_grant');
    account.user.api_key = newKey;
  });

  it('answers 402 for an account whose billing the operator stopped', async () => {
    const other = await createAccount(services, { password });
    const { client_id } = await registerClient('none');
    const { tokens } = await obtainTokens(client_id, oauth.None());
    expect((await operator(`/operator/accounts/${other.account.id}`, { billing_status: 'subscription_canceled' }, 'PATCH')).status).toBe(
      200,
    );
    const res = await fetch(`${services.gatewayUrl}/api/v3/users/${other.user.id}`, {
      headers: { authorization: `Basic ${Buffer.from(`${other.user.id}:${other.user.api_key}`).toString('base64')}` },
    });
    expect(res.status).toBe(402);
    expect(await res.json()).toMatchObject({ error_name: 'subscription_canceled' });
    expect((await api(`/users/${account.user.id}`, tokens.access_token)).status).toBe(200);
  });

  it('slows password guessing on the login form', async () => {
    const { client_id } = await registerClient('none');
    const { url } = await authorizationUrl(client_id);
    const b = browser();
    const first = await b.go(url.href);
    const html = await (await b.go(first.headers.get('location')!)).text();
    const uid = interactionUid(html);
    let last = 0;
    for (let i = 0; i < 11; i += 1)
      last = (
        await b.go(`/oauth/interaction/${uid}/login`, {
          csrf: formField(html, 'csrf'),
          email: 'victim@example.com',
          password: `guess-${i}`,
        })
      ).status;
    expect(last).toBe(429);
    const forged = await b.go(`/oauth/interaction/${uid}/login`, { csrf: 'forged', email: account.user.email, password });
    expect(forged.status).toBe(403);
  });

  it('refuses webhook management to OAuth applications with 403 (API key only)', async () => {
    const { client_id } = await registerClient('none', 'crm');
    const { tokens } = await obtainTokens(client_id, oauth.None());
    for (const [method, body] of [
      ['GET', undefined],
      ['POST', JSON.stringify({ name: 'x', hook_url: 'https://x.example' })],
    ] as const) {
      const res = await api('/webhooks', tokens.access_token, {
        method,
        body,
        headers: body ? { 'content-type': 'application/json' } : {},
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({
        status: 403,
        error_name: 'no_permission_to_complete_action',
        error_message: 'This endpoint is not available for OAuth applications',
      });
    }
  });

  it('serves the login page with strict security headers (CSP, no framing, no sniffing, no caching)', async () => {
    const { client_id } = await registerClient('none');
    const { url } = await authorizationUrl(client_id);
    const b = browser();
    const start = await b.go(url.href);
    const page = await b.go(start.headers.get('location')!);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Sign in');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain(`form-action 'self' ${new URL(redirectUri).origin}`);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toContain('no-store');
    expect(page.headers.get('x-powered-by')).toBeNull();
  });

  it('never writes tokens, keys or secrets to the logs', () => {
    const dir = path.join(process.cwd(), 'test-results', 'e2e-logs');
    const logs = readdirSync(dir)
      .map((f) => readFileSync(path.join(dir, f), 'utf8'))
      .join('\n');
    expect(logs.length).toBeGreaterThan(0);
    for (const secret of secretsSeen.filter(Boolean)) expect(logs.includes(secret)).toBe(false);
  });
});
