import { api, basicAuth, createAccount, DEFAULT_TEST_PASSWORD, type CreatedAccount, type ServiceProcess } from '@crm/testing';
import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { setupE2e } from './setup';

/**
 * The foundation over HTTP only: the operator API, GET /users/{id}, the envelopes and the
 * authentication error table of decisions.md, tenant isolation, routing errors (404, 405, bad
 * bodies), X-Request-Id, health and metrics of every process, and crm-core replicas stopping one
 * after the other. One set of services for the whole file; the replica tests run last.
 */
describe('Foundation (e2e)', () => {
  /** a: the admin of account A (us), the main caller; b: account B, another tenant. */
  const {
    services,
    admin: a,
    stranger: b,
  } = setupE2e({
    // The replica tests send bursts of parallel requests as one user: above the default concurrent ceiling (20).
    services: { crmCoreReplicas: 2, env: { RATE_LIMIT_CONCURRENT: '200' } },
    admin: { name: 'Alpha Ltd' },
    stranger: { name: 'Beta LLC' },
  });
  /** Account C: scratch account for billing, key rotation and body errors. */
  let c: CreatedAccount;

  const HEX_ID = /^[0-9a-f]{24}$/;
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const STACK_TRACE = /at .*\.js:\d+/;
  const ERROR_KEYS = ['error_message', 'error_name', 'errors', 'message', 'status'];
  const SUCCESS_KEYS = ['data', 'message', 'status', 'timestamp'];
  const USER_KEYS = [
    'account_rights',
    'company_name',
    'country_code',
    'email',
    'first_name',
    'id',
    'last_name',
    'permissions',
    'photo_url',
    'role',
  ];
  const OWN_USER_KEYS = [...USER_KEYS, 'bcc_email', 'google_contacts_email'].sort();

  interface Answer {
    status: number;
    headers: Headers;
    body: Record<string, unknown>;
    text: string;
  }

  async function call(url: string, init: RequestInit = {}): Promise<Answer> {
    const res = await fetch(url, { signal: AbortSignal.timeout(15_000), ...init });
    const text = await res.text();
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = {};
    }
    return { status: res.status, headers: res.headers, body, text };
  }

  const gw = (pathname: string, init: RequestInit = {}) => call(`${services.gatewayUrl}${pathname}`, init);
  const operator = (pathname: string, body: unknown, init: { method?: string; token?: string | null; raw?: string } = {}) =>
    call(`${services.operatorUrl}${pathname}`, {
      method: init.method ?? 'POST',
      headers: {
        'content-type': 'application/json',
        ...(init.token === null ? {} : { authorization: `Bearer ${init.token ?? services.operatorToken}` }),
      },
      body: init.raw ?? JSON.stringify(body),
    });
  const asUser = (account: CreatedAccount, key = account.user.api_key) => ({ authorization: basicAuth(account.user.id, key) });
  const getUser = (account: CreatedAccount | null, userId: string, headers: Record<string, string> = {}) =>
    gw(`/api/v3/users/${userId}`, { headers: { ...(account ? asUser(account) : {}), ...headers } });

  /** The error envelope of decisions.md: exactly its five keys, the documented statuses, no stack. */
  function expectError(res: Answer, http: number, errorName: string, bodyStatus = http): void {
    expect({ http: res.status, error_name: res.body.error_name, status: res.body.status }).toEqual({
      http,
      error_name: errorName,
      status: bodyStatus,
    });
    expect(res.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(Object.keys(res.body).sort()).toEqual(ERROR_KEYS);
    expect(typeof res.body.message).toBe('string');
    expect((res.body.message as string).length).toBeGreaterThan(0);
    expect(typeof res.body.error_message).toBe('string');
    expect(Object.prototype.toString.call(res.body.errors)).toBe('[object Object]');
    expect(res.text).not.toMatch(STACK_TRACE);
    expect(res.text).not.toMatch(/node_modules|\/dist\/|\.ts:\d+/);
  }

  function expectSuccess(res: Answer, http = 200): void {
    expect(res.status).toBe(http);
    expect(res.headers.get('content-type')).toMatch(/^application\/json; charset=utf-8$/i);
    expect(Object.keys(res.body).sort()).toEqual(SUCCESS_KEYS);
    expect(res.body.status).toBe(0);
    expect(res.body.message).toBe('OK');
    const now = Math.floor(Date.now() / 1000);
    expect(Number.isInteger(res.body.timestamp)).toBe(true);
    expect(res.body.timestamp as number).toBeGreaterThanOrEqual(now - 10);
    expect(res.body.timestamp as number).toBeLessThanOrEqual(now + 2);
  }

  const gatewayPort = () => new URL(services.gatewayUrl).port;
  const crmCores = (): ServiceProcess[] => services.processes.filter((p) => p.app === 'crm-core');

  beforeAll(async () => {
    c = await createAccount(services, { name: 'Gamma GmbH' });
  });

  describe('operator API', () => {
    const newAccountBody = (email = `op-${randomBytes(5).toString('hex')}@example.test`, extra: Record<string, unknown> = {}) => ({
      name: 'Delta Co',
      admin: { first_name: 'Dee', last_name: 'Operator', email, password: 'a long enough password' },
      ...extra,
    });

    it('is served on the internal OPERATOR_PORT only: the public auth port answers 404 even with the token', async () => {
      const headers = { 'content-type': 'application/json', authorization: `Bearer ${services.operatorToken}` };
      for (const [method, pathname] of [
        ['POST', '/operator/accounts'],
        ['GET', '/operator/signing-keys'],
        ['POST', '/operator/clients'],
      ] as const) {
        const res = await call(`${services.authUrl}${pathname}`, {
          method,
          headers,
          body: method === 'POST' ? JSON.stringify(newAccountBody()) : undefined,
        });
        expect({ method, pathname, status: res.status, error: res.body.error_name }).toEqual({
          method,
          pathname,
          status: 404,
          error: 'resource_not_found',
        });
      }
      // The same request on the operator port reaches the route.
      expect((await call(`${services.operatorUrl}/operator/signing-keys`, { headers })).status).toBe(200);
      expect(services.operatorUrl).not.toBe(services.authUrl);
    });

    it('serves nothing but /operator/* on the operator port (no OAuth, health or metrics there)', async () => {
      for (const pathname of [
        '/',
        '/healthz',
        '/readyz',
        '/metrics',
        '/oauth/jwks',
        '/.well-known/oauth-authorization-server',
        '/operatorx',
      ]) {
        const res = await call(`${services.operatorUrl}${pathname}`);
        expect({ pathname, status: res.status }).toEqual({ pathname, status: 404 });
        expectError(res, 404, 'resource_not_found');
      }
    });

    it('refuses a missing token with 401 authorization_data_not_found', async () => {
      const res = await operator('/operator/accounts', newAccountBody(), { token: null });
      expectError(res, 401, 'authorization_data_not_found', 401);
    });

    it('refuses a wrong token with 401 invalid_auth_token (body status 400)', async () => {
      const res = await operator('/operator/accounts', newAccountBody(), { token: `${services.operatorToken.slice(0, -1)}x` });
      expectError(res, 401, 'invalid_auth_token', 400);
      const other = await operator('/operator/accounts', newAccountBody(), { token: 'x'.repeat(48) });
      expectError(other, 401, 'invalid_auth_token', 400);
    });

    it('refuses the operator token sent in another scheme with 401', async () => {
      const res = await call(`${services.operatorUrl}/operator/accounts`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: basicAuth('operator', services.operatorToken) },
        body: JSON.stringify(newAccountBody()),
      });
      expect(res.status).toBe(401);
      expect(res.text).not.toMatch(STACK_TRACE);
    });

    it('creates an account in the default region: 201 with exactly the documented shape', async () => {
      const email = `ann-${randomBytes(4).toString('hex')}@acme.example`;
      const res = await operator('/operator/accounts', newAccountBody(email));
      expect(res.status).toBe(201);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Object.keys(res.body).sort()).toEqual(['account', 'user']);
      const { account, user } = res.body as unknown as CreatedAccount;
      expect(Object.keys(account).sort()).toEqual(['base_url', 'id', 'name', 'region']);
      expect(Object.keys(user).sort()).toEqual(['api_key', 'email', 'id']);
      expect(account).toEqual({
        id: expect.stringMatching(HEX_ID),
        name: 'Delta Co',
        region: 'us',
        base_url: `${services.gatewayUrl}/api/v3`,
      });
      expect(user).toEqual({ id: expect.stringMatching(HEX_ID), email, api_key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
      expect(user.id).not.toBe(account.id);
      // The admin can use the API at once with the key shown.
      const me = await gw(`/api/v3/users/${user.id}`, { headers: { authorization: basicAuth(user.id, user.api_key) } });
      expect(me.status).toBe(200);
    });

    it('the harness accounts are in the default region us', () => {
      for (const account of [a, b, c]) {
        expect(account.account).toMatchObject({ region: 'us', base_url: `${services.gatewayUrl}/api/v3` });
        expect(account.account.id).toMatch(HEX_ID);
        expect(account.user.id).toMatch(HEX_ID);
      }
      expect(new Set([a.account.id, b.account.id, c.account.id]).size).toBe(3);
    });

    it("creates an account in region eu with that region's base URL", async () => {
      const res = await operator('/operator/accounts', newAccountBody(undefined, { region: 'eu' }));
      expect(res.status).toBe(201);
      expect((res.body as unknown as CreatedAccount).account).toMatchObject({
        region: 'eu',
        base_url: `http://eu.localhost:${gatewayPort()}/api/v3`,
      });
    });

    it('refuses an unknown region with 400 invalid_request_data naming region', async () => {
      const res = await operator('/operator/accounts', newAccountBody(undefined, { region: 'mars' }));
      expectError(res, 400, 'invalid_request_data');
      expect(res.body.errors).toHaveProperty('region');
    });

    it('refuses an admin email that exists with 400 resource_already_exists (any letter case)', async () => {
      const res = await operator('/operator/accounts', newAccountBody(a.user.email));
      expectError(res, 400, 'resource_already_exists');
      const upper = await operator('/operator/accounts', newAccountBody(a.user.email.toUpperCase()));
      expectError(upper, 400, 'resource_already_exists');
    });

    it('refuses an invalid body with 400 invalid_request_data keyed by field', async () => {
      const noAdmin = await operator('/operator/accounts', { name: 'No admin' });
      expectError(noAdmin, 400, 'invalid_request_data');
      expect(noAdmin.body.errors).toHaveProperty('admin');

      const badFields = await operator('/operator/accounts', {
        admin: { first_name: 'X', last_name: 'Y', email: 'not-an-email', password: 'short' },
      });
      expectError(badFields, 400, 'invalid_request_data');
      expect(Object.keys(badFields.body.errors as object)).toEqual(expect.arrayContaining(['name', 'admin.email', 'admin.password']));

      const malformed = await operator('/operator/accounts', undefined, { raw: '{"name": "Broken",' });
      expectError(malformed, 400, 'invalid_request_data');
    });

    it('creates a user in an account: 201 { user: { id, email, api_key } }', async () => {
      const email = `user-${randomBytes(4).toString('hex')}@example.test`;
      const res = await operator(`/operator/accounts/${a.account.id}/users`, {
        first_name: 'Uma',
        last_name: 'User',
        email,
        password: 'another long password',
        role: 'user',
        account_rights: ['pipeline'],
      });
      expect(res.status).toBe(201);
      expect(res.body).toEqual({
        user: { id: expect.stringMatching(HEX_ID), email, api_key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) },
      });
      secondUser = res.body as unknown as { user: CreatedAccount['user'] };
    });

    it('POST {auth_url}/oauth/register is closed: 403 access_denied', async () => {
      const res = await call(`${services.authUrl}/oauth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_name: 'Self-registered', redirect_uris: ['https://app.example/cb'] }),
      });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'access_denied', error_description: 'registration is closed' });
    });
  });

  /** Created by the operator test above: a role "user" in account A. */
  let secondUser: { user: CreatedAccount['user'] } | undefined;

  describe('GET /users/{user_id}', () => {
    it("answers the caller's own user in the success envelope with every spec field", async () => {
      const res = await getUser(a, a.user.id);
      expectSuccess(res);
      const data = res.body.data as { user: Record<string, unknown> };
      expect(Object.keys(data)).toEqual(['user']);
      expect(Object.keys(data.user).sort()).toEqual(OWN_USER_KEYS);
      expect(data.user).toEqual({
        id: a.user.id,
        first_name: 'Ada',
        last_name: 'Admin',
        email: a.user.email,
        company_name: 'Alpha Ltd',
        account_rights: [],
        permissions: ['delete_contacts'],
        role: 'admin',
        photo_url: expect.any(String),
        country_code: expect.any(String),
        bcc_email: expect.stringMatching(new RegExp(`^${a.user.id}@[^@\\s]+$`)),
        google_contacts_email: '',
      });
    });

    it('answers the same with the .json suffix, a trailing slash and an upper-case id', async () => {
      const plain = await getUser(a, a.user.id);
      for (const variant of [`${a.user.id}.json`, `${a.user.id}/`, a.user.id.toUpperCase(), `${a.user.id.toUpperCase()}.json`]) {
        const res = await getUser(a, variant);
        expectSuccess(res);
        expect(res.body.data).toEqual(plain.body.data);
      }
    });

    it('accepts the user id of the Basic credentials in any letter case', async () => {
      const res = await getUser(null, a.user.id, { authorization: basicAuth(a.user.id.toUpperCase(), a.user.api_key) });
      expectSuccess(res);
      expect((res.body.data as { user: { id: string } }).user.id).toBe(a.user.id);
    });

    it('shows another user of the account without bcc_email and google_contacts_email', async () => {
      expect(secondUser).toBeDefined();
      const other = secondUser!.user;
      const res = await getUser(a, other.id);
      expectSuccess(res);
      const user = (res.body.data as { user: Record<string, unknown> }).user;
      expect(Object.keys(user).sort()).toEqual([...USER_KEYS].sort());
      expect(user).toMatchObject({
        id: other.id,
        email: other.email,
        first_name: 'Uma',
        last_name: 'User',
        role: 'user',
        account_rights: ['pipeline'],
        permissions: [],
        company_name: 'Alpha Ltd',
      });

      const own = await getUser(null, other.id, { authorization: basicAuth(other.id, other.api_key) });
      expectSuccess(own);
      expect((own.body.data as { user: Record<string, unknown> }).user).toMatchObject({
        id: other.id,
        bcc_email: expect.stringMatching(new RegExp(`^${other.id}@`)),
        google_contacts_email: '',
      });
    });

    it('works through the harness client as well (GET /users/{id}.json)', async () => {
      const res = await api(services, b)('GET', `/users/${b.user.id}.json`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ status: 0, message: 'OK', data: { user: { id: b.user.id, company_name: 'Beta LLC' } } });
    });
  });

  describe('authentication errors (decisions.md table)', () => {
    it('no credentials at all: 401 authorization_data_not_found, body status 401', async () => {
      expectError(await getUser(null, a.user.id), 401, 'authorization_data_not_found', 401);
      expectError(await getUser(null, a.user.id, { authorization: '' }), 401, 'authorization_data_not_found', 401);
      expectError(await getUser(null, a.user.id, { authorization: '   ' }), 401, 'authorization_data_not_found', 401);
    });

    it('Basic with an unknown user id: 401 invalid_login, body status 400', async () => {
      const unknownId = randomBytes(12).toString('hex');
      expectError(await getUser(null, a.user.id, { authorization: basicAuth(unknownId, a.user.api_key) }), 401, 'invalid_login', 400);
      // Asked twice: the negative cache answers the same.
      expectError(await getUser(null, a.user.id, { authorization: basicAuth(unknownId, a.user.api_key) }), 401, 'invalid_login', 400);
    });

    it('Basic with a malformed user id: 401 invalid_login, body status 400', async () => {
      for (const userId of ['not-an-id', '', '12345', `${a.user.id}0`, 'zzzzzzzzzzzzzzzzzzzzzzzz']) {
        expectError(await getUser(null, a.user.id, { authorization: basicAuth(userId, a.user.api_key) }), 401, 'invalid_login', 400);
      }
    });

    it('Basic with a known user and a wrong key: 401 invalid_auth_token, body status 400', async () => {
      for (const key of ['wrong', '', `${a.user.api_key}x`, a.user.api_key.slice(1), b.user.api_key]) {
        expectError(await getUser(null, a.user.id, { authorization: basicAuth(a.user.id, key) }), 401, 'invalid_auth_token', 400);
      }
    });

    it('an Authorization header that cannot be parsed: 401 invalid_login, body status 400', async () => {
      const malformed = [
        'Basic',
        `Basic ${Buffer.from('no-colon-here').toString('base64')}`,
        'Digest username="x"',
        'Token abc',
        `${basicAuth(a.user.id, a.user.api_key)} extra`,
      ];
      for (const header of malformed) {
        expectError(await getUser(null, a.user.id, { authorization: header }), 401, 'invalid_login', 400);
      }
    });

    it('an invalid bearer token: 401 invalid_access_token, body status 400', async () => {
      const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'at+jwt' })).toString('base64url')}.${Buffer.from(JSON.stringify({ sub: a.user.id, gid: 'g', scope: 'crm', aud: `${services.gatewayUrl}/api/v3`, iss: services.authUrl, exp: 9999999999 })).toString('base64url')}.`;
      for (const token of ['garbage', 'a.b.c', unsigned]) {
        expectError(await getUser(null, a.user.id, { authorization: `Bearer ${token}` }), 401, 'invalid_access_token', 400);
      }
    });

    it('billing stopped by the operator: 402 trial_expired / subscription_canceled, then active again', async () => {
      const patch = (billing_status: string) => operator(`/operator/accounts/${c.account.id}`, { billing_status }, { method: 'PATCH' });
      expect((await patch('trial_expired')).status).toBe(200);
      expectError(await getUser(c, c.user.id), 402, 'trial_expired', 402);
      expect((await patch('subscription_canceled')).status).toBe(200);
      expectError(await getUser(c, c.user.id), 402, 'subscription_canceled', 402);
      // A wrong key is still a credentials error, not a billing one.
      expectError(await getUser(null, c.user.id, { authorization: basicAuth(c.user.id, 'wrong') }), 401, 'invalid_auth_token', 400);
      expectError(await patch('bankrupt'), 400, 'invalid_request_data');
      expect((await patch('active')).status).toBe(200);
      expectSuccess(await getUser(c, c.user.id));
      // Account A was never touched.
      expectSuccess(await getUser(a, a.user.id));
    });
  });

  describe('tenant isolation', () => {
    it("another account's user id is 404 resource_not_found (never 403), like an unknown id", async () => {
      const foreign = await getUser(a, b.user.id);
      expectError(foreign, 404, 'resource_not_found', 404);
      expect(foreign.body.errors).toEqual({});
      expectError(await getUser(a, `${b.user.id}.json`), 404, 'resource_not_found', 404);
      expectError(await getUser(b, a.user.id), 404, 'resource_not_found', 404);
      expectError(await getUser(b, secondUser!.user.id), 404, 'resource_not_found', 404);

      // Indistinguishable from an id that names nothing at all.
      const unknown = await getUser(a, randomBytes(12).toString('hex'));
      expectError(unknown, 404, 'resource_not_found', 404);
      expect(unknown.body).toEqual(foreign.body);
      expectError(await getUser(a, 'not-an-id'), 404, 'resource_not_found', 404);
      expectError(await getUser(a, 'f'.repeat(200)), 404, 'resource_not_found', 404);
    });
  });

  describe('routing and request errors', () => {
    it('an unknown route is 404 resource_not_found, with or without credentials', async () => {
      for (const path of ['/api/v3/nope', '/api/v3/nope.json', `/api/v3/users/${a.user.id}/extra`, '/api/v2/users', '/nope']) {
        expectError(await gw(path), 404, 'resource_not_found', 404);
        expectError(await gw(path, { headers: asUser(a) }), 404, 'resource_not_found', 404);
      }
    });

    it('HEAD on a GET route answers like GET, without a body', async () => {
      const res = await fetch(`${services.gatewayUrl}/api/v3/users/${a.user.id}`, { method: 'HEAD', headers: asUser(a) });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.text()).toBe('');
    });

    it('a known path with a wrong method is 405 method_not_allowed with an Allow header, even without credentials', async () => {
      const cases: Array<[string, string, string]> = [
        ['DELETE', `/api/v3/users/${a.user.id}`, 'GET, PUT'],
        ['PATCH', `/api/v3/users/${a.user.id}.json`, 'GET, PUT'],
        ['POST', '/api/v3/users', 'GET'],
        ['GET', '/api/v3/change_auth_key', 'POST'],
      ];
      for (const [method, path, allow] of cases) {
        for (const headers of [{}, asUser(a)]) {
          const res = await gw(path, { method, headers });
          expectError(res, 405, 'method_not_allowed', 405);
          expect(res.headers.get('allow')).toBe(allow);
        }
      }
    });

    it('malformed JSON is 400 invalid_request_data and changes nothing', async () => {
      const res = await gw('/api/v3/change_auth_key', {
        method: 'POST',
        headers: { ...asUser(c), 'content-type': 'application/json' },
        body: '{"oops": ',
      });
      expectError(res, 400, 'invalid_request_data');
      expect(res.body.errors).toHaveProperty('body');
      expectSuccess(await getUser(c, c.user.id));
    });

    it('a JSON body that is not an object is 400 invalid_request_data naming body', async () => {
      for (const body of ['[1,2]', '42', '"text"']) {
        const res = await gw('/api/v3/change_auth_key', {
          method: 'POST',
          headers: { ...asUser(c), 'content-type': 'application/json' },
          body,
        });
        expectError(res, 400, 'invalid_request_data');
        expect(res.body.errors).toHaveProperty('body');
      }
      expectSuccess(await getUser(c, c.user.id));
    });

    it('a body over 1 MiB is 400 invalid_request_data (decisions.md), a body just under it is accepted', async () => {
      const json = (size: number) => {
        const shell = '{"pad":""}';
        return `{"pad":"${'x'.repeat(size - shell.length)}"}`;
      };
      const over = json(1024 * 1024 + 1);
      expect(Buffer.byteLength(over)).toBe(1024 * 1024 + 1);
      const res = await gw('/api/v3/change_auth_key', {
        method: 'POST',
        headers: { ...asUser(c), 'content-type': 'application/json' },
        body: over,
      });
      expectError(res, 400, 'invalid_request_data');
      expectSuccess(await getUser(c, c.user.id));

      // Just under the limit the body is read; without credentials the answer is then the 401.
      const under = await gw('/api/v3/change_auth_key', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: json(1024 * 1024 - 16),
      });
      expectError(under, 401, 'authorization_data_not_found', 401);
    });

    it('a revoked API key (POST /change_auth_key) is 401 invalid_auth_token; the new key works', async () => {
      const res = await gw('/api/v3/change_auth_key', { method: 'POST', headers: asUser(c) });
      expectSuccess(res, 201);
      const newKey = (res.body.data as { auth_key: string }).auth_key;
      expect(newKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(newKey).not.toBe(c.user.api_key);
      expectError(await getUser(c, c.user.id), 401, 'invalid_auth_token', 400);
      expectSuccess(await getUser(null, c.user.id, asUser(c, newKey)));
      c = { ...c, user: { ...c.user, api_key: newKey } };
    });
  });

  describe('X-Request-Id', () => {
    it('echoes a safe request id on success and on errors', async () => {
      const id = `e2e-${randomBytes(6).toString('hex')}.1:A_b`;
      expect((await getUser(a, a.user.id, { 'x-request-id': id })).headers.get('x-request-id')).toBe(id);
      expect((await gw('/api/v3/nope', { headers: { 'x-request-id': id } })).headers.get('x-request-id')).toBe(id);
      expect((await getUser(null, a.user.id, { 'x-request-id': id })).headers.get('x-request-id')).toBe(id);
      const auth = await call(`${services.authUrl}/oauth/register`, { method: 'POST', headers: { 'x-request-id': id } });
      expect(auth.headers.get('x-request-id')).toBe(id);
    });

    it('generates one when none (or an unsafe one) is sent', async () => {
      const first = (await getUser(a, a.user.id)).headers.get('x-request-id');
      const second = (await gw('/api/v3/nope')).headers.get('x-request-id');
      expect(first).toMatch(UUID);
      expect(second).toMatch(UUID);
      expect(first).not.toBe(second);
      for (const unsafe of ['has space', 'x'.repeat(129), 'semi;colon', '<script>']) {
        const res = await getUser(a, a.user.id, { 'x-request-id': unsafe });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-request-id')).toMatch(UUID);
      }
    });
  });

  describe('health, readiness and metrics', () => {
    it('every process serves /healthz, /readyz, and Prometheus /metrics with its service label on its METRICS_PORT', async () => {
      expect(services.processes.map((p) => p.name).sort()).toEqual([
        'api-gateway',
        'auth-server',
        'crm-core-1',
        'crm-core-2',
        'webhook-dispatcher',
      ]);
      for (const p of services.processes) {
        const base = `http://127.0.0.1:${p.port}`;
        const health = await call(`${base}/healthz`);
        expect({ name: p.name, status: health.status, body: health.body }).toEqual({ name: p.name, status: 200, body: { status: 'ok' } });

        const ready = await call(`${base}/readyz`);
        expect({ name: p.name, status: ready.status, ready: ready.body.status }).toEqual({ name: p.name, status: 200, ready: 'ready' });
        const checks = ready.body.checks as Record<string, string>;
        expect(Object.keys(checks).length).toBeGreaterThan(0);
        for (const value of Object.values(checks)) expect(value).toBe('ok');

        const metrics = await call(`http://127.0.0.1:${p.metricsPort}/metrics`);
        expect(metrics.status).toBe(200);
        expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
        expect(metrics.text).toMatch(/^# HELP process_cpu_seconds_total /m);
        expect(metrics.text).toMatch(/^# TYPE process_cpu_seconds_total counter$/m);
        expect(metrics.text).toMatch(new RegExp(`^process_cpu_seconds_total\\{[^}]*service="${p.app}"[^}]*\\} [0-9.e+-]+$`, 'm'));
        expect(metrics.text).toMatch(/^nodejs_heap_size_used_bytes\{/m);
      }
    });

    it('readiness names what each service cannot work without (docs/decisions.md)', async () => {
      const checksOf = async (p: ServiceProcess) => Object.keys((await call(`http://127.0.0.1:${p.port}/readyz`)).body.checks as object);
      const byApp = (app: string) => services.processes.find((p) => p.app === app)!;
      expect(await checksOf(byApp('api-gateway'))).not.toContain('postgres');
      expect(await checksOf(byApp('api-gateway'))).not.toContain('redis');
      expect(await checksOf(byApp('auth-server'))).toEqual(expect.arrayContaining(['postgres', 'redis']));
      expect(await checksOf(byApp('crm-core'))).toContain('postgres');
      expect(await checksOf(byApp('webhook-dispatcher'))).toContain('postgres');
    });

    it('the gateway and auth-server count HTTP requests by route and status', async () => {
      await getUser(a, a.user.id);
      await getUser(null, a.user.id);
      const metricsOf = (app: string) => call(`http://127.0.0.1:${services.processes.find((p) => p.app === app)!.metricsPort}/metrics`);
      const gatewayMetrics = (await metricsOf('api-gateway')).text;
      expect(gatewayMetrics).toMatch(/^http_requests_total\{[^}]*method="GET"[^}]*route="getUser"[^}]*status="200"[^}]*\} [1-9]\d*$/m);
      expect(gatewayMetrics).toMatch(/^http_requests_total\{[^}]*route="getUser"[^}]*status="401"[^}]*\} [1-9]\d*$/m);
      expect(gatewayMetrics).toMatch(/^http_request_duration_seconds_bucket\{[^}]*route="getUser"/m);
      expect(gatewayMetrics).toMatch(/^nats_rpc_duration_seconds_count\{/m);

      const authMetrics = (await metricsOf('auth-server')).text;
      expect(authMetrics).toMatch(/^http_requests_total\{[^}]*route="\/operator\/accounts"[^}]*status="201"[^}]*\} [1-9]\d*$/m);
    });
  });

  describe('crm-core replicas', () => {
    const getOnce = () => getUser(a, a.user.id);

    it('two replicas answer many requests', async () => {
      expect(crmCores()).toHaveLength(2);
      const results = await Promise.all(Array.from({ length: 60 }, getOnce));
      expect(results.map((r) => r.status)).toEqual(Array(60).fill(200));
      for (const r of results) expect((r.body.data as { user: { id: string } }).user.id).toBe(a.user.id);
    });

    it('SIGTERM on one replica: it exits 0 and requests keep succeeding through the other', async () => {
      const [first] = crmCores();
      const statuses: number[] = [];
      let stopping = true;
      const load = (async () => {
        while (stopping) {
          const batch = await Promise.all(Array.from({ length: 5 }, getOnce));
          statuses.push(...batch.map((r) => r.status));
        }
      })();
      // The load is under way (some answers in) before the replica is stopped.
      const loadDeadline = Date.now() + 20_000;
      while (statuses.length < 10 && Date.now() < loadDeadline) await new Promise((r) => setTimeout(r, 20));
      const code = await first.stop('SIGTERM');
      stopping = false;
      await load;
      expect(code).toBe(0);
      expect(await first.exited).toBe(0);
      expect(statuses.length).toBeGreaterThan(0);
      expect(statuses.filter((s) => s !== 200)).toEqual([]);

      await expect(fetch(`http://127.0.0.1:${first.port}/healthz`, { signal: AbortSignal.timeout(3000) })).rejects.toThrow();
      const after = await Promise.all(Array.from({ length: 30 }, getOnce));
      expect(after.map((r) => r.status)).toEqual(Array(30).fill(200));
    });

    it('with no replica left the API answers 503 service_unavailable, with Retry-After', async () => {
      const [, second] = crmCores();
      expect(await second.stop('SIGTERM')).toBe(0);

      const res = await call(`${services.gatewayUrl}/api/v3/users/${a.user.id}`, { headers: asUser(a) });
      expectError(res, 503, 'service_unavailable', 503);
      expect(res.headers.get('retry-after')).toBe('1');

      // Route errors and authentication do not need crm-core.
      expectError(await gw('/api/v3/nope'), 404, 'resource_not_found', 404);
      expectError(await getUser(null, a.user.id, { authorization: basicAuth(a.user.id, 'wrong') }), 401, 'invalid_auth_token', 400);
      expect((await call(`${services.gatewayUrl}/healthz`)).status).toBe(200);

      // The operator's account saga cannot finish without crm-core: 503, never a usable half account.
      const email = `late-${randomBytes(4).toString('hex')}@example.test`;
      const op = await operator('/operator/accounts', {
        name: 'Late Co',
        admin: { first_name: 'L', last_name: 'Ate', email, password: 'a long enough password' },
      });
      expectError(op, 503, 'service_unavailable', 503);
    });
  });

  describe('shutdown', () => {
    it('stopAll: every process exits 0 after SIGTERM', async () => {
      const codes = await services.stopAll();
      expect(codes.map((entry) => entry.name).sort()).toEqual([
        'api-gateway',
        'auth-server',
        'crm-core-1',
        'crm-core-2',
        'webhook-dispatcher',
      ]);
      expect(codes.filter((entry) => entry.code !== 0)).toEqual([]);
      for (const p of services.processes) expect(await p.exited).toBe(0);
    });

    it('no log line of the whole run holds an API key, password, the operator token or the pepper', () => {
      const logs = services.processes.map((p) => readFileSync(p.logFile, 'utf8')).join('\n');
      expect(logs).toContain('"request_id"');
      const secrets = [a, b, c]
        .map((x) => x.user.api_key)
        .concat(services.operatorToken, services.apiKeyPepper, DEFAULT_TEST_PASSWORD, 'a long enough password', 'another long password');
      for (const secret of secrets) expect(logs.includes(secret)).toBe(false);
    });
  });
});
