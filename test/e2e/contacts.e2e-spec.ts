import { api, createAccount, createUser, type CreatedAccount } from '@crm/testing';
import { setupE2e } from './setup';
import { fileDay } from './utc-days';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const WRAPPER_KEYS = ['company', 'contact', 'next_action', 'next_action_conflicts', 'next_actions', 'queued_actions'];
const CONTACT_KEYS = [
  'address_list',
  'background',
  'closed_sales',
  'company_id',
  'company_name',
  'company_size',
  'created_at',
  'custom_fields',
  'emails',
  'first_name',
  'google_contacts_data',
  'id',
  'job_title',
  'last_name',
  'lead_source',
  'lead_source_id',
  'letter',
  'modified_at',
  'owner_id',
  'pending_deal',
  'phones',
  'photo_url',
  'sales_closed_for',
  'starred',
  'status',
  'status_id',
  'tags',
  'title',
  'total_deals_count',
  'total_pendings',
  'urls',
];
const SUMMARY_KEYS = ['contacts_count', 'data', 'lead_sources', 'message', 'status', 'statuses', 'tags', 'team_stream', 'timestamp'];
const FOREIGN_ID = 'f'.repeat(24);

/** Contacts over HTTP (spec "Contact", decisions.md "Contacts", "Paging and lists"). */
describe('contacts (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });

  const call = (who: CreatedAccount) => api(services, who);
  const create = async (who: CreatedAccount, body: Record<string, unknown>) => {
    const res = await call(who)<Json>('POST', '/contacts', body);
    if (res.status !== 201) throw new Error(`POST /contacts ${res.status}: ${res.text}`);
    return res.body.data as Json;
  };

  describe('create and read', () => {
    it('creates a contact with defaults, computed fields and the wrapper', async () => {
      const res = await call(admin)<Json>('POST', '/contacts', {
        first_name: ' Ada ',
        last_name: 'Lovelace',
        title: 'Ms',
        emails: [{ type: 'work', value: 'ada@example.test' }],
        phones: [{ type: 'mobile', value: '+44 (20) 7946-0018' }],
        urls: [{ value: 'https://ada.example' }],
        address_list: [{ city: 'London', country_code: 'gb' }],
        company_name: 'Analytical Engines',
        tags: ['VIP', 'math'],
        background: '[b]First[/b] programmer',
        ignored_field: 'x',
      });
      expect(res.status).toBe(201);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'status', 'timestamp']);
      const data = res.body.data;
      expect(Object.keys(data).sort()).toEqual(WRAPPER_KEYS);
      expect(Object.keys(data.contact).sort()).toEqual(CONTACT_KEYS);
      expect(data.contact).toMatchObject({
        id: expect.stringMatching(/^[0-9a-f]{24}$/),
        first_name: 'Ada',
        last_name: 'Lovelace',
        status: 'Lead',
        owner_id: admin.user.id,
        letter: 'l',
        starred: false,
        company_name: 'Analytical Engines',
        company_id: expect.stringMatching(/^[0-9a-f]{24}$/),
        company_size: 1,
        pending_deal: false,
        total_pendings: 0,
        total_deals_count: 0,
        sales_closed_for: [],
        closed_sales: [],
        lead_source_id: '',
        lead_source: '',
        google_contacts_data: { account_email: '', id: '', saved_at: 0 },
        custom_fields: [],
        tags: ['math', 'VIP'],
        urls: [{ type: 'other', value: 'https://ada.example' }],
        address_list: [{ address: '', city: 'London', state: '', zip_code: '', country_code: 'GB', type: 'other' }],
        background: '[b]First[/b] programmer',
      });
      expect(data).toMatchObject({ next_actions: [], next_action: null, queued_actions: [], next_action_conflicts: [] });
      expect(data.company).toMatchObject({ id: data.contact.company_id, name: 'Analytical Engines', contacts_count: 1, pending_deals: [] });
      // OnePageCRM's Company.contacts: the company's first contacts (here the only one), without a company of their own.
      expect(data.company.contacts).toEqual([
        { contact: data.contact, next_actions: [], next_action: null, queued_actions: [], next_action_conflicts: [] },
      ]);

      const got = await call(member)<Json>('GET', `/contacts/${data.contact.id}.json`);
      expect(got.status).toBe(200);
      expect(got.body.data).toEqual(data);
    });

    it('needs last_name or company_name and validates every field', async () => {
      const none = await call(admin)<Json>('POST', '/contacts', { first_name: 'Only' });
      expect(none.status).toBe(400);
      expect(none.body).toMatchObject({
        error_name: 'invalid_request_data',
        errors: { last_name: expect.any(String), company_name: expect.any(String) },
      });
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ last_name: 5 }, 'last_name'],
        [{ last_name: 'X', emails: [{ value: 'not-an-email' }] }, 'emails.0.value'],
        [{ last_name: 'X', phones: 'x' }, 'phones'],
        [{ last_name: 'X', starred: 'maybe' }, 'starred'],
        [{ last_name: 'X', status_id: 'lead' }, 'status_id'],
        [{ last_name: 'X', owner_id: 12 }, 'owner_id'],
        [{ last_name: 'X', tags: [''] }, 'tags'],
        [{ last_name: 'X', address_list: [{ country_code: 'GBR' }] }, 'address_list.0.country_code'],
        [{ last_name: 'X', custom_fields: [{ value: 1 }] }, 'custom_fields.0.custom_field'],
        [{ last_name: 'x'.repeat(201) }, 'last_name'],
      ];
      for (const [body, key] of bad) {
        const res = await call(admin)<Json>('POST', '/contacts', body);
        expect(res.status).toBe(400);
        expect(res.body.error_name).toBe('invalid_request_data');
        expect(Object.keys(res.body.errors)).toContain(key);
      }
      for (const body of [
        { last_name: 'X', status_id: FOREIGN_ID },
        { last_name: 'X', owner_id: stranger.user.id },
        { last_name: 'X', company_id: FOREIGN_ID },
        { last_name: 'X', custom_fields: [{ custom_field: { id: FOREIGN_ID }, value: 'v' }] },
      ]) {
        const res = await call(admin)<Json>('POST', '/contacts', body);
        expect(res.status).toBe(404);
        expect(res.body.error_name).toBe('resource_not_found');
      }
    });

    it('matches companies by name in any letter case and counts their contacts', async () => {
      const a = await create(admin, { last_name: 'One', company_name: 'Globex' });
      const b = await create(admin, { last_name: 'Two', company_name: 'GLOBEX' });
      expect(b.contact.company_id).toBe(a.contact.company_id);
      expect(b.contact.company_name).toBe('Globex');
      expect(b.contact.company_size).toBe(2);
      const onlyCompany = await create(admin, { company_name: 'Globex' });
      expect(onlyCompany.contact).toMatchObject({ last_name: '', letter: 'g', company_size: 3 });
      // The same name in another account is another company.
      const foreign = await create(stranger, { last_name: 'Three', company_name: 'globex' });
      expect(foreign.contact.company_id).not.toBe(a.contact.company_id);
    });

    it('answers 404 for ids that are malformed, unknown or of another account', async () => {
      const mine = await create(admin, { last_name: 'Private' });
      for (const id of ['not-an-id', FOREIGN_ID, mine.contact.id]) {
        const res = await call(stranger)<Json>('GET', `/contacts/${id}`);
        expect(res.status).toBe(404);
        expect(res.body).toMatchObject({ error_name: 'resource_not_found' });
      }
      const id = mine.contact.id;
      const writes: Array<[string, string, unknown]> = [
        ['PUT', `/contacts/${id}`, { last_name: 'Hijack' }],
        ['PATCH', `/contacts/${id}`, { last_name: 'Hijack' }],
        ['DELETE', `/contacts/${id}`, undefined],
        ['DELETE', `/contacts/delete?ids=${id}`, undefined],
        ['POST', `/contacts/undelete?ids=${id}`, undefined],
        ['PUT', `/contacts/${id}/assign_tag/x`, undefined],
        ['PUT', `/contacts/${id}/unassign_tag/x`, undefined],
        ['PUT', `/contacts/${id}/close_sales_cycle`, { comment: 'x' }],
        ['GET', `/contacts/cascade/${id}`, undefined],
      ];
      for (const [method, path, body] of writes) {
        const res = await call(stranger)<Json>(method, path, body);
        expect([method, path, res.status]).toEqual([method, path, 404]);
      }
      const statuses = (
        await call(stranger)<Json>('PUT', `/contacts/${(await create(stranger, { last_name: 'S' })).contact.id}/assign_tag/t`)
      ).body.statuses;
      const strangerStatus = statuses[1].status.id;
      expect((await call(stranger)<Json>('PUT', `/contacts/${id}/change_status/${strangerStatus}`)).status).toBe(404);
      // Nothing changed.
      const after = await call(admin)<Json>('GET', `/contacts/${id}`);
      expect(after.body.data.contact).toMatchObject({ last_name: 'Private', tags: [], closed_sales: [] });
      const list = await call(stranger)<Json>('GET', '/contacts?team=true&per_page=100');
      expect(list.body.data.contacts.map((c: Json) => c.contact.id)).not.toContain(id);
    });
  });

  describe('updates', () => {
    it('PUT replaces, PUT partial=true and PATCH change only what is sent', async () => {
      const c = await create(admin, {
        first_name: 'Grace',
        last_name: 'Hopper',
        job_title: 'Admiral',
        phones: [{ value: '555 0100' }],
        tags: ['navy'],
        starred: true,
      });
      const id = c.contact.id;
      const partial = await call(admin)<Json>('PUT', `/contacts/${id}?partial=TRUE`, { job_title: 'Rear Admiral' });
      expect(partial.status).toBe(200);
      expect(partial.body.data.contact).toMatchObject({
        first_name: 'Grace',
        job_title: 'Rear Admiral',
        starred: true,
        tags: ['navy'],
        phones: [{ type: 'other', value: '555 0100' }],
      });
      const patched = await call(admin)<Json>('PATCH', `/contacts/${id}`, { phones: [{ type: 'work', value: '555 0200' }], tags: [] });
      expect(patched.body.data.contact).toMatchObject({
        job_title: 'Rear Admiral',
        phones: [{ type: 'work', value: '555 0200' }],
        tags: [],
      });
      const replaced = await call(admin)<Json>('PUT', `/contacts/${id}`, { last_name: 'Hopper' });
      expect(replaced.status).toBe(200);
      expect(replaced.body.data.contact).toMatchObject({
        first_name: '',
        last_name: 'Hopper',
        job_title: '',
        starred: false,
        phones: [],
        tags: [],
        owner_id: admin.user.id,
        status: 'Lead',
      });
      const cleared = await call(admin)<Json>('PATCH', `/contacts/${id}`, { last_name: null });
      expect(cleared.status).toBe(400);
      // A write that changes nothing keeps modified_at.
      const same = await call(admin)<Json>('PATCH', `/contacts/${id}`, { last_name: 'Hopper' });
      expect(same.body.data.contact.modified_at).toBe(replaced.body.data.contact.modified_at);
    });

    it('changes the owner to a user of the account only, and the status with summary blocks', async () => {
      const c = await create(admin, { last_name: 'Owned' });
      const moved = await call(admin)<Json>('PATCH', `/contacts/${c.contact.id}`, { owner_id: member.user.id });
      expect(moved.body.data.contact.owner_id).toBe(member.user.id);
      const res = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/assign_tag/Probe`);
      const customer = res.body.statuses.find((s: Json) => s.status.status === 'customer').status;
      const before = customer.total_count;
      const changed = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/change_status/${customer.id.toUpperCase()}`);
      expect(changed.status).toBe(200);
      expect(Object.keys(changed.body).sort()).toEqual(SUMMARY_KEYS);
      expect(Object.keys(changed.body.data).sort()).toEqual(WRAPPER_KEYS);
      expect(changed.body.data.contact).toMatchObject({ status: 'Customer', status_id: customer.id });
      expect(changed.body.statuses.find((s: Json) => s.status.id === customer.id).status.total_count).toBe(before + 1);
      for (const bad of ['nope', FOREIGN_ID]) {
        const res2 = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/change_status/${bad}`);
        expect(res2.status).toBe(404);
      }
    });

    it('assigns and unassigns tags by name in any letter case', async () => {
      const c = await create(admin, { last_name: 'Tagged', tags: ['Existing'] });
      const res = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/assign_tag/${encodeURIComponent('EXISTING')}`);
      expect(res.status).toBe(200);
      expect(res.body.data).toEqual({});
      expect(Object.keys(res.body).sort()).toEqual(SUMMARY_KEYS);
      const fresh = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/assign_tag/${encodeURIComponent('Brand New')}.json`);
      expect(fresh.status).toBe(200);
      expect(fresh.body.tags.tags.find((t: Json) => t.name === 'Brand New')).toMatchObject({ total_count: 1 });
      expect((await call(admin)<Json>('GET', `/contacts/${c.contact.id}`)).body.data.contact.tags).toEqual(['Brand New', 'Existing']);
      const removed = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/unassign_tag/brand%20new`);
      expect(removed.status).toBe(200);
      expect(removed.body.tags.tags.find((t: Json) => t.name === 'Brand New')).toMatchObject({ total_count: 0 });
      expect((await call(admin)<Json>('GET', `/contacts/${c.contact.id}`)).body.data.contact.tags).toEqual(['Existing']);
      const tooLong = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/assign_tag/${'t'.repeat(101)}`);
      expect(tooLong.status).toBe(400);
      expect(tooLong.body.errors).toHaveProperty('tag_name');
    });

    it("closes the caller's sales cycle", async () => {
      const c = await create(admin, { last_name: 'Closer' });
      const first = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/close_sales_cycle`, { comment: 'bought' });
      expect(first.status).toBe(200);
      expect(first.body.data.contact.closed_sales).toEqual([{ user_id: admin.user.id, closed_at: expect.any(Number), comment: 'bought' }]);
      await call(member)<Json>('PUT', `/contacts/${c.contact.id}/close_sales_cycle`, {});
      const again = await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/close_sales_cycle`, { comment: 'renewed' });
      expect(again.body.data.contact.sales_closed_for).toEqual([member.user.id, admin.user.id]);
      expect(again.body.data.contact.closed_sales[1].comment).toBe('renewed');
      expect((await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/close_sales_cycle`, { comment: 5 })).status).toBe(400);
    });
  });

  describe('delete and undelete', () => {
    it('needs delete_contacts, soft-deletes all or none and restores with summary blocks', async () => {
      const [a, b, c] = [
        await create(admin, { last_name: 'Del A' }),
        await create(admin, { last_name: 'Del B' }),
        await create(admin, { last_name: 'Del C' }),
      ];
      expect((await call(member)<Json>('DELETE', `/contacts/${a.contact.id}`)).status).toBe(403);
      expect((await call(member)<Json>('DELETE', `/contacts/delete?ids=${a.contact.id}`)).body.error_name).toBe(
        'no_permission_to_complete_action',
      );

      const one = await call(admin)<Json>('DELETE', `/contacts/${a.contact.id}`);
      expect(one.status).toBe(200);
      expect(one.body.data).toEqual({});
      expect((await call(admin)<Json>('GET', `/contacts/${a.contact.id}`)).status).toBe(404);
      expect((await call(admin)<Json>('DELETE', `/contacts/${a.contact.id}`)).status).toBe(404);

      // One unknown id: nothing is deleted.
      const mixed = await call(admin)<Json>('DELETE', `/contacts/delete?ids=${b.contact.id},${FOREIGN_ID}`);
      expect(mixed.status).toBe(404);
      expect((await call(admin)<Json>('GET', `/contacts/${b.contact.id}`)).status).toBe(200);

      const before = (await call(admin)<Json>('PUT', `/contacts/${c.contact.id}/unassign_tag/none`)).body.contacts_count.all[0].total_count;
      const many = await call(admin)<Json>('DELETE', `/contacts/delete?ids=${b.contact.id}, ${c.contact.id.toUpperCase()}`);
      expect(many.status).toBe(200);
      expect(Object.keys(many.body).sort()).toEqual(SUMMARY_KEYS);
      expect(many.body.contacts_count.all[0].total_count).toBe(before - 2);

      const restored = await call(admin)<Json>('POST', `/contacts/undelete?ids=${a.contact.id},${b.contact.id}`);
      expect(restored.status).toBe(200);
      expect(restored.body.contacts_count.all[0].total_count).toBe(before);
      expect((await call(admin)<Json>('GET', `/contacts/${a.contact.id}`)).body.data.contact.last_name).toBe('Del A');
      // Not deleted (any more): 404.
      expect((await call(admin)<Json>('POST', `/contacts/undelete?ids=${a.contact.id}`)).status).toBe(404);
    });

    it('validates ids', async () => {
      const ids101 = Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(24, '0')).join(',');
      for (const query of ['', '?ids=', '?ids=abc', '?ids=123,456', `?ids=${ids101}`]) {
        const res = await call(admin)<Json>('DELETE', `/contacts/delete${query}`);
        expect([query, res.status]).toEqual([query, 400]);
        expect(res.body.errors).toHaveProperty('ids');
      }
    });
  });

  describe('list', () => {
    let listAccount: CreatedAccount;
    let teammate: CreatedAccount;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      listAccount = await createAccount(services, { name: 'Lister' });
      teammate = await createUser(services, listAccount);
      const people: Array<[string, Record<string, unknown>]> = [
        ['zoe', { first_name: 'Zoe', last_name: 'Zimmer', phones: [{ value: '+1 (555) 010-2000' }], starred: true }],
        ['adam', { first_name: 'Adam', last_name: 'Abbott', emails: [{ value: 'Adam@Abbott.example' }], company_name: 'Initech' }],
        [
          'bea',
          { first_name: 'Bea', last_name: 'Émile', urls: [{ value: 'https://bea.example' }], company_name: 'Initech', tags: ['Hot'] },
        ],
        ['corp', { company_name: '3M Partners' }],
        ['carl', { first_name: 'Carl', last_name: 'Carlsson', tags: ['hot', 'cold'] }],
      ];
      for (const [key, body] of people) {
        ids[key] = (await create(listAccount, body)).contact.id;
        await new Promise((r) => setTimeout(r, 1100));
      }
      ids.theirs = (await create(teammate, { first_name: 'Tina', last_name: 'Teammate' })).contact.id;
    });

    const list = async (query: string, who: CreatedAccount = listAccount) => {
      const res = await call(who)<Json>('GET', `/contacts${query}`);
      if (res.status !== 200) throw new Error(`GET /contacts${query} ${res.status}: ${res.text}`);
      return res.body.data as Json;
    };
    const names = (data: Json) => data.contacts.map((c: Json) => c.contact.id);

    it("lists the caller's contacts by name with paging; team=true adds the team's", async () => {
      const mine = await list('');
      expect(names(mine)).toEqual([ids.corp, ids.adam, ids.carl, ids.bea, ids.zoe]);
      expect(mine).toMatchObject({ total_count: 5, page: 1, per_page: 10, max_page: 1 });
      expect(Object.keys(mine.contacts[0]).sort()).toEqual(WRAPPER_KEYS);
      const team = await list('?team=1&per_page=2&page=2');
      expect(team).toMatchObject({ total_count: 6, page: 2, per_page: 2, max_page: 3 });
      expect(names(team)).toEqual([ids.carl, ids.bea]);
      expect((await list('?team=true&per_page=500')).per_page).toBe(100);
      expect(names(await list('?page=9'))).toEqual([]);
      expect(names(await list(`?owner_id=${teammate.user.id}`))).toEqual([ids.theirs]);
      expect(names(await list('.json?letter=E'))).toEqual([ids.bea]);
      expect(names(await list('?letter=1'))).toEqual([ids.corp]);
    });

    it('filters by search, phone, email, url, tag, company, starred', async () => {
      expect(names(await list('?search=zimm'))).toEqual([ids.zoe]);
      expect(names(await list('?search=emile'))).toEqual([ids.bea]);
      expect(names(await list('?search=initech'))).toEqual([ids.adam, ids.bea]);
      expect(names(await list('?search=555-010'))).toEqual([ids.zoe]);
      expect(names(await list(`?phone=${encodeURIComponent('15550102000')}`))).toEqual([ids.zoe]);
      expect(names(await list('?phone=5550102'))).toEqual([]);
      expect(names(await list('?email=adam@abbott.EXAMPLE'))).toEqual([ids.adam]);
      expect(names(await list('?url=https://bea.example'))).toEqual([ids.bea]);
      expect(names(await list('?tag=HOT'))).toEqual([ids.carl, ids.bea]);
      expect(names(await list('?starred=true'))).toEqual([ids.zoe]);
      expect(names(await list('?starred=false'))).toHaveLength(4);
      const adam = await list('?search=abbott');
      const company = adam.contacts[0].contact.company_id;
      expect(names(await list(`?company_id=${company}`))).toEqual([ids.adam, ids.bea]);
      expect(names(await list(`?not_linked_with=${company}`))).toEqual([ids.corp, ids.carl, ids.zoe]);
      expect(names(await list('?pending_deal=true'))).toEqual([]);
      expect(names(await list('?has_actions=false'))).toHaveLength(5);
      expect(names(await list('?action_stream=true'))).toEqual([]);
      expect(names(await list('?search=%25'))).toEqual([]);
    });

    it('sorts, and orders a date range newest first', async () => {
      expect(names(await list('?sort_by=first_name'))).toEqual([ids.corp, ids.adam, ids.bea, ids.carl, ids.zoe]);
      expect(names(await list('?sort_by=name&order=DESC'))).toEqual([ids.zoe, ids.bea, ids.carl, ids.adam, ids.corp]);
      expect(names(await list('?sort_by=created_at'))).toEqual([ids.zoe, ids.adam, ids.bea, ids.corp, ids.carl]);
      expect(names(await list(`?since=${fileDay(0)}`))).toEqual([ids.carl, ids.corp, ids.bea, ids.adam, ids.zoe]);
      expect(names(await list(`?modified_since=${Math.floor(Date.now() / 1000) - 3600}&order=asc`))).toEqual([
        ids.zoe,
        ids.adam,
        ids.bea,
        ids.corp,
        ids.carl,
      ]);
      expect(names(await list(`?until=2000-01-01`))).toEqual([]);
      expect(names(await list(`?unmodified_since=${fileDay(0)}`))).toEqual([]);
    });

    it('adds the requested record arrays to every entry', async () => {
      const data = await list('?fields=deals(all),notes(all), calls(all),meetings(all),pinned_attachments(all)&per_page=2');
      for (const entry of data.contacts) {
        expect(Object.keys(entry).sort()).toEqual([...WRAPPER_KEYS, 'calls', 'deals', 'meetings', 'notes', 'pinned_attachments'].sort());
        expect(entry.deals).toEqual([]);
      }
      expect(Object.keys((await list('?fields=deals(all)')).contacts[0]).sort()).toEqual([...WRAPPER_KEYS, 'deals'].sort());
    });

    it('refuses bad parameters and forbidden combinations, naming the parameters', async () => {
      const cases: Array<[string, string[]]> = [
        ['?page=0', ['page']],
        ['?per_page=abc', ['per_page']],
        ['?team=maybe', ['team']],
        ['?sort_by=age', ['sort_by']],
        ['?order=up', ['order']],
        ['?letter=ab', ['letter']],
        ['?status_id=123', ['status_id']],
        ['?since=2026-02-30', ['since']],
        ['?fields=deals', ['fields']],
        ['?fields=users(all)', ['fields']],
        ['?date_filter=deleted_at', ['date_filter']],
        [`?company_id=${FOREIGN_ID}&tag=x`, ['company_id', 'tag']],
        [`?tag=x&filter_id=${FOREIGN_ID}`, ['tag', 'filter_id']],
        [`?company_id=${FOREIGN_ID}&not_linked_with=${FOREIGN_ID}`, ['company_id', 'not_linked_with']],
        [`?lead_source=Web&lead_source_id=${FOREIGN_ID}`, ['lead_source', 'lead_source_id']],
        ['?has_actions=true&has_actions_for_me=true', ['has_actions', 'has_actions_for_me']],
        ['?date_filter=created_at&modified_since=2026-01-01', ['date_filter', 'modified_since']],
        [`?custom_field_id=${FOREIGN_ID}`, ['custom_field_value']],
      ];
      for (const [query, keys] of cases) {
        const res = await call(listAccount)<Json>('GET', `/contacts${query}`);
        expect([query, res.status]).toEqual([query, 400]);
        expect(res.body.error_name).toBe('invalid_request_data');
        for (const key of keys) expect([query, Object.keys(res.body.errors)]).toEqual([query, expect.arrayContaining([key])]);
      }
      expect((await call(listAccount)<Json>('GET', `/contacts?filter_id=${FOREIGN_ID}`)).status).toBe(404);
    });

    it('walks the cascade in name order with absolute next_set_url and items_left', async () => {
      const bulk = await createAccount(services, { name: 'Bulk' });
      const created: string[] = [];
      for (let i = 0; i < 230; i += 10) {
        const batch = await Promise.all(
          Array.from({ length: Math.min(10, 230 - i) }, (_, j) =>
            create(bulk, { first_name: `F${i + j}`, last_name: `Name ${String(((i + j) * 7919) % 230).padStart(3, '0')}` }),
          ),
        );
        created.push(...batch.map((b) => b.contact.id));
      }
      const expected = [];
      for (let page = 1; page <= 3; page += 1) expected.push(...names(await list(`?per_page=100&page=${page}`, bulk)));
      expect(expected).toHaveLength(230);

      const first = await call(bulk)<Json>('GET', '/contacts/cascade?team=false');
      expect(first.status).toBe(200);
      expect(Object.keys(first.body.data).sort()).toEqual(['contacts', 'items_left', 'next_set_url']);
      expect(first.body.data.contacts).toHaveLength(100);
      expect(first.body.data.items_left).toBe(130);
      const lastOfFirst = first.body.data.contacts[99].contact.id;
      expect(first.body.data.next_set_url).toBe(`${services.gatewayUrl}/api/v3/contacts/cascade/${lastOfFirst}?team=false`);
      const zero = await call(bulk)<Json>('GET', '/contacts/cascade/0.json');
      expect(zero.body.data.contacts.map((c: Json) => c.contact.id)).toEqual(first.body.data.contacts.map((c: Json) => c.contact.id));

      const walked: string[] = [];
      let url: string | null = `${services.gatewayUrl}/api/v3/contacts/cascade/0`;
      const lefts: number[] = [];
      while (url) {
        const res: Response = await fetch(url, {
          headers: { authorization: `Basic ${Buffer.from(`${bulk.user.id}:${bulk.user.api_key}`).toString('base64')}` },
        });
        const body = await res.json();
        expect(res.status).toBe(200);
        walked.push(...body.data.contacts.map((c: Json) => c.contact.id));
        lefts.push(body.data.items_left);
        url = body.data.next_set_url;
      }
      expect(lefts).toEqual([130, 30, 0]);
      expect(walked).toEqual(expected);
      expect(new Set(walked).size).toBe(230);

      // The same query travels along; team scope applies.
      const team = await call(listAccount)<Json>('GET', '/contacts/cascade?team=true');
      expect(team.body.data).toMatchObject({ items_left: 0, next_set_url: null });
      expect(team.body.data.contacts).toHaveLength(6);
      const filtered = await call(listAccount)<Json>('GET', `/contacts/cascade/${ids.adam}?tag=hot`);
      expect(filtered.body.data.contacts.map((c: Json) => c.contact.id)).toEqual([ids.carl, ids.bea]);
      // A deleted last contact still marks the place.
      await call(listAccount)<Json>('DELETE', `/contacts/${ids.carl}`);
      expect(
        (await call(listAccount)<Json>('GET', `/contacts/cascade/${ids.carl}`)).body.data.contacts.map((c: Json) => c.contact.id),
      ).toEqual([ids.bea, ids.zoe]);
      await call(listAccount)<Json>('POST', `/contacts/undelete?ids=${ids.carl}`);
      for (const bad of ['abc', FOREIGN_ID]) expect((await call(listAccount)<Json>('GET', `/contacts/cascade/${bad}`)).status).toBe(404);
      expect((await call(listAccount)<Json>('GET', '/contacts/cascade?team=perhaps')).status).toBe(400);
    });
  });

  it('documents every contact and company route in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${services.gatewayUrl}/api/v3/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Json>>;
    };
    expect(Object.keys(doc.paths['/contacts']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/contacts/{contact_id}']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    for (const path of [
      '/contacts/cascade',
      '/contacts/cascade/{last_id}',
      '/contacts/delete',
      '/contacts/undelete',
      '/contacts/{contact_id}/change_status/{status_id}',
      '/contacts/{contact_id}/assign_tag/{tag_name}',
      '/contacts/{contact_id}/unassign_tag/{tag_name}',
      '/contacts/{contact_id}/close_sales_cycle',
      '/companies',
      '/companies/{company_id}',
    ]) {
      expect(doc.paths[path]).toBeDefined();
    }
    const listParams = doc.paths['/contacts'].get.parameters.map((p: Json) => p.name);
    expect(listParams).toEqual(
      expect.arrayContaining([
        'team',
        'search',
        'phone',
        'url',
        'email',
        'action_stream',
        'has_actions',
        'letter',
        'custom_field_id',
        'fields',
        'since',
        'sort_by',
        'order',
        'page',
        'per_page',
      ]),
    );
    const docs = await fetch(`${services.gatewayUrl}/api/v3/docs`);
    expect(docs.status).toBe(200);
    expect(await docs.text()).toContain('/contacts/cascade/{last_id}');
  });
});
