import { API_ROUTES, Subjects, type RouteDeclaration } from '@crm/contracts';
import { basicAuth } from '@crm/testing';
import fc from 'fast-check';
import { setupE2e } from './setup';

/**
 * Property-based fuzzing of every API route through the gateway: random path ids, query strings,
 * bodies (JSON of any shape, broken JSON, huge and unicode strings), content types and headers.
 * Properties: no 5xx, every JSON answer is exactly the success or the error envelope, no stack
 * trace, and nothing of another account ever shows. Fixed seed and bounded runs in CI
 * (FUZZ_SEED, FUZZ_RUNS override them).
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261123);
const RUNS = Number(process.env.FUZZ_RUNS ?? 20);
const ERROR_KEYS = ['error_message', 'error_name', 'errors', 'message', 'status'];
const SUCCESS_KEYS = new Set([
  'status',
  'message',
  'timestamp',
  'data',
  'lead_sources',
  'statuses',
  'tags',
  'contacts_count',
  'team_stream',
]);

/** POST /change_auth_key would revoke the fuzzing credentials; it has its own tests. */
const FUZZED_ROUTES = API_ROUTES.filter((r) => r.subject !== Subjects.ApiKeyRotate);

describe('fuzzing every route (e2e, fast-check)', () => {
  const { services, admin: victim, stranger: attacker } = setupE2e({ services: { crmCoreReplicas: 1 }, stranger: true });
  const secrets: string[] = [];

  beforeAll(async () => {
    const field = await fetch(`${services.gatewayUrl}/api/v3/custom_fields`, {
      method: 'POST',
      headers: { authorization: basicAuth(victim.user.id, victim.user.api_key), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'VictimSecretFieldName', type: 'select_box', choices: ['VictimChoice'] }),
    });
    expect(field.status).toBe(201);
    const victimFieldId = (await field.json()).data.custom_field.id as string;
    secrets.push(
      victim.account.id,
      victim.user.id,
      victim.user.email,
      victim.user.api_key,
      victimFieldId,
      'VictimSecretFieldName',
      'VictimChoice',
    );
  });

  const idLike = () =>
    fc.oneof(
      fc.constantFrom(...secrets.slice(0, 2), secrets[4]),
      fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 24, maxLength: 24 }),
      fc.string({ maxLength: 40 }),
      fc.string({ unit: 'grapheme', maxLength: 20 }),
      fc.constantFrom('0', '-1', '..', '%00', 'null', 'undefined', '1e309', ' ', 'a'.repeat(3000)),
    );
  const queryValue = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.integer().map(String),
    fc.constantFrom('true', 'FALSE', '0', '1', '', '-5', '101', 'desc', 'asc', 'created_at', 'text', '2024-02-30', '9999999999999'),
  );
  const queryKey = fc.oneof(
    fc.constantFrom(
      'page',
      'per_page',
      'sort_by',
      'order',
      'type',
      'partial',
      'since',
      'until',
      'date_filter',
      'modified_since',
      'user_id',
    ),
    fc.string({ maxLength: 12 }),
  );
  const jsonBody = fc.oneof(
    fc.jsonValue({ maxDepth: 4 }),
    fc.dictionary(
      fc.constantFrom('name', 'type', 'choices', 'position', 'variants', 'id', 'account_id', 'user_id', '__proto__', 'constructor'),
      fc.jsonValue({ maxDepth: 3 }),
    ),
    fc.record({
      name: fc.string({ unit: 'grapheme', maxLength: 300 }),
      type: fc.constantFrom('text', 'number', 'date', 'checkbox', 'select_box', 'multiple_choice', 'TEXT', 'bogus'),
      choices: fc.array(fc.string({ maxLength: 20 }), { maxLength: 5 }),
    }),
  );
  const rawBody = fc.oneof(
    jsonBody.map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 200 }),
    fc.constantFrom(
      '{',
      '{"a":',
      '[1,2',
      '\u0000',
      '{"name": "\ud800"}',
      'x'.repeat(70_000),
      `{"n":${'['.repeat(5000)}${']'.repeat(5000)}}`,
    ),
  );
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    undefined,
  );

  function request(route: RouteDeclaration) {
    const names = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
    return fc.record({
      params: fc.tuple(...names.map(() => idLike())),
      query: fc.dictionary(queryKey, queryValue, { maxKeys: 4 }),
      body: route.method === 'GET' ? fc.constant(undefined) : fc.option(rawBody, { nil: undefined }),
      contentType,
      suffix: fc.boolean(),
      idempotencyKey: fc.option(fc.string({ maxLength: 40 }), { nil: undefined }),
    });
  }

  it.each(FUZZED_ROUTES.map((r) => [`${r.method} ${r.path}`, r] as const))('%s holds', async (_name, route) => {
    await fc.assert(
      fc.asyncProperty(request(route), async ({ params, query, body, contentType: type, suffix, idempotencyKey }) => {
        let i = 0;
        let path = route.path.replace(/\{\w+\}/g, () => encodeURIComponent(params[i++]));
        if (suffix) path += '.json';
        const url = new URL(`${services.gatewayUrl}/api/v3${path}`);
        for (const [k, v] of Object.entries(query)) url.searchParams.append(k, v);
        const headers: Record<string, string> = { authorization: basicAuth(attacker.user.id, attacker.user.api_key) };
        if (type) headers['content-type'] = type;
        if (idempotencyKey !== undefined && /^[\x20-\x7e]*$/.test(idempotencyKey)) headers['idempotency-key'] = idempotencyKey;
        const res = await fetch(url, { method: route.method, headers, body });
        const text = await res.text();
        expect(res.status).toBeLessThan(500);
        expect(text).not.toMatch(/\n[ \t]+at .+:\d+:\d+/);
        for (const secret of secrets) expect(text).not.toContain(secret);
        if ((res.headers.get('content-type') ?? '').includes('json')) {
          const json = JSON.parse(text) as Record<string, unknown>;
          if (json.status === 0) {
            for (const key of Object.keys(json)) expect(SUCCESS_KEYS.has(key)).toBe(true);
          } else {
            expect(Object.keys(json).sort()).toEqual(ERROR_KEYS);
            expect(typeof json.error_name).toBe('string');
          }
        } else {
          expect([403, 429]).toContain(res.status);
        }
      }),
      { seed: SEED, numRuns: RUNS, endOnFailure: true },
    );
  });

  it('the attacker could read its own data all along (the properties did not pass by failing everything)', async () => {
    const res = await fetch(`${services.gatewayUrl}/api/v3/users/${attacker.user.id}`, {
      headers: { authorization: basicAuth(attacker.user.id, attacker.user.api_key) },
    });
    expect(res.status).toBe(200);
    const victimView = await fetch(`${services.gatewayUrl}/api/v3/custom_fields`, {
      headers: { authorization: basicAuth(victim.user.id, victim.user.api_key) },
    });
    expect((await victimView.json()).data.custom_fields).toHaveLength(1);
  });
});
