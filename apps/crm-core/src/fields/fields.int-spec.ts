import 'reflect-metadata';
import { newId } from '@crm/common';
import {
  CreateFieldRequest,
  FIELD_REQUESTS,
  FIELD_SETS,
  ListFieldsRequest,
  parseContract,
  type Caller,
  type FieldDto,
  type FieldSet,
  type ProvisionAccountMessage,
} from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createTestDatabase, type TestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { FieldsRepository } from './fields.repository';
import { FieldsService } from './fields.service';

function provisionMessage(name: string): ProvisionAccountMessage {
  return {
    account: { id: newId(), name, region: 'us' },
    admin: {
      id: newId(),
      first_name: 'Ada',
      last_name: name,
      email: `${name.toLowerCase()}-${newId()}@example.test`,
      role: 'admin',
      account_rights: [],
      permissions: [],
    },
  };
}

const adminOf = (m: ProvisionAccountMessage): Caller => ({
  account_id: m.account.id,
  user_id: m.admin.id,
  role: 'admin',
  auth_method: 'api_key',
  scopes: ['crm'],
});
const userOf = (m: ProvisionAccountMessage): Caller => ({ ...adminOf(m), user_id: newId(), role: 'user' });

type AnyReply = Record<string, unknown>;
const itemOf = (set: FieldSet) => set.slice(0, -1);
const fieldOf = (set: FieldSet, reply: unknown): FieldDto => (reply as Record<string, FieldDto>)[itemOf(set)];

/** The service with raw payloads parsed into each set's request classes first, as the handlers' @ValidRequest() does. */
function parsedCalls(service: FieldsService) {
  return {
    list: async <S extends FieldSet>(set: S, caller: Caller, payload: object) =>
      service.list(set, caller, parseContract(ListFieldsRequest, payload)),
    get: async <S extends FieldSet>(set: S, caller: Caller, payload: object) =>
      service.get(set, caller, parseContract(FIELD_REQUESTS[set].id, payload)),
    create: async <S extends FieldSet>(set: S, caller: Caller, payload: object) =>
      service.create(set, caller, parseContract(CreateFieldRequest, payload)),
    update: async <S extends FieldSet>(set: S, caller: Caller, payload: object) =>
      service.update(set, caller, parseContract(FIELD_REQUESTS[set].update, payload)),
    patch: async <S extends FieldSet>(set: S, caller: Caller, payload: object) =>
      service.patch(set, caller, parseContract(FIELD_REQUESTS[set].patch, payload)),
    delete: async (set: FieldSet, caller: Caller, payload: object) =>
      service.delete(set, caller, parseContract(FIELD_REQUESTS[set].id, payload)),
    all: (set: FieldSet, accountId: string) => service.all(set, accountId),
  };
}

describe('crm-core fields (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let accounts: AccountsService;
  let fields: ReturnType<typeof parsedCalls>;

  beforeAll(async () => {
    db = await createTestDatabase('crm_fields');
    const config = Object.assign(new CrmCoreConfig(), { DATABASE_URL: db.url });
    dataSource = crmDataSource(config);
    await runMigrations(dataSource);
    accounts = new AccountsService(dataSource, new AccountsRepository(), config);
    fields = parsedCalls(new FieldsService(dataSource, new FieldsRepository()));
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  async function newAccount(name: string): Promise<ProvisionAccountMessage> {
    const m = provisionMessage(name);
    await accounts.provision(m);
    return m;
  }

  it('migrations are idempotent: a second run applies nothing', async () => {
    await expect(runMigrations(dataSource)).resolves.toEqual([]);
  });

  it.each(FIELD_SETS)('%s: create, get, list, update, patch and delete', async (set) => {
    const acme = await newAccount('Acme');
    const admin = adminOf(acme);
    const text = fieldOf(set, await fields.create(set, admin, { name: 'Notes', type: 'text' }));
    expect(text).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      name: 'Notes',
      type: 'text',
      position: 1,
      created_at: expect.any(String),
      modified_at: text.created_at,
    });
    expect(new Date(text.created_at).toISOString()).toBe(text.created_at);
    const size = fieldOf(set, await fields.create(set, admin, { name: 'Size', type: 'select_box', choices: ['S', 'M'] }));
    expect(size).toMatchObject({ position: 2, choices: ['S', 'M'] });
    expect(fieldOf(set, await fields.get(set, admin, { [`${itemOf(set)}_id`]: size.id.toUpperCase() }))).toEqual(size);

    const list = (await fields.list(set, userOf(acme), {})) as unknown as AnyReply;
    expect(list).toMatchObject({ total_count: 2, page: 1, per_page: 10, max_page: 1 });
    expect((list[set] as AnyReply[]).map((e) => (e[itemOf(set)] as FieldDto).id)).toEqual([text.id, size.id]);

    await new Promise((r) => setTimeout(r, 5));
    const put = fieldOf(
      set,
      await fields.update(set, admin, { [`${itemOf(set)}_id`]: size.id, name: 'T-shirt size', choices: ['S', 'M', 'L'] }),
    );
    expect(put).toMatchObject({
      name: 'T-shirt size',
      type: 'select_box',
      position: 2,
      choices: ['S', 'M', 'L'],
      created_at: size.created_at,
    });
    expect(put.modified_at > size.modified_at).toBe(true);

    const patched = fieldOf(set, await fields.patch(set, admin, { [`${itemOf(set)}_id`]: size.id, position: 0 }));
    expect(patched).toMatchObject({ name: 'T-shirt size', position: 0, choices: ['S', 'M', 'L'] });
    const partial = fieldOf(set, await fields.update(set, admin, { [`${itemOf(set)}_id`]: text.id, partial: 'true', name: 'Remarks' }));
    expect(partial).toMatchObject({ name: 'Remarks', position: 1, type: 'text' });

    const reordered = (await fields.list(set, admin, {})) as unknown as AnyReply;
    expect((reordered[set] as AnyReply[]).map((e) => (e[itemOf(set)] as FieldDto).id)).toEqual([size.id, text.id]);

    await expect(fields.delete(set, admin, { [`${itemOf(set)}_id`]: text.id })).resolves.toEqual({});
    await expect(fields.get(set, admin, { [`${itemOf(set)}_id`]: text.id })).rejects.toMatchObject({ errorName: 'resource_not_found' });
    await expect(fields.delete(set, admin, { [`${itemOf(set)}_id`]: text.id })).rejects.toMatchObject({ errorName: 'resource_not_found' });
  });

  it('keeps the three sets apart: same names allowed across sets, ids not found in another set', async () => {
    const acme = await newAccount('Sets');
    const admin = adminOf(acme);
    const contact = fieldOf('custom_fields', await fields.create('custom_fields', admin, { name: 'Budget', type: 'number' }));
    const company = fieldOf('company_fields', await fields.create('company_fields', admin, { name: 'Budget', type: 'number' }));
    expect(company.position).toBe(1);
    await expect(fields.get('deal_fields', admin, { deal_field_id: contact.id })).rejects.toMatchObject({
      errorName: 'resource_not_found',
    });
    await expect(fields.patch('company_fields', admin, { company_field_id: contact.id, name: 'X' })).rejects.toMatchObject({
      errorName: 'resource_not_found',
    });
    expect((await fields.all('custom_fields', acme.account.id)).map((f) => f.id)).toEqual([contact.id]);
  });

  it('refuses duplicate names (any letter case) on create and rename, in the database as well', async () => {
    const acme = await newAccount('Dupes');
    const admin = adminOf(acme);
    await fields.create('deal_fields', admin, { name: 'Region', type: 'text' });
    const other = fieldOf('deal_fields', await fields.create('deal_fields', admin, { name: 'Area', type: 'text' }));
    await expect(fields.create('deal_fields', admin, { name: ' REGION ', type: 'number' })).rejects.toMatchObject({
      errorName: 'duplicated_entity',
      errors: { name: expect.any(String) },
    });
    await expect(fields.patch('deal_fields', admin, { deal_field_id: other.id, name: 'region' })).rejects.toMatchObject({
      errorName: 'duplicated_entity',
    });
    // a case-only rename of the same field is fine
    expect(fieldOf('deal_fields', await fields.patch('deal_fields', admin, { deal_field_id: other.id, name: 'AREA' })).name).toBe('AREA');
    // another account may use the name
    const beta = await newAccount('DupesBeta');
    await expect(fields.create('deal_fields', adminOf(beta), { name: 'Region', type: 'text' })).resolves.toBeDefined();
    // concurrent creates of one name: exactly one wins
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => fields.create('deal_fields', admin, { name: 'Race', type: 'text' })),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    expect(results.filter((r) => r.status === 'rejected').map((r) => (r as PromiseRejectedResult).reason.errorName)).toEqual(
      Array(4).fill('duplicated_entity'),
    );
  });

  it('enforces choices and the fixed type; PUT clears absent choices', async () => {
    const acme = await newAccount('Rules');
    const admin = adminOf(acme);
    await expect(fields.create('custom_fields', admin, { name: 'A', type: 'multiple_choice' })).rejects.toMatchObject({
      errorName: 'invalid_request_data',
      errors: { choices: expect.any(String) },
    });
    await expect(fields.create('custom_fields', admin, { name: 'B', type: 'checkbox', choices: ['x'] })).rejects.toMatchObject({
      errors: { choices: expect.any(String) },
    });
    const pick = fieldOf(
      'custom_fields',
      await fields.create('custom_fields', admin, { name: 'Pick', type: 'multiple_choice', choices: ['a', 'b'] }),
    );
    const id = { custom_field_id: pick.id };
    await expect(fields.update('custom_fields', admin, { ...id, name: 'Pick' })).rejects.toMatchObject({
      errors: { choices: expect.stringContaining('required') },
    });
    await expect(fields.patch('custom_fields', admin, { ...id, type: 'select_box' })).rejects.toMatchObject({
      errors: { type: expect.stringContaining('cannot be changed') },
    });
    await expect(fields.patch('custom_fields', admin, { ...id, choices: [] })).rejects.toMatchObject({
      errors: { choices: expect.any(String) },
    });
    const same = fieldOf(
      'custom_fields',
      await fields.update('custom_fields', admin, { ...id, name: 'Pick', type: 'multiple_choice', choices: ['a', 'b'] }),
    );
    expect(same).toEqual(pick); // nothing changed: modified_at kept
    const flag = fieldOf('custom_fields', await fields.create('custom_fields', admin, { name: 'Flag', type: 'checkbox', position: 7 }));
    expect(flag.position).toBe(7);
    expect(
      fieldOf('custom_fields', await fields.update('custom_fields', admin, { custom_field_id: flag.id, name: 'Flag 2' })),
    ).toMatchObject({ name: 'Flag 2', position: 7 });
    expect(fieldOf('custom_fields', await fields.create('custom_fields', admin, { name: 'Next', type: 'date' })).position).toBe(8);
  });

  it('writes are admin only; reads are open to users', async () => {
    const acme = await newAccount('Perms');
    const user = userOf(acme);
    const field = fieldOf('company_fields', await fields.create('company_fields', adminOf(acme), { name: 'Tier', type: 'text' }));
    const id = { company_field_id: field.id };
    await expect(fields.create('company_fields', user, { name: 'X', type: 'text' })).rejects.toMatchObject({
      errorName: 'no_permission_to_complete_action',
    });
    await expect(fields.update('company_fields', user, { ...id, name: 'X' })).rejects.toMatchObject({
      errorName: 'no_permission_to_complete_action',
    });
    await expect(fields.patch('company_fields', user, { ...id, name: 'X' })).rejects.toMatchObject({
      errorName: 'no_permission_to_complete_action',
    });
    await expect(fields.delete('company_fields', user, id)).rejects.toMatchObject({ errorName: 'no_permission_to_complete_action' });
    await expect(fields.get('company_fields', user, id)).resolves.toBeDefined();
  });

  it("never shows another account's field; malformed ids are not found", async () => {
    const a = await newAccount('Alpha');
    const b = await newAccount('Beta');
    const field = fieldOf('custom_fields', await fields.create('custom_fields', adminOf(a), { name: 'Secret', type: 'text' }));
    const id = { custom_field_id: field.id };
    for (const attempt of [
      fields.get('custom_fields', adminOf(b), id),
      fields.update('custom_fields', adminOf(b), { ...id, name: 'Mine' }),
      fields.patch('custom_fields', adminOf(b), { ...id, name: 'Mine' }),
      fields.delete('custom_fields', adminOf(b), id),
      fields.get('custom_fields', adminOf(a), { custom_field_id: 'not-an-id' }),
      fields.delete('custom_fields', adminOf(a), { custom_field_id: '0123456789abcdef0123456z' }),
    ]) {
      await expect(attempt).rejects.toMatchObject({ errorName: 'resource_not_found' });
    }
    expect(await fields.list('custom_fields', adminOf(b), {})).toMatchObject({ custom_fields: [], total_count: 0, max_page: 0 });
    expect(fieldOf('custom_fields', await fields.get('custom_fields', adminOf(a), id)).name).toBe('Secret');
  });

  it('sorts, filters and pages', async () => {
    const acme = await newAccount('Paging');
    const admin = adminOf(acme);
    const created: FieldDto[] = [];
    for (let i = 0; i < 12; i += 1) {
      const type = i % 3 === 0 ? 'number' : 'text';
      created.push(fieldOf('deal_fields', await fields.create('deal_fields', admin, { name: `F${i}`, type, position: 100 - i })));
    }
    const names = (reply: unknown) => ((reply as AnyReply).deal_fields as AnyReply[]).map((e) => (e.deal_field as FieldDto).name);
    expect(names(await fields.list('deal_fields', admin, { per_page: '3' }))).toEqual(['F11', 'F10', 'F9']);
    expect(await fields.list('deal_fields', admin, { per_page: '5', page: '3' })).toMatchObject({
      total_count: 12,
      page: 3,
      per_page: 5,
      max_page: 3,
    });
    expect(names(await fields.list('deal_fields', admin, { per_page: '5', page: '3' }))).toEqual(['F1', 'F0']);
    expect(names(await fields.list('deal_fields', admin, { per_page: '5', page: '4' }))).toEqual([]);
    expect(names(await fields.list('deal_fields', admin, { sort_by: 'position', order: 'desc', per_page: '2' }))).toEqual(['F0', 'F1']);
    expect(names(await fields.list('deal_fields', admin, { sort_by: 'created_at', per_page: '2' }))).toEqual(['F0', 'F1']);
    expect(names(await fields.list('deal_fields', admin, { sort_by: 'created_at', order: 'desc', per_page: '2' }))).toEqual(['F11', 'F10']);
    await new Promise((r) => setTimeout(r, 5));
    await fields.patch('deal_fields', admin, { deal_field_id: created[4].id, name: 'F4b' });
    expect(names(await fields.list('deal_fields', admin, { sort_by: 'modified_at', order: 'desc', per_page: '1' }))).toEqual(['F4b']);
    const numbers = await fields.list('deal_fields', admin, { type: 'number' });
    expect(names(numbers)).toEqual(['F9', 'F6', 'F3', 'F0']);
    expect(numbers).toMatchObject({ total_count: 4, max_page: 1 });
    await expect(fields.list('deal_fields', admin, { type: 'colour' })).rejects.toMatchObject({ errors: { type: expect.any(String) } });
  });
});
