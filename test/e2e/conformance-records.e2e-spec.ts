import { createAccount, type CreatedAccount } from '@crm/testing';
import { setupE2e } from './setup';
import { aToday, fileDay } from './utc-days';
import {
  ACTION_FIELDS,
  BAD_IDS,
  CALL_FIELDS,
  caller,
  CONTACT_FIELDS,
  DEAL_FIELDS,
  dayOffset,
  expectContact,
  expectError,
  expectInvalid,
  expectNotFound,
  expectPaging,
  expectSuccess,
  getContact,
  HEX24,
  ISO_UTC,
  MEETING_FIELDS,
  newContact,
  newDeal,
  NOTE_FIELDS,
  sortedKeys,
  todayUtc,
  unique,
  UNKNOWN_ID,
  YMD,
  type Caller,
  type Json,
} from './conformance-helpers';

/**
 * Black-box conformance of deals, notes, calls, meetings and actions, written from
 * crm-service-spec.md and decisions.md only.
 */
describe('conformance: deals, notes, calls, meetings, actions (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });
  let A: Caller;
  let B: Caller;
  let M: Caller;
  let contactId: string;
  let foreignContactId: string;
  const fresh = async (): Promise<[CreatedAccount, Caller]> => {
    const acc = await createAccount(services);
    return [acc, caller(services, acc)];
  };

  beforeAll(async () => {
    A = caller(services, admin);
    B = caller(services, stranger);
    M = caller(services, member);
    contactId = (await newContact(A, { first_name: 'Pat', last_name: 'Primary', company_name: 'Primary Co' })).contact.id;
    foreignContactId = (await newContact(B, { last_name: 'Foreign' })).contact.id;
  });

  const expectDeal = (d: Json): void => {
    for (const f of DEAL_FIELDS) if (!(f in d)) throw new Error(`deal lacks "${f}": ${JSON.stringify(d)}`);
    expect(d.id).toMatch(HEX24);
    for (const f of ['contact_id', 'owner_id', 'pipeline_id', 'sales_pipeline_id']) expect(d[f]).toMatch(HEX24);
    for (const f of ['amount', 'cost', 'margin', 'total_amount', 'total_cost', 'commission', 'commission_percentage'])
      expect(typeof d[f]).toBe('number');
    expect(Number.isInteger(d.months)).toBe(true);
    expect(typeof d.has_deal_items).toBe('boolean');
    expect(typeof d.has_related_notes).toBe('boolean');
    expect(Array.isArray(d.deal_items)).toBe(true);
    expect(Array.isArray(d.deal_fields)).toBe(true);
    expect(Array.isArray(d.attachments)).toBe(true);
    expect(sortedKeys(d.contact_info)).toEqual(expect.arrayContaining(['company', 'contact_name']));
    expect(sortedKeys(d.owner)).toEqual(expect.arrayContaining(['email', 'id', 'name']));
    expect(d.owner.id).toBe(d.owner_id);
    expect(Array.isArray(d.linked_contacts)).toBe(true);
    for (const l of d.linked_contacts)
      expect(sortedKeys(l)).toEqual(expect.arrayContaining(['company', 'contact_name', 'id', 'photo_url']));
    expect(d.created_at).toMatch(ISO_UTC);
    expect(d.modified_at).toMatch(ISO_UTC);
  };

  const dealsOf = async (call: Caller, q: string): Promise<Json[]> => expectSuccess(await call('GET', `/deals?${q}`)).deals;

  describe('POST /contacts/{contact_id}/deals', () => {
    it('defaults: 201, status pending, dates today (UTC), owner the caller, linked_contacts always present, no previous_pipeline_stages', async () => {
      const res = await A('POST', `/contacts/${contactId}/deals`, { name: 'Defaults' });
      const data = expectSuccess(res, 201);
      expect(sortedKeys(data)).toEqual(['deal']);
      const d = data.deal;
      expectDeal(d);
      expect(d).toMatchObject({
        contact_id: contactId,
        owner_id: admin.user.id,
        name: 'Defaults',
        status: 'pending',
        date: aToday(),
        expected_close_date: aToday(),
        close_date: aToday(),
        linked_contacts: [],
      });
      expect(d.owner.email).toBe(admin.user.email);
      expect(d).not.toHaveProperty('previous_pipeline_stages');
      const byMember = await newDeal(M, contactId, { name: 'Member deal' });
      expect(byMember.owner_id).toBe(member.user.id);
      const given = await newDeal(A, contactId, { name: 'Given owner', owner_id: member.user.id });
      expect(given.owner_id).toBe(member.user.id);
      expect(expectSuccess(await A('POST', `/contacts/${contactId}/deals.json`, { name: 'Json' }), 201).deal.name).toBe('Json');
    });

    it('name longer than 60 characters is truncated to 60', async () => {
      const long = 'N'.repeat(30) + 'x'.repeat(45);
      const d = await newDeal(A, contactId, { name: long });
      expect(d.name).toBe(long.slice(0, 60));
    });

    it('text keeps [b]..[/b] and [i]..[/i] exactly as sent', async () => {
      const text = '[b]Bold[/b] and [i]italic[/i] <x>';
      expect((await newDeal(A, contactId, { name: 'Markup', text })).text).toBe(text);
    });

    it('stage: integer with 0 < stage < 100 for pending deals; otherwise 400 keyed by stage', async () => {
      expect((await newDeal(A, contactId, { name: 'S1', stage: 1 })).stage).toBe(1);
      expect((await newDeal(A, contactId, { name: 'S99', stage: 99 })).stage).toBe(99);
      for (const stage of [0, 100, -5, 150, 50.5, '50', 'ten'])
        expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 'Bad stage', stage }), 'stage');
    });

    it('stage sent for a won or lost deal is ignored; a deal created won or lost gets close_date today', async () => {
      for (const status of ['won', 'lost']) {
        const d = await newDeal(A, contactId, { name: `Created ${status}`, status, stage: 30 });
        expect(d.status).toBe(status);
        expect(d.close_date).toEqual(aToday());
      }
    });

    it('status must be pending, won or lost', async () => {
      for (const status of ['bogus', 'closed', 'WON?', 3])
        expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 'Bad status', status }), 'status');
    });

    it('total_amount = amount * months; months < 1 or not an integer is 400', async () => {
      const d = await newDeal(A, contactId, { name: 'Multi', amount: 120.5, months: 3 });
      expect(d).toMatchObject({ amount: 120.5, months: 3, total_amount: 361.5 });
      const one = await newDeal(A, contactId, { name: 'Single', amount: 99.99 });
      expect(one.total_amount).toBe(99.99 * one.months);
      for (const months of [0, -1, 1.5, 'two'])
        expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 'Bad months', months }), 'months');
    });

    it('dates must be YYYY-MM-DD', async () => {
      for (const field of ['expected_close_date', 'close_date', 'date']) {
        for (const value of ['2025/01/01', '01-02-2025', '2025-02-30', 'tomorrow', 20250101]) {
          expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 'Bad date', [field]: value }), field);
        }
      }
      const d = await newDeal(A, contactId, { name: 'Dated', date: '2025-03-04', expected_close_date: '2025-06-30' });
      expect(d).toMatchObject({ date: '2025-03-04', expected_close_date: '2025-06-30' });
    });

    it('wrong types are 400 keyed by the field', async () => {
      expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 'X', amount: 'lots' }), 'amount');
      expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 'X', cost: 'free' }), 'cost');
      expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 42 }), 'name');
      expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 'X', deal_items: 'none' }), 'deal_items');
      expectInvalid(await A('POST', `/contacts/${contactId}/deals`, { name: 'X', linked_contact_ids: 'abc' }), 'linked_contact_ids');
      expectError(await A('POST', `/contacts/${contactId}/deals`, '{"name": "X",'), 400, 'invalid_request_data');
    });

    it('deal_items: negative or fractional qty is 400; items are returned with their fields and has_deal_items', async () => {
      for (const qty of [-1, 1.5, 'many']) {
        const errors = expectError(
          await A('POST', `/contacts/${contactId}/deals`, { name: 'Items', deal_items: [{ name: 'Widget', price: 10, cost: 4, qty }] }),
          400,
          'invalid_request_data',
        );
        expect(Object.keys(errors).some((k) => k.startsWith('deal_items'))).toBe(true);
      }
      const d = await newDeal(A, contactId, {
        name: 'Items',
        deal_items: [{ name: 'Widget', description: 'blue', price: 10, cost: 4, qty: 3 }],
      });
      expect(d.has_deal_items).toBe(true);
      expect(d.deal_items).toHaveLength(1);
      expect(sortedKeys(d.deal_items[0])).toEqual(
        expect.arrayContaining([
          'amount',
          'cost',
          'created_at',
          'deal_id',
          'description',
          'id',
          'modified_at',
          'name',
          'position',
          'predefined_item_id',
          'price',
          'qty',
        ]),
      );
      expect(d.deal_items[0]).toMatchObject({ name: 'Widget', description: 'blue', price: 10, cost: 4, qty: 3, deal_id: d.id });
      expect(Number.isInteger(d.deal_items[0].qty)).toBe(true);
      expect((await newDeal(A, contactId, { name: 'No items' })).has_deal_items).toBe(false);
    });

    it("linked_contact_ids come back as linked_contacts { id, contact_name, company, photo_url }; another account's contact is 404", async () => {
      const other = (await newContact(A, { first_name: 'Lin', last_name: 'Ked', company_name: 'Linked Co' })).contact;
      const d = await newDeal(A, contactId, { name: 'Linked', linked_contact_ids: [other.id] });
      expect(d.linked_contacts).toHaveLength(1);
      expect(d.linked_contacts[0].id).toBe(other.id);
      expect(typeof d.linked_contacts[0].contact_name).toBe('string');
      expectNotFound(await A('POST', `/contacts/${contactId}/deals`, { name: 'Linked', linked_contact_ids: [foreignContactId] }));
      expectNotFound(await A('POST', `/contacts/${contactId}/deals`, { name: 'Owner', owner_id: stranger.user.id }));
    });

    it("another account's contact, unknown and non-24-hex ids are 404", async () => {
      for (const id of [foreignContactId, UNKNOWN_ID, ...BAD_IDS]) expectNotFound(await A('POST', `/contacts/${id}/deals`, { name: 'X' }));
    });
  });

  describe('deal transitions (PUT|PATCH /deals/{id})', () => {
    it('pending -> won records last_stage and close_date (today by default); won <-> lost; reopen to pending', async () => {
      const d = await newDeal(A, contactId, { name: 'Flow', stage: 40, amount: 10 });
      const won = expectSuccess(await A('PATCH', `/deals/${d.id}`, { status: 'won' })).deal;
      expectDeal(won);
      expect(won).toMatchObject({ status: 'won', last_stage: 40, close_date: aToday() });
      const lost = expectSuccess(await A('PATCH', `/deals/${d.id}`, { status: 'lost' })).deal;
      expect(lost).toMatchObject({ status: 'lost', last_stage: 40 });
      const reopened = expectSuccess(await A('PATCH', `/deals/${d.id}`, { status: 'pending', stage: 20 })).deal;
      expect(reopened).toMatchObject({ status: 'pending', stage: 20 });
      const lost2 = expectSuccess(await A('PUT', `/deals/${d.id}?partial=true`, { status: 'lost', close_date: '2026-01-15' })).deal;
      expect(lost2).toMatchObject({ status: 'lost', last_stage: 20, close_date: '2026-01-15' });
      const won2 = expectSuccess(await A('PATCH', `/deals/${d.id}`, { status: 'won' })).deal;
      expect(won2).toMatchObject({ status: 'won', last_stage: 20 });
    });

    it('stage on a won deal is ignored; stage out of range, unknown status, bad dates on update are 400', async () => {
      const d = await newDeal(A, contactId, { name: 'Upd', stage: 10 });
      for (const stage of [0, 100, 12.5]) expectInvalid(await A('PATCH', `/deals/${d.id}`, { stage }), 'stage');
      expectInvalid(await A('PATCH', `/deals/${d.id}`, { status: 'closed' }), 'status');
      expectInvalid(await A('PATCH', `/deals/${d.id}`, { expected_close_date: '2025-1-1' }), 'expected_close_date');
      expectInvalid(await A('PATCH', `/deals/${d.id}`, { months: 0 }), 'months');
      expectSuccess(await A('PATCH', `/deals/${d.id}`, { status: 'won' }));
      const ignored = expectSuccess(await A('PATCH', `/deals/${d.id}`, { stage: 70 })).deal;
      expect(ignored).toMatchObject({ status: 'won', last_stage: 10 });
    });

    it('PUT replaces the writable fields; PATCH changes only the fields sent; total_amount follows', async () => {
      const d = await newDeal(A, contactId, { name: 'Replace me', text: 'keep?', amount: 50, months: 2, stage: 30 });
      const patched = expectSuccess(await A('PATCH', `/deals/${d.id}`, { amount: 60 })).deal;
      expect(patched).toMatchObject({ name: 'Replace me', text: 'keep?', amount: 60, months: 2, total_amount: 120, stage: 30 });
      const put = expectSuccess(await A('PUT', `/deals/${d.id}`, { name: 'Replaced' })).deal;
      expect(put.name).toBe('Replaced');
      expect([null, '']).toContain(put.text);
    });

    it("another account's deal, unknown and non-24-hex ids are 404", async () => {
      const foreign = await newDeal(B, foreignContactId, { name: 'Foreign deal' });
      for (const id of [foreign.id, UNKNOWN_ID, ...BAD_IDS]) {
        expectNotFound(await A('PATCH', `/deals/${id}`, { status: 'won' }));
        expectNotFound(await A('PUT', `/deals/${id}`, { name: 'X' }));
      }
      expect((await dealsOf(B, `contact_id=${foreignContactId}`))[0].deal.status).toBe('pending');
    });
  });

  describe('GET /deals', () => {
    let C: Caller;
    let acc: CreatedAccount;
    let c1: Json;
    let c2: Json;
    let linked: Json;
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      [acc, C] = await fresh();
      c1 = (await newContact(C, { first_name: 'Walter', last_name: 'White', company_name: 'Gray Matter', tags: ['Chem'] })).contact;
      c2 = (await newContact(C, { first_name: 'Jesse', last_name: 'Pinkman' })).contact;
      linked = (await newContact(C, { first_name: 'Saul', last_name: 'Goodman' })).contact;
      ids.p40 = (await newDeal(C, c1.id, { name: 'Blue batch', stage: 40, amount: 300, linked_contact_ids: [linked.id] })).id;
      ids.p60 = (await newDeal(C, c2.id, { name: 'RV repair', stage: 60, amount: 100 })).id;
      ids.won = (await newDeal(C, c1.id, { name: 'Car wash', status: 'won', amount: 500 })).id;
      ids.lost = (await newDeal(C, c2.id, { name: 'Lab', status: 'lost', amount: 50 })).id;
    });

    const listIds = async (q: string) => (await dealsOf(C, q)).map((e: Json) => e.deal.id).sort();
    const sorted = (...xs: string[]) => [...xs].sort();

    it('lists { deal } entries with the paging fields; .json the same; per_page clamp and page rules', async () => {
      const data = expectSuccess(await C('GET', '/deals'));
      expect(sortedKeys(data)).toEqual(['deals', 'max_page', 'page', 'per_page', 'total_count']);
      expectPaging(data, { total_count: 4, page: 1, per_page: 10 });
      for (const e of data.deals) {
        expect(sortedKeys(e)).toEqual(['deal']);
        expectDeal(e.deal);
      }
      expect(expectSuccess(await C('GET', '/deals.json'))).toEqual(data);
      expect(expectSuccess(await C('GET', '/deals?per_page=500')).per_page).toBe(100);
      const past = expectSuccess(await C('GET', '/deals?per_page=3&page=3'));
      expect(past).toMatchObject({ deals: [], total_count: 4, max_page: 2 });
      expectInvalid(await C('GET', '/deals?page=0'), 'page');
      expectInvalid(await C('GET', '/deals?per_page=0'), 'per_page');
    });

    it('status pending/won/lost/closed, stage, name, search, owner_id, contact_id, company_id, tag, pipeline_id', async () => {
      expect(await listIds('status=pending')).toEqual(sorted(ids.p40, ids.p60));
      expect(await listIds('status=won')).toEqual([ids.won]);
      expect(await listIds('status=lost')).toEqual([ids.lost]);
      expect(await listIds('status=closed')).toEqual(sorted(ids.won, ids.lost));
      expect(await listIds('stage=40')).toEqual([ids.p40]);
      expect(await listIds('name=RV')).toEqual([ids.p60]);
      expect(await listIds('search=Pinkman')).toEqual(sorted(ids.p60, ids.lost));
      expect(await listIds(`search=${encodeURIComponent('Gray Matter')}`)).toEqual(sorted(ids.p40, ids.won));
      expect(await listIds('search=Blue')).toEqual([ids.p40]);
      expect(await listIds(`owner_id=${acc.user.id}`)).toHaveLength(4);
      expect(await listIds(`contact_id=${c1.id}`)).toEqual(sorted(ids.p40, ids.won));
      expect(await listIds(`company_id=${c1.company_id}`)).toEqual(sorted(ids.p40, ids.won));
      expect(await listIds('tag=Chem')).toEqual(sorted(ids.p40, ids.won));
      const pipeline = (await dealsOf(C, ''))[0].deal.pipeline_id;
      expect(await listIds(`pipeline_id=${pipeline}`)).toHaveLength(4);
      expectInvalid(await C('GET', '/deals?status=open'), 'status');
      expectInvalid(await C('GET', '/deals?stage=forty'), 'stage');
    });

    it('contact_id, company_id, tag, filter_id: only one at a time (400 naming both)', async () => {
      const qs = [`contact_id=${c1.id}`, `company_id=${c1.company_id}`, 'tag=Chem', `filter_id=${UNKNOWN_ID}`];
      for (let i = 0; i < qs.length; i += 1) {
        for (let j = i + 1; j < qs.length; j += 1)
          expectInvalid(await C('GET', `/deals?${qs[i]}&${qs[j]}`), qs[i].split('=')[0], qs[j].split('=')[0]);
      }
    });

    it('fields=contacts(all) adds contacts: full Contact objects of the primary and linked contacts', async () => {
      const entries = await dealsOf(C, 'fields=contacts(all)');
      for (const e of entries) {
        expect(sortedKeys(e)).toEqual(['contacts', 'deal']);
        for (const c of e.contacts) expectContact(c);
      }
      const blue = entries.find((e: Json) => e.deal.id === ids.p40);
      expect(blue.contacts.map((c: Json) => c.id).sort()).toEqual(sorted(c1.id, linked.id));
      for (const c of blue.contacts) for (const f of CONTACT_FIELDS) expect(c).toHaveProperty(f);
    });

    it('include_history adds previous_pipeline_stages (an object) and only then; boolean forms', async () => {
      for (const v of ['true', 'TRUE', '1']) {
        for (const e of await dealsOf(C, `include_history=${v}`)) {
          expect(e.deal).toHaveProperty('previous_pipeline_stages');
          expect(typeof e.deal.previous_pipeline_stages).toBe('object');
          expect(Array.isArray(e.deal.previous_pipeline_stages)).toBe(false);
        }
      }
      for (const q of ['', 'include_history=false', 'include_history=0'])
        for (const e of await dealsOf(C, q)) expect(e.deal).not.toHaveProperty('previous_pipeline_stages');
      expectInvalid(await C('GET', '/deals?include_history=perhaps'), 'include_history');
    });

    it('sort_by and order', async () => {
      const amounts = async (q: string) => (await dealsOf(C, q)).map((e: Json) => e.deal.amount);
      expect(await amounts('sort_by=amount&order=desc')).toEqual([500, 300, 100, 50]);
      expect(await amounts('sort_by=amount&order=asc')).toEqual([50, 100, 300, 500]);
      expect((await dealsOf(C, 'sort_by=name')).map((e: Json) => e.deal.name)).toEqual(['Blue batch', 'Car wash', 'Lab', 'RV repair']);
      expectInvalid(await C('GET', '/deals?sort_by=colour'), 'sort_by');
    });

    it('date filters: date_filter with since/until (YYYY-MM-DD or Unix seconds); date_filter with modified_since is 400', async () => {
      expect(await listIds(`date_filter=date&since=${fileDay(0)}`)).toHaveLength(4);
      expect(await listIds(`date_filter=created_at&since=${dayOffset(1)}`)).toEqual([]);
      expect(await listIds(`date_filter=created_at&until=${Math.floor(Date.now() / 1000) - 86_400}`)).toEqual([]);
      expect(await listIds(`date_filter=close_date&until=${todayUtc()}`)).toEqual(expect.arrayContaining([ids.won, ids.lost]));
      // date_filter with modified_since: the 400 (naming both) is checked in conformance-failures.
      expectInvalid(await C('GET', `/deals?date_filter=created_at&since=${todayUtc()}&modified_since=${todayUtc()}`), 'date_filter');
      expectInvalid(await C('GET', `/deals?date_filter=created_at&since=someday`), 'since');
    });
  });

  describe('more deal rules', () => {
    it('months defaults to 1; margin is read-only; has_related_notes follows a linked note; deal_fields are admin-only (403)', async () => {
      const d = await newDeal(A, contactId, { name: 'Readonly', amount: 100, margin: 7 });
      expect(d.months).toBe(1);
      expect(d.margin).not.toBe(7);
      expect(d.has_related_notes).toBe(false);
      expectSuccess(await A('POST', '/notes', { contact_id: contactId, text: 'about it', linked_deal_id: d.id }), 201);
      const after = (await dealsOf(A, `contact_id=${contactId}&per_page=100`)).find((e: Json) => e.deal.id === d.id);
      expect(after.deal.has_related_notes).toBe(true);
      const created = expectSuccess(await A('POST', '/deal_fields', { name: unique('Region '), type: 'text' }), 201);
      const field = created.deal_field ?? created;
      const body = { name: 'With field', deal_fields: [{ deal_field: { id: field.id }, value: 'EU' }] };
      expectError(await M('POST', `/contacts/${contactId}/deals`, body), 403, 'no_permission_to_complete_action');
      const withField = await newDeal(A, contactId, body);
      expect(withField.deal_fields).toHaveLength(1);
      expect(withField.deal_fields[0]).toMatchObject({ value: 'EU', deal_field: { id: field.id, type: 'text' } });
      expect(sortedKeys(withField.deal_fields[0].deal_field)).toEqual(expect.arrayContaining(['id', 'name', 'position', 'type']));
    });

    it('pipeline_id / sales_pipeline_id of another account are 404; fields with an unknown resource is 400', async () => {
      const foreign = await newDeal(B, foreignContactId, { name: 'FP' });
      expectNotFound(await A('POST', `/contacts/${contactId}/deals`, { name: 'FP', pipeline_id: foreign.pipeline_id }));
      expectNotFound(await A('POST', `/contacts/${contactId}/deals`, { name: 'FP', sales_pipeline_id: foreign.sales_pipeline_id }));
      expectInvalid(await A('GET', '/deals?fields=bogus(all)'), 'fields');
    });

    it('stage filter: only pending deals with that stage (a deal won from that stage is not listed)', async () => {
      const [, C] = await fresh();
      const c = (await newContact(C, { last_name: 'Stages' })).contact;
      const p = await newDeal(C, c.id, { name: 'P', stage: 40 });
      const w = await newDeal(C, c.id, { name: 'W', stage: 40 });
      expectSuccess(await C('PATCH', `/deals/${w.id}`, { status: 'won' }));
      expect((await dealsOf(C, 'stage=40')).map((e: Json) => e.deal.id)).toEqual([p.id]);
      // pending deals carry stage and expected_close_date; won ones last_stage and close_date
      const won = (await dealsOf(C, 'status=won'))[0].deal;
      expect(won).toMatchObject({ last_stage: 40, close_date: aToday() });
      expect((await dealsOf(C, 'status=pending'))[0].deal).toMatchObject({ stage: 40, expected_close_date: expect.stringMatching(YMD) });
    });

    it('date_filter=expected_close_date with since/until', async () => {
      const [, C] = await fresh();
      const c = (await newContact(C, { last_name: 'Dates' })).contact;
      const early = await newDeal(C, c.id, { name: 'Early', expected_close_date: '2030-01-10' });
      const late = await newDeal(C, c.id, { name: 'Late', expected_close_date: '2030-03-10' });
      const ids = async (q: string) => (await dealsOf(C, q)).map((e: Json) => e.deal.id);
      expect(await ids('date_filter=expected_close_date&since=2030-02-01')).toEqual([late.id]);
      expect(await ids('date_filter=expected_close_date&until=2030-01-10')).toEqual([early.id]);
      expect(await ids('sort_by=expected_close_date&order=desc')).toEqual([late.id, early.id]);
    });
  });

  describe('notes', () => {
    it('POST /notes: 201, Note fields, linked_deal_id "" when none, markup stored as sent, date today', async () => {
      const text = '[b]Bold[/b] then [i]italic[/i]';
      const data = expectSuccess(await A('POST', '/notes', { contact_id: contactId, text }), 201);
      expect(sortedKeys(data)).toEqual(['note']);
      const n = data.note;
      for (const f of NOTE_FIELDS) expect(n).toHaveProperty(f);
      expect(n).toMatchObject({ id: expect.stringMatching(HEX24), contact_id: contactId, text, date: aToday(), linked_deal_id: '' });
      expect(Array.isArray(n.attachments)).toBe(true);
      expect(n.created_at).toMatch(ISO_UTC);
      const got = expectSuccess(await A('GET', `/notes/${n.id}`)).note;
      expect(got.linked_deal_id).toBe('');
      expect(got.text).toBe(text);
    });

    it('linked_deal_id links a deal (name in linked_deal_name); PUT without it clears it to ""', async () => {
      const deal = await newDeal(A, contactId, { name: 'Noted deal' });
      const n = expectSuccess(
        await A('POST', '/notes', { contact_id: contactId, text: 'x', linked_deal_id: deal.id, date: '2025-05-05' }),
        201,
      ).note;
      expect(n).toMatchObject({ linked_deal_id: deal.id, linked_deal_name: 'Noted deal', date: '2025-05-05' });
      const put = expectSuccess(await A('PUT', `/notes/${n.id}`, { contact_id: contactId, text: 'y' })).note;
      expect(put.text).toBe('y');
      expect(put.linked_deal_id).toBe('');
      const foreignDeal = await newDeal(B, foreignContactId, { name: 'FD' });
      expectNotFound(await A('POST', '/notes', { contact_id: contactId, text: 'x', linked_deal_id: foreignDeal.id }));
      expectNotFound(await A('POST', '/notes', { contact_id: contactId, text: 'x', linked_deal_id: UNKNOWN_ID }));
    });

    it("bad input: contact_id required, date YYYY-MM-DD, types; another account's contact is 404", async () => {
      expectInvalid(await A('POST', '/notes', { text: 'orphan' }), 'contact_id');
      expectInvalid(await A('POST', '/notes', { contact_id: contactId, text: 'x', date: '05/05/2025' }), 'date');
      expectInvalid(await A('POST', '/notes', { contact_id: contactId, text: 7 }), 'text');
      expectInvalid(await A('POST', '/notes', { contact_id: contactId, text: 'x', user_ids_to_notify: 'me' }), 'user_ids_to_notify');
      expectNotFound(await A('POST', '/notes', { contact_id: foreignContactId, text: 'x' }));
    });

    it("GET /notes lists { note } with paging; GET|PUT|DELETE on each id; another account's note is 404", async () => {
      const n = expectSuccess(await A('POST', '/notes', { contact_id: contactId, text: 'listed' }), 201).note;
      const list = expectSuccess(await A('GET', '/notes'));
      expectPaging(list);
      expect(sortedKeys(list.notes[0])).toEqual(['note']);
      const foreign = expectSuccess(await B('POST', '/notes', { contact_id: foreignContactId, text: 'secret' }), 201).note;
      for (const id of [foreign.id, UNKNOWN_ID, ...BAD_IDS]) {
        expectNotFound(await A('GET', `/notes/${id}`));
        expectNotFound(await A('PUT', `/notes/${id}`, { contact_id: contactId, text: 'x' }));
        expectNotFound(await A('DELETE', `/notes/${id}`));
      }
      expectSuccess(await A('DELETE', `/notes/${n.id}`));
      expectNotFound(await A('GET', `/notes/${n.id}`));
      expect(expectSuccess(await B('GET', `/notes/${foreign.id}`)).note.text).toBe('secret');
    });
  });

  describe('calls and meetings', () => {
    it('POST /calls: 201, spec + decisions.md fields; GET|PUT|DELETE; bad input; 404s', async () => {
      const data = expectSuccess(
        await A('POST', '/calls', { contact_id: contactId, text: '[i]rang[/i]', call_result: 'interested', call_time_int: 1_700_000_000 }),
        201,
      );
      expect(sortedKeys(data)).toEqual(['call']);
      const call = data.call;
      for (const f of CALL_FIELDS) expect(call).toHaveProperty(f);
      expect(call).toMatchObject({ contact_id: contactId, text: '[i]rang[/i]', call_time_int: 1_700_000_000 });
      expect(Array.isArray(call.attachments)).toBe(true);
      expect(expectSuccess(await A('GET', `/calls/${call.id}`)).call.id).toBe(call.id);
      expect(
        expectSuccess(await A('PUT', `/calls/${call.id}`, { contact_id: contactId, text: 'again', call_time_int: 1_700_000_100 })).call,
      ).toMatchObject({
        text: 'again',
        call_time_int: 1_700_000_100,
      });
      const list = expectSuccess(await A('GET', '/calls'));
      expectPaging(list);
      expect(sortedKeys(list.calls[0])).toEqual(['call']);
      expectInvalid(await A('POST', '/calls', { contact_id: contactId, text: 'x', call_time_int: 'noon' }), 'call_time_int');
      expectInvalid(await A('POST', '/calls', { text: 'x' }), 'contact_id');
      expectNotFound(await A('POST', '/calls', { contact_id: foreignContactId, text: 'x' }));
      const foreign = expectSuccess(await B('POST', '/calls', { contact_id: foreignContactId, text: 'x' }), 201).call;
      for (const id of [foreign.id, UNKNOWN_ID, ...BAD_IDS]) {
        expectNotFound(await A('GET', `/calls/${id}`));
        expectNotFound(await A('PUT', `/calls/${id}`, { contact_id: contactId, text: 'x' }));
        expectNotFound(await A('DELETE', `/calls/${id}`));
      }
      expectSuccess(await A('DELETE', `/calls/${call.id}`));
      expectNotFound(await A('GET', `/calls/${call.id}`));
    });

    it('POST /meetings: 201 with the decisions.md fields; GET|PUT|DELETE; bad input; 404s', async () => {
      const data = expectSuccess(
        await A('POST', '/meetings', { contact_id: contactId, text: 'Lunch', meeting_time_int: 1_900_000_000, place: 'Cafe' }),
        201,
      );
      expect(sortedKeys(data)).toEqual(['meeting']);
      const m = data.meeting;
      for (const f of MEETING_FIELDS) expect(m).toHaveProperty(f);
      expect(m).toMatchObject({
        id: expect.stringMatching(HEX24),
        contact_id: contactId,
        text: 'Lunch',
        meeting_time_int: 1_900_000_000,
        place: 'Cafe',
      });
      expect(Array.isArray(m.attachments)).toBe(true);
      expect(m.created_at).toMatch(ISO_UTC);
      expect(expectSuccess(await A('GET', `/meetings/${m.id}.json`)).meeting).toEqual(m);
      expect(
        expectSuccess(
          await A('PUT', `/meetings/${m.id}`, { contact_id: contactId, text: 'Dinner', meeting_time_int: 1_900_000_500, place: 'Bistro' }),
        ).meeting,
      ).toMatchObject({
        text: 'Dinner',
        place: 'Bistro',
        meeting_time_int: 1_900_000_500,
      });
      const list = expectSuccess(await A('GET', '/meetings'));
      expectPaging(list);
      expect(sortedKeys(list.meetings[0])).toEqual(['meeting']);
      expectInvalid(await A('POST', '/meetings', { contact_id: contactId, text: 'x', meeting_time_int: 'soon' }), 'meeting_time_int');
      expectInvalid(await A('POST', '/meetings', { text: 'x' }), 'contact_id');
      expectNotFound(await A('POST', '/meetings', { contact_id: foreignContactId, text: 'x' }));
      const foreign = expectSuccess(
        await B('POST', '/meetings', { contact_id: foreignContactId, text: 'x', meeting_time_int: 1_900_000_000 }),
        201,
      ).meeting;
      for (const id of [foreign.id, UNKNOWN_ID, ...BAD_IDS]) {
        expectNotFound(await A('GET', `/meetings/${id}`));
        expectNotFound(await A('PUT', `/meetings/${id}`, { contact_id: contactId, text: 'x' }));
        expectNotFound(await A('DELETE', `/meetings/${id}`));
      }
      expectSuccess(await A('DELETE', `/meetings/${m.id}`));
      expectNotFound(await A('GET', `/meetings/${m.id}`));
    });
  });

  describe('actions', () => {
    const expectAction = (a: Json, { completed = false } = {}): void => {
      for (const f of ACTION_FIELDS.filter((k) => !(completed && k === 'date'))) expect(a).toHaveProperty(f);
      expect(a.id).toMatch(HEX24);
      expect(a.assignee_id).toMatch(HEX24);
      expect(typeof a.done).toBe('boolean');
      expect(typeof a.externally_controlled).toBe('boolean');
      expect(Number.isInteger(a.position)).toBe(true);
      expect(a.created_at).toMatch(ISO_UTC);
    };
    const newAction = async (call: Caller, body: Record<string, unknown>): Promise<Json> =>
      expectSuccess(await call('POST', '/actions', body), 201).action;
    const wrapper = (call: Caller, id: string) => getContact(call, id);

    it('POST /actions: 201 with the Action fields; the contact wrapper shows it as next_action', async () => {
      const c = (await newContact(A, { last_name: 'Act' })).contact;
      const data = expectSuccess(
        await A('POST', '/actions', {
          contact_id: c.id,
          assignee_id: admin.user.id,
          text: 'Call back',
          status: 'date',
          date: dayOffset(3),
        }),
        201,
      );
      expect(sortedKeys(data)).toEqual(['action']);
      const a = data.action;
      expectAction(a);
      expect(a).toMatchObject({
        contact_id: c.id,
        assignee_id: admin.user.id,
        text: 'Call back',
        status: 'date',
        date: dayOffset(3),
        done: false,
        externally_controlled: false,
      });
      const w = await wrapper(A, c.id);
      expect(w.next_action.id).toBe(a.id);
      expect(w.next_actions.map((x: Json) => x.id)).toEqual([a.id]);
      expect(expectSuccess(await A('GET', `/actions/${a.id}`)).action).toEqual(a);
      const list = expectSuccess(await A('GET', '/actions'));
      expectPaging(list);
      expect(sortedKeys(list.actions[0])).toEqual(['action']);
    });

    it('at most one next action per contact and assignee; queued actions; a queued action dated before the next action is a date conflict', async () => {
      const c = (await newContact(A, { last_name: 'Queue' })).contact;
      await newAction(A, { contact_id: c.id, assignee_id: admin.user.id, text: 'first', status: 'date', date: dayOffset(10) });
      await A('POST', '/actions', { contact_id: c.id, assignee_id: admin.user.id, text: 'second', status: 'date', date: dayOffset(12) });
      await A('POST', '/actions', { contact_id: c.id, assignee_id: admin.user.id, text: 'third', status: 'waiting' });
      let w = await wrapper(A, c.id);
      expect(w.next_actions.filter((x: Json) => x.assignee_id === admin.user.id)).toHaveLength(1);
      // member's own next action on the same contact is separate
      await newAction(M, { contact_id: c.id, assignee_id: member.user.id, text: 'member', status: 'date', date: dayOffset(5) });
      w = await wrapper(A, c.id);
      expect(w.next_actions.filter((x: Json) => x.assignee_id === member.user.id)).toHaveLength(1);
      expect(w.next_actions.filter((x: Json) => x.assignee_id === admin.user.id)).toHaveLength(1);
      for (const x of w.next_actions) expect(['date', 'date_time', 'waiting']).toContain(x.status);
      for (const x of w.queued_actions) expect(x.status).toBe('queued_with_date');
    });

    it("swap: the queued action dated before the next action becomes the next action; 409 without a date conflict; 403 for another user's action; 404 for another account's", async () => {
      const c = (await newContact(A, { last_name: 'Swap' })).contact;
      const next = await newAction(A, { contact_id: c.id, assignee_id: admin.user.id, text: 'later', status: 'date', date: dayOffset(20) });
      const queued = await newAction(A, {
        contact_id: c.id,
        assignee_id: admin.user.id,
        text: 'sooner',
        status: 'queued_with_date',
        date: dayOffset(5),
      });
      const notConflicting = await newAction(A, {
        contact_id: c.id,
        assignee_id: admin.user.id,
        text: 'much later',
        status: 'queued_with_date',
        date: dayOffset(40),
      });
      expect(queued.status).toBe('queued_with_date');
      let w = await wrapper(A, c.id);
      expect(w.next_action.id).toBe(next.id);
      expect(w.queued_actions.map((x: Json) => x.id)).toEqual(expect.arrayContaining([queued.id, notConflicting.id]));
      expect(w.next_action_conflicts.map((x: Json) => x.id)).toEqual([queued.id]);
      expectError(await A('PUT', `/actions/${notConflicting.id}/swap`), 409, 'conflict');
      const swapped = expectSuccess(await A('PUT', `/actions/${queued.id}/swap`));
      expect(swapped.action.id).toBe(queued.id);
      expect(['date', 'date_time']).toContain(swapped.action.status);
      w = await wrapper(A, c.id);
      expect(w.next_action.id).toBe(queued.id);
      expect(w.queued_actions.map((x: Json) => x.id)).toContain(next.id);
      expect(w.next_action_conflicts).toEqual([]);

      // another user's action (member's, same account): 403
      const mc = (await newContact(M, { last_name: 'MemberSwap' })).contact;
      await newAction(M, { contact_id: mc.id, assignee_id: member.user.id, text: 'm later', status: 'date', date: dayOffset(20) });
      const mq = await newAction(M, {
        contact_id: mc.id,
        assignee_id: member.user.id,
        text: 'm sooner',
        status: 'queued_with_date',
        date: dayOffset(2),
      });
      expectError(await A('PUT', `/actions/${mq.id}/swap`), 403, 'no_permission_to_complete_action');
      // another account's: 404
      await newAction(B, {
        contact_id: foreignContactId,
        assignee_id: stranger.user.id,
        text: 'f later',
        status: 'date',
        date: dayOffset(20),
      });
      const fq = await newAction(B, {
        contact_id: foreignContactId,
        assignee_id: stranger.user.id,
        text: 'f sooner',
        status: 'queued_with_date',
        date: dayOffset(2),
      });
      expectNotFound(await A('PUT', `/actions/${fq.id}/swap`));
      expect(expectSuccess(await M('PUT', `/actions/${mq.id}/swap`)).action.id).toBe(mq.id);
    });

    it('mark_as_done: 200, status done, done true, done_at a date, no date key; undo_completion restores', async () => {
      const c = (await newContact(A, { last_name: 'Done' })).contact;
      const a = await newAction(A, { contact_id: c.id, assignee_id: admin.user.id, text: 'finish', status: 'date', date: dayOffset(1) });
      const done = expectSuccess(await A('PUT', `/actions/${a.id}/mark_as_done`)).action;
      expectAction(done, { completed: true });
      expect(done).toMatchObject({ id: a.id, status: 'done', done: true, done_at: aToday() });
      expect(done.done_at).toMatch(YMD);
      expect(done).not.toHaveProperty('date');
      const read = expectSuccess(await A('GET', `/actions/${a.id}`)).action;
      expect(read).not.toHaveProperty('date');
      expect(read.status).toBe('done');
      const undone = expectSuccess(await A('PUT', `/actions/${a.id}/undo_completion`)).action;
      expect(undone.done).toBe(false);
      expect(undone.status).not.toBe('done');
      expect(undone).toHaveProperty('date');
    });

    it('queued actions are ordered by position; a completed action leaves next_actions and has no date key in lists', async () => {
      const c = (await newContact(A, { last_name: 'Positions' })).contact;
      const next = await newAction(A, { contact_id: c.id, assignee_id: admin.user.id, text: 'n', status: 'date', date: dayOffset(2) });
      await newAction(A, { contact_id: c.id, assignee_id: admin.user.id, text: 'q1', status: 'queued_with_date', date: dayOffset(30) });
      await newAction(A, { contact_id: c.id, assignee_id: admin.user.id, text: 'q2', status: 'queued_with_date', date: dayOffset(31) });
      const w = await wrapper(A, c.id);
      const positions = w.queued_actions.map((x: Json) => x.position);
      expect(positions).toEqual([...positions].sort((a: number, b: number) => a - b));
      expectSuccess(await A('PUT', `/actions/${next.id}/mark_as_done`));
      const after = await wrapper(A, c.id);
      expect(after.next_actions.map((x: Json) => x.id)).not.toContain(next.id);
      const listed = expectSuccess(await A('GET', '/actions?per_page=100'))
        .actions.map((e: Json) => e.action)
        .find((x: Json) => x.id === next.id);
      expect(listed).toMatchObject({ status: 'done', done: true });
      expect(listed).not.toHaveProperty('date');
    });

    it('externally controlled actions cannot be deleted until unlinked (spec: after unlink "the action can be completed or deleted")', async () => {
      const c = (await newContact(A, { last_name: 'ExtDel' })).contact;
      const a = expectSuccess(
        await A('PUT', `/actions/external/outlook/${unique('x-')}`, {
          contact_id: c.id,
          assignee_id: admin.user.id,
          text: 't',
          date: dayOffset(3),
          status: 'date',
        }),
        201,
      ).action;
      expectError(await A('DELETE', `/actions/${a.id}`), 409, 'conflict');
      expectSuccess(await A('PUT', `/actions/${a.id}/unlink`));
      expectSuccess(await A('DELETE', `/actions/${a.id}`));
      expectNotFound(await A('GET', `/actions/${a.id}`));
    });

    it("bad input: unknown status, dates not YYYY-MM-DD, wrong types, missing contact_id; another account's contact/assignee is 404", async () => {
      const c = (await newContact(A, { last_name: 'BadAct' })).contact;
      expectInvalid(await A('POST', '/actions', { contact_id: c.id, text: 'x', status: 'someday' }), 'status');
      expectInvalid(await A('POST', '/actions', { contact_id: c.id, text: 'x', status: 'date', date: '2025-1-1' }), 'date');
      expectInvalid(await A('POST', '/actions', { contact_id: c.id, text: 'x', status: 'date', date: '2025-02-31' }), 'date');
      expectInvalid(
        await A('POST', '/actions', { contact_id: c.id, text: 'x', status: 'date_time', date: dayOffset(1), exact_time: 'noon' }),
        'exact_time',
      );
      expectInvalid(await A('POST', '/actions', { contact_id: c.id, text: 5, status: 'waiting' }), 'text');
      expectInvalid(await A('POST', '/actions', { text: 'x', status: 'waiting' }), 'contact_id');
      expectNotFound(await A('POST', '/actions', { contact_id: foreignContactId, text: 'x', status: 'waiting' }));
      expectNotFound(await A('POST', '/actions', { contact_id: c.id, assignee_id: stranger.user.id, text: 'x', status: 'waiting' }));
    });

    it("another account's action, unknown and non-24-hex ids are 404 on every action endpoint", async () => {
      const foreign = await newAction(B, {
        contact_id: foreignContactId,
        assignee_id: stranger.user.id,
        text: 'theirs',
        status: 'waiting',
      });
      for (const id of [foreign.id, UNKNOWN_ID, ...BAD_IDS]) {
        expectNotFound(await A('GET', `/actions/${id}`));
        expectNotFound(await A('PUT', `/actions/${id}`, { contact_id: contactId, text: 'x', status: 'waiting' }));
        expectNotFound(await A('DELETE', `/actions/${id}`));
        expectNotFound(await A('PUT', `/actions/${id}/mark_as_done`));
        expectNotFound(await A('PUT', `/actions/${id}/undo_completion`));
        expectNotFound(await A('PUT', `/actions/${id}/swap`));
        expectNotFound(await A('PUT', `/actions/${id}/unlink`));
      }
      expect(expectSuccess(await B('GET', `/actions/${foreign.id}`)).action.text).toBe('theirs');
    });

    it('external actions: PUT /actions/external/{provider}/{external_id} 201 creates, 200 updates; locked fields 409 until unlink', async () => {
      const c = (await newContact(A, { last_name: 'External' })).contact;
      const ext = unique('evt-');
      const body = {
        contact_id: c.id,
        assignee_id: admin.user.id,
        text: 'Synced meeting',
        date: dayOffset(7),
        exact_time: Math.floor(Date.parse(`${dayOffset(7)}T10:00:00Z`) / 1000),
        status: 'date_time',
      };
      const created = expectSuccess(await A('PUT', `/actions/external/google/${ext}`, body), 201).action;
      expectAction(created);
      expect(created).toMatchObject({
        externally_controlled: true,
        text: 'Synced meeting',
        status: 'date_time',
        date: dayOffset(7),
        exact_time: body.exact_time,
      });
      const updated = expectSuccess(await A('PUT', `/actions/external/google/${ext}`, { ...body, text: 'Moved meeting' })).action;
      expect(updated).toMatchObject({ id: created.id, text: 'Moved meeting', externally_controlled: true });

      expectError(await A('PUT', `/actions/${created.id}`, { contact_id: c.id, text: 'Mine now', status: 'waiting' }), 409, 'conflict');
      expectError(await A('PUT', `/actions/${created.id}?partial=true`, { text: 'Mine now' }), 409, 'conflict');
      expectError(await A('PUT', `/actions/${created.id}?partial=true`, { date: dayOffset(9) }), 409, 'conflict');
      expectError(await A('PUT', `/actions/${created.id}/mark_as_done`), 409, 'conflict');
      expect(expectSuccess(await A('GET', `/actions/${created.id}`)).action).toMatchObject({ text: 'Moved meeting', done: false });

      const unlinked = expectSuccess(await A('PUT', `/actions/${created.id}/unlink`)).action;
      expect(unlinked).toMatchObject({ id: created.id, externally_controlled: false });
      const edited = expectSuccess(await A('PUT', `/actions/${created.id}?partial=true`, { text: 'Mine now' })).action;
      expect(edited.text).toBe('Mine now');
      expect(expectSuccess(await A('PUT', `/actions/${created.id}/mark_as_done`)).action).toMatchObject({ done: true, status: 'done' });

      expectNotFound(await A('PUT', `/actions/external/google/${unique('evt-')}`, { ...body, contact_id: foreignContactId }));
      expectInvalid(await A('PUT', `/actions/external/google/${unique('evt-')}`, { ...body, date: 'next week' }), 'date');
      expectInvalid(await A('PUT', `/actions/external/google/${unique('evt-')}`, { text: 'no contact' }), 'contact_id');
    });
  });
  describe('no input crashes a service (spec: 400 is the default for unclassified errors)', () => {
    it('NUL characters in record fields and queries are 400 invalid_request_data naming the field; huge numbers are 400, never 5xx', async () => {
      const NUL = 'a\u0000b';
      const c = (await newContact(A, { last_name: 'Fuzz' })).contact;
      const deal = await newDeal(A, c.id, { name: 'Fuzz deal' });
      expectInvalid(await A('POST', `/contacts/${c.id}/deals`, { name: NUL }), 'name');
      expectInvalid(await A('POST', `/contacts/${c.id}/deals`, { name: 'x', text: NUL }), 'text');
      expectInvalid(await A('PATCH', `/deals/${deal.id}`, { text: NUL }), 'text');
      expectInvalid(await A('POST', '/notes', { contact_id: c.id, text: NUL }), 'text');
      expectInvalid(await A('POST', '/calls', { contact_id: c.id, text: NUL }), 'text');
      expectInvalid(await A('POST', '/meetings', { contact_id: c.id, text: 'm', place: NUL }), 'place');
      expectInvalid(await A('POST', '/actions', { contact_id: c.id, text: NUL, status: 'waiting' }), 'text');
      expectInvalid(
        await A('PUT', '/actions/external/google/a%00b', { contact_id: c.id, assignee_id: admin.user.id, text: 't', status: 'waiting' }),
        'external_id',
      );
      expectInvalid(await A('GET', '/deals?search=a%00b'), 'search');
      expectInvalid(await A('GET', '/deals?name=a%00b'), 'name');
      expectInvalid(await A('POST', `/contacts/${c.id}/deals`, { name: 'big', months: 2147483648 }), 'months');
      expectInvalid(await A('POST', `/contacts/${c.id}/deals`, { name: 'big', stage: 2 ** 53 }), 'stage');
    });
  });
});
