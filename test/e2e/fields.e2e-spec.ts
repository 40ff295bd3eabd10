import { api, basicAuth, createAccount, createUser as createTestUser, type ApiResponse, type CreatedAccount } from '@crm/testing';
import { randomBytes } from 'node:crypto';
import { setupE2e } from './setup';

/**
 * Contact custom fields, company fields and deal fields over HTTP only: the CRUD of each set,
 * sorting, filtering and paging, every bad input, admin-only writes, tenant isolation, the
 * `.json` suffix and the OpenAPI document. One set of services for the whole file.
 */
describe('Custom, company and deal fields (e2e)', () => {
  /** a: the admin of account A, the main caller; b: account B, another tenant. */
  const { services, admin: a, stranger: b } = setupE2e({ admin: { name: 'Alpha Fields' }, stranger: { name: 'Beta Fields' } });
  /** A non-admin user of account A. */
  let aUser: CreatedAccount;

  const SETS = [
    { set: 'custom_fields', item: 'custom_field' },
    { set: 'company_fields', item: 'company_field' },
    { set: 'deal_fields', item: 'deal_field' },
  ] as const;
  const HEX_ID = /^[0-9a-f]{24}$/;
  const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$/;
  const SUCCESS_KEYS = ['data', 'message', 'status', 'timestamp'];
  const ERROR_KEYS = ['error_message', 'error_name', 'errors', 'message', 'status'];

  type Body = Record<string, unknown>;
  type Field = { id: string; name: string; type: string; position: number; choices?: string[]; created_at: string; modified_at: string };
  type Call = (method: string, pathname: string, body?: unknown, headers?: Record<string, string>) => Promise<ApiResponse<Body>>;

  let asA: Call;
  let asUser: Call;
  let asB: Call;

  function ok(res: ApiResponse<Body>, http = 200): Body {
    if (res.status !== http) throw new Error(`expected ${http}, got ${res.status}: ${res.text}`);
    expect(Object.keys(res.body).sort()).toEqual(SUCCESS_KEYS);
    expect(res.body).toMatchObject({ status: 0, message: 'OK' });
    return res.body.data as Body;
  }

  function fails(res: ApiResponse<Body>, http: number, errorName: string, errorKeys?: string[]): Body {
    expect({ http: res.status, error_name: res.body.error_name }).toEqual({ http, error_name: errorName });
    expect(Object.keys(res.body).sort()).toEqual(ERROR_KEYS);
    expect(res.body.status).toBe(http);
    if (errorKeys) expect(Object.keys(res.body.errors as Body).sort()).toEqual([...errorKeys].sort());
    return res.body.errors as Body;
  }

  function expectField(field: Field, expected: Partial<Field>): void {
    const keys = ['created_at', 'id', 'modified_at', 'name', 'position', 'type', ...('choices' in expected ? ['choices'] : [])].sort();
    expect(Object.keys(field).sort()).toEqual(keys);
    expect(field.id).toMatch(HEX_ID);
    expect(field.created_at).toMatch(ISO_UTC);
    expect(field.modified_at).toMatch(ISO_UTC);
    expect(field).toMatchObject(expected);
  }

  const createUser = (account: CreatedAccount, role: 'admin' | 'user'): Promise<CreatedAccount> =>
    createTestUser(services, account, { role, password: 'another long password' });

  beforeAll(async () => {
    aUser = await createUser(a, 'user');
    asA = api(services, a) as Call;
    asUser = api(services, aUser) as Call;
    asB = api(services, b) as Call;
  });

  describe.each(SETS)('$set', ({ set, item }) => {
    it('creates, reads, lists, replaces, patches and deletes', async () => {
      const text = ok(await asA('POST', `/${set}`, { name: '  Notes  ', type: 'text' }), 201)[item] as Field;
      expectField(text, { name: 'Notes', type: 'text', position: 1 });
      expect(text.modified_at).toBe(text.created_at);
      const size = ok(await asA('POST', `/${set}.json`, { name: 'Size', type: 'select_box', choices: ['S', 'M'] }), 201)[item] as Field;
      expectField(size, { name: 'Size', type: 'select_box', position: 2, choices: ['S', 'M'] });
      const tags = ok(
        await asA('POST', `/${set}`, { name: 'Channels', type: 'multiple_choice', choices: ['Email', 'Phone'], position: 10 }),
        201,
      )[item] as Field;
      expectField(tags, { type: 'multiple_choice', position: 10, choices: ['Email', 'Phone'] });

      // GET one, with and without .json, and with the id in upper case
      expect(ok(await asA('GET', `/${set}/${size.id}`))).toEqual({ [item]: size });
      expect(ok(await asA('GET', `/${set}/${size.id}.json`))).toEqual({ [item]: size });
      expect(ok(await asA('GET', `/${set}/${size.id.toUpperCase()}`))).toEqual({ [item]: size });

      // list: default order by position, paging fields, .json suffix, readable by a plain user
      const list = ok(await asA('GET', `/${set}`));
      expect(Object.keys(list).sort()).toEqual(['max_page', 'page', 'per_page', 'total_count', set].sort());
      expect(list).toMatchObject({ total_count: 3, page: 1, per_page: 10, max_page: 1 });
      expect(list[set]).toEqual([{ [item]: text }, { [item]: size }, { [item]: tags }]);
      expect(ok(await asA('GET', `/${set}.json`))).toEqual(list);
      expect(ok(await asUser('GET', `/${set}`))).toEqual(list);
      expect(ok(await asUser('GET', `/${set}/${text.id}`))).toEqual({ [item]: text });

      // PUT replaces: position kept when absent, the current type may be echoed
      await new Promise((r) => setTimeout(r, 5));
      const put = ok(await asA('PUT', `/${set}/${size.id}`, { name: 'T-shirt size', type: 'select_box', choices: ['S', 'M', 'L'] }))[
        item
      ] as Field;
      expectField(put, { id: size.id, name: 'T-shirt size', position: 2, choices: ['S', 'M', 'L'], created_at: size.created_at });
      expect(put.modified_at > size.modified_at).toBe(true);
      // PUT with partial=true and PATCH change only the fields sent
      const partial = ok(await asA('PUT', `/${set}/${size.id}?partial=true`, { position: 5 }))[item] as Field;
      expect(partial).toMatchObject({ name: 'T-shirt size', position: 5, choices: ['S', 'M', 'L'] });
      const patched = ok(await asA('PATCH', `/${set}/${tags.id}.json`, { choices: ['Email', 'Phone', 'Post'] }))[item] as Field;
      expect(patched).toMatchObject({ name: 'Channels', position: 10, choices: ['Email', 'Phone', 'Post'] });
      const renamed = ok(await asA('PATCH', `/${set}/${text.id}`, { name: 'Remarks' }))[item] as Field;
      expectField(renamed, { name: 'Remarks', type: 'text', position: 1 });
      expect(ok(await asA('GET', `/${set}/${tags.id}`))).toEqual({ [item]: patched });

      // DELETE answers data {}; the field is gone
      expect(ok(await asA('DELETE', `/${set}/${text.id}`))).toEqual({});
      fails(await asA('GET', `/${set}/${text.id}`), 404, 'resource_not_found');
      fails(await asA('DELETE', `/${set}/${text.id}.json`), 404, 'resource_not_found');
      expect(ok(await asA('DELETE', `/${set}/${size.id}.json`))).toEqual({});
      expect(ok(await asA('GET', `/${set}`))).toMatchObject({ total_count: 1, [set]: [{ [item]: patched }] });
    });

    it('refuses bad input with 400 keyed by field', async () => {
      fails(await asA('POST', `/${set}`, {}), 400, 'invalid_request_data', ['name', 'type']);
      fails(await asA('POST', `/${set}`, { name: '   ', type: 'text' }), 400, 'invalid_request_data', ['name']);
      fails(await asA('POST', `/${set}`, { name: 'x'.repeat(101), type: 'text' }), 400, 'invalid_request_data', ['name']);
      fails(await asA('POST', `/${set}`, { name: 7, type: 'text' }), 400, 'invalid_request_data', ['name']);
      fails(await asA('POST', `/${set}`, { name: 'Colour', type: 'colour' }), 400, 'invalid_request_data', ['type']);
      fails(await asA('POST', `/${set}`, { name: 'Colour', type: 'select_box' }), 400, 'invalid_request_data', ['choices']);
      fails(await asA('POST', `/${set}`, { name: 'Colour', type: 'multiple_choice', choices: [] }), 400, 'invalid_request_data', [
        'choices',
      ]);
      fails(await asA('POST', `/${set}`, { name: 'Colour', type: 'select_box', choices: ['Red', 'red'] }), 400, 'invalid_request_data', [
        'choices',
      ]);
      fails(await asA('POST', `/${set}`, { name: 'Colour', type: 'select_box', choices: 'Red' }), 400, 'invalid_request_data', ['choices']);
      fails(await asA('POST', `/${set}`, { name: 'Colour', type: 'select_box', choices: ['Red', 3] }), 400, 'invalid_request_data', [
        'choices',
      ]);
      for (const type of ['text', 'number', 'date', 'checkbox']) {
        fails(await asA('POST', `/${set}`, { name: 'Colour', type, choices: ['Red'] }), 400, 'invalid_request_data', ['choices']);
      }
      for (const position of [-1, 1.5, '2', 1_000_001]) {
        fails(await asA('POST', `/${set}`, { name: 'Colour', type: 'text', position }), 400, 'invalid_request_data', ['position']);
      }
      fails(await asA('POST', `/${set}`, '{"name": "broken"'), 400, 'invalid_request_data');
      fails(await asA('POST', `/${set}`, [{ name: 'A', type: 'text' }]), 400, 'invalid_request_data', ['body']);

      // duplicate names, any letter case, on create and on rename
      const region = ok(await asA('POST', `/${set}`, { name: 'Region', type: 'text', ignored_field: true }), 201)[item] as Field;
      expect(region).not.toHaveProperty('ignored_field');
      fails(await asA('POST', `/${set}`, { name: 'REGION', type: 'number' }), 400, 'duplicated_entity');
      const area = ok(await asA('POST', `/${set}`, { name: 'Area', type: 'date' }), 201)[item] as Field;
      fails(await asA('PATCH', `/${set}/${area.id}`, { name: 'region' }), 400, 'duplicated_entity');
      fails(await asA('PUT', `/${set}/${area.id}`, { name: ' Region ' }), 400, 'duplicated_entity');

      // the type never changes; PUT needs a name; a choice type needs its choices
      fails(await asA('PATCH', `/${set}/${area.id}`, { type: 'text' }), 400, 'invalid_request_data', ['type']);
      fails(await asA('PUT', `/${set}/${area.id}?partial=1`, { type: 'number' }), 400, 'invalid_request_data', ['type']);
      fails(await asA('PUT', `/${set}/${area.id}`, { type: 'date' }), 400, 'invalid_request_data', ['name']);
      fails(await asA('PUT', `/${set}/${area.id}?partial=maybe`, { name: 'X' }), 400, 'invalid_request_data', ['partial']);
      fails(await asA('PATCH', `/${set}/${area.id}`, { name: null }), 400, 'invalid_request_data', ['name']);
      fails(await asA('PATCH', `/${set}/${area.id}`, { choices: ['a'] }), 400, 'invalid_request_data', ['choices']);
      const pick = ok(await asA('POST', `/${set}`, { name: 'Pick', type: 'select_box', choices: ['a'] }), 201)[item] as Field;
      fails(await asA('PUT', `/${set}/${pick.id}`, { name: 'Pick' }), 400, 'invalid_request_data', ['choices']);
      fails(await asA('PATCH', `/${set}/${pick.id}`, { choices: null }), 400, 'invalid_request_data', ['choices']);
      expect(ok(await asA('GET', `/${set}/${pick.id}`))).toEqual({ [item]: pick });

      // unknown, malformed and wrong-set ids
      const other = SETS.find((s) => s.set !== set)!.set;
      const foreign = ok(await asA('POST', `/${other}`, { name: `Other ${randomBytes(3).toString('hex')}`, type: 'text' }), 201);
      const foreignId = (Object.values(foreign)[0] as Field).id;
      for (const id of ['0123456789abcdef01234567', 'not-an-id', '0123456789abcdef0123456z', foreignId]) {
        fails(await asA('GET', `/${set}/${id}`), 404, 'resource_not_found');
        fails(await asA('PUT', `/${set}/${id}`, { name: 'X' }), 404, 'resource_not_found');
        fails(await asA('PATCH', `/${set}/${id}`, { name: 'X' }), 404, 'resource_not_found');
        fails(await asA('DELETE', `/${set}/${id}`), 404, 'resource_not_found');
      }
      expect(ok(await asA('DELETE', `/${other}/${foreignId}`))).toEqual({});

      // list parameters
      fails(await asA('GET', `/${set}?sort_by=name`), 400, 'invalid_request_data', ['sort_by']);
      fails(await asA('GET', `/${set}?order=sideways`), 400, 'invalid_request_data', ['order']);
      fails(await asA('GET', `/${set}?type=colour`), 400, 'invalid_request_data', ['type']);
      fails(await asA('GET', `/${set}?page=0`), 400, 'invalid_request_data', ['page']);
      fails(await asA('GET', `/${set}?per_page=abc`), 400, 'invalid_request_data', ['per_page']);
      expect(ok(await asA('GET', `/${set}?per_page=500`))).toMatchObject({ per_page: 100 });
    });

    it('lets only admins write', async () => {
      const field = ok(await asA('POST', `/${set}`, { name: 'Admin only', type: 'checkbox' }), 201)[item] as Field;
      fails(await asUser('POST', `/${set}`, { name: 'Mine', type: 'text' }), 403, 'no_permission_to_complete_action');
      fails(await asUser('PUT', `/${set}/${field.id}`, { name: 'Mine' }), 403, 'no_permission_to_complete_action');
      fails(await asUser('PATCH', `/${set}/${field.id}`, { name: 'Mine' }), 403, 'no_permission_to_complete_action');
      fails(await asUser('DELETE', `/${set}/${field.id}`), 403, 'no_permission_to_complete_action');
      expect(ok(await asUser('GET', `/${set}/${field.id}`))).toEqual({ [item]: field });
      // a second admin of the account may write
      const admin2 = api(services, await createUser(a, 'admin')) as Call;
      expect(ok(await admin2('PATCH', `/${set}/${field.id}`, { position: 42 }))[item]).toMatchObject({ position: 42 });
    });

    it("never shows another account's fields", async () => {
      const field = ok(await asA('POST', `/${set}`, { name: 'Private', type: 'number' }), 201)[item] as Field;
      for (const suffix of ['', '.json']) {
        fails(await asB('GET', `/${set}/${field.id}${suffix}`), 404, 'resource_not_found');
        fails(await asB('PUT', `/${set}/${field.id}${suffix}`, { name: 'Stolen' }), 404, 'resource_not_found');
        fails(await asB('PUT', `/${set}/${field.id}${suffix}?partial=true`, { name: 'Stolen' }), 404, 'resource_not_found');
        fails(await asB('PATCH', `/${set}/${field.id}${suffix}`, { name: 'Stolen' }), 404, 'resource_not_found');
        fails(await asB('DELETE', `/${set}/${field.id}${suffix}`), 404, 'resource_not_found');
      }
      const bList = ok(await asB('GET', `/${set}?per_page=100`));
      expect((bList[set] as Body[]).map((e) => (e[item] as Field).id)).not.toContain(field.id);
      // B may use the same name in its own account
      ok(await asB('POST', `/${set}`, { name: 'Private', type: 'number' }), 201);
      expect(ok(await asA('GET', `/${set}/${field.id}`))).toEqual({ [item]: field });
    });
  });

  it('sorts, filters by type and pages', async () => {
    const c = await createAccount(services, { name: 'Gamma Fields' });
    const asC = api(services, c) as Call;
    const created: Field[] = [];
    for (let i = 0; i < 12; i += 1) {
      const type = i % 3 === 0 ? 'number' : 'text';
      created.push(ok(await asC('POST', '/deal_fields', { name: `F${i}`, type, position: 100 - i }), 201).deal_field as Field);
    }
    const names = (data: Body) => (data.deal_fields as Body[]).map((e) => (e.deal_field as Field).name);
    expect(names(ok(await asC('GET', '/deal_fields?per_page=3')))).toEqual(['F11', 'F10', 'F9']);
    const page3 = ok(await asC('GET', '/deal_fields.json?per_page=5&page=3'));
    expect(page3).toMatchObject({ total_count: 12, page: 3, per_page: 5, max_page: 3 });
    expect(names(page3)).toEqual(['F1', 'F0']);
    const past = ok(await asC('GET', '/deal_fields?per_page=5&page=9'));
    expect(past).toMatchObject({ total_count: 12, page: 9, per_page: 5, max_page: 3, deal_fields: [] });
    expect(names(ok(await asC('GET', '/deal_fields?sort_by=position&order=desc&per_page=2')))).toEqual(['F0', 'F1']);
    expect(names(ok(await asC('GET', '/deal_fields?sort_by=created_at&per_page=2')))).toEqual(['F0', 'F1']);
    expect(names(ok(await asC('GET', '/deal_fields?sort_by=created_at&order=DESC&per_page=2')))).toEqual(['F11', 'F10']);
    await new Promise((r) => setTimeout(r, 5));
    ok(await asC('PATCH', `/deal_fields/${created[4].id}`, { name: 'F4b' }));
    expect(names(ok(await asC('GET', '/deal_fields?sort_by=modified_at&order=desc&per_page=1')))).toEqual(['F4b']);
    expect(names(ok(await asC('GET', '/deal_fields?sort_by=modified_at&per_page=12'))).at(-1)).toBe('F4b');
    const numbers = ok(await asC('GET', '/deal_fields?type=number'));
    expect(names(numbers)).toEqual(['F9', 'F6', 'F3', 'F0']);
    expect(numbers).toMatchObject({ total_count: 4, page: 1, per_page: 10, max_page: 1 });
    expect(ok(await asC('GET', '/deal_fields?type=date'))).toMatchObject({ total_count: 0, max_page: 0, deal_fields: [] });
    // the other sets of the account are untouched
    expect(ok(await asC('GET', '/custom_fields'))).toEqual({ custom_fields: [], total_count: 0, page: 1, per_page: 10, max_page: 0 });
    expect(ok(await asC('GET', '/company_fields'))).toMatchObject({ company_fields: [], total_count: 0 });
  });

  it('needs credentials and answers 405 for a wrong method', async () => {
    const anonymous = api(services) as Call;
    fails(await anonymous('GET', '/custom_fields'), 401, 'authorization_data_not_found');
    const bad = await anonymous('GET', '/company_fields', undefined, { authorization: basicAuth(a.user.id, 'wrong-key') });
    expect({ http: bad.status, error_name: bad.body.error_name }).toEqual({ http: 401, error_name: 'invalid_auth_token' });
    fails(await asA('PUT', '/deal_fields', { name: 'X' }), 405, 'method_not_allowed');
    fails(await asA('POST', '/deal_fields/0123456789abcdef01234567', { name: 'X' }), 405, 'method_not_allowed');
  });

  it('documents every field route in the OpenAPI document', async () => {
    const res = await fetch(`${services.gatewayUrl}/api/v3/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as {
      paths: Record<string, Record<string, { operationId: string; parameters: Array<{ name: string; in: string; $ref?: string }> }>>;
      components: { parameters: Record<string, { name: string; in: string }> };
    };
    // Shared header parameters (X-Request-Id, If-None-Match) are components referenced by $ref.
    const resolve = (p: { name: string; in: string; $ref?: string }) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()!] : p);
    for (const { set, item } of SETS) {
      const record = `/${set}/{${item}_id}`;
      expect(Object.keys(doc.paths[`/${set}`] ?? {}).sort()).toEqual(['get', 'post']);
      expect(Object.keys(doc.paths[record] ?? {}).sort()).toEqual(['delete', 'get', 'patch', 'put']);
      expect(doc.paths[record].get.parameters).toContainEqual(expect.objectContaining({ name: `${item}_id`, in: 'path' }));
      const listParameters = doc.paths[`/${set}`].get.parameters.map(resolve).filter((p) => p.in === 'query');
      expect(listParameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
        'query:date_filter',
        'query:modified_since',
        'query:order',
        'query:page',
        'query:per_page',
        'query:since',
        'query:sort_by',
        'query:type',
        'query:unmodified_since',
        'query:until',
      ]);
    }
    const ids = Object.values(doc.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(ids).toEqual(
      expect.arrayContaining([
        'listCustomFields',
        'createCustomField',
        'getCustomField',
        'updateCustomField',
        'patchCustomField',
        'deleteCustomField',
        'listCompanyFields',
        'deleteCompanyField',
        'listDealFields',
        'patchDealField',
      ]),
    );
  });
});
