import { createAccount, createUser, type CreatedAccount } from '@crm/testing';
import { setupE2e } from './setup';
import { clearOfMidnight, fileDay } from './utc-days';
import {
  BAD_IDS,
  caller,
  COMPANY_FIELDS,
  createUserWith,
  dayOffset,
  expectCompany,
  expectEmptyData,
  expectError,
  expectInvalid,
  expectNotFound,
  expectPaging,
  expectSuccess,
  expectSuccessWithSummary,
  expectWrapper,
  getContact,
  HEX24,
  newContact,
  newDeal,
  nowSeconds,
  sleep,
  sortedKeys,
  statuses,
  todayUtc,
  unique,
  UNKNOWN_ID,
  type Caller,
  type Json,
} from './conformance-helpers';

/**
 * Black-box conformance of contacts, companies and account configuration, written from
 * crm-service-spec.md and decisions.md only (quoted in the test names / comments).
 */
describe('conformance: contacts, companies, configuration (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });
  let deleter: CreatedAccount;
  let A: Caller;
  let B: Caller;
  let M: Caller;
  let D: Caller;
  const fresh = async (): Promise<[CreatedAccount, Caller]> => {
    const acc = await createAccount(services);
    return [acc, caller(services, acc)];
  };

  beforeAll(async () => {
    deleter = await createUserWith(services, admin, { role: 'user', permissions: ['delete_contacts'] });
    A = caller(services, admin);
    B = caller(services, stranger);
    M = caller(services, member);
    D = caller(services, deleter);
  });

  describe('POST /contacts', () => {
    it('creates with last_name only: 201, wrapper with exactly its keys, status defaults to lead, owner is the caller', async () => {
      const lead = (await statuses(A)).find((s) => /^lead$/i.test(s.status));
      expect(lead).toBeDefined();
      const res = await A('POST', '/contacts', { last_name: unique('Solo') });
      const data = expectSuccess(res, 201);
      expectWrapper(data);
      expect(data.contact.status_id).toBe(lead.id);
      // A contact's `status` is the status's name (its `text`), as OnePageCRM shows it.
      expect(data.contact.status).toBe(lead.text);
      expect(data.contact.owner_id).toBe(admin.user.id);
      expect(data.next_action).toBeNull();
      expect(data.company).toBeNull();
    });

    it('creates with company_name only and creates the company', async () => {
      const name = unique('OnlyCo ');
      const data = expectSuccess(await A('POST', '/contacts', { company_name: name }), 201);
      expectWrapper(data);
      expect(data.contact.company_id).toMatch(HEX24);
      expect(data.company).not.toBeNull();
      expect(data.company.name).toBe(name);
      expect(data.contact.company_name).toBe(name);
    });

    it('needs last_name or company_name: 400 invalid_request_data with errors keyed by the field', async () => {
      for (const body of [{}, { first_name: 'Nobody' }, { first_name: 'Nobody', last_name: '', company_name: '' }]) {
        const errors = expectError(await A('POST', '/contacts', body), 400, 'invalid_request_data');
        expect(Object.keys(errors).some((k) => k === 'last_name' || k === 'company_name')).toBe(true);
      }
    });

    it('matches an existing company case-insensitively through company_name', async () => {
      const name = unique('Globex Corp ');
      const first = await newContact(A, { last_name: 'One', company_name: name });
      const second = await newContact(A, { last_name: 'Two', company_name: name.toUpperCase() });
      const third = await newContact(A, { last_name: 'Three', company_name: name.toLowerCase() });
      expect(second.contact.company_id).toBe(first.contact.company_id);
      expect(third.contact.company_id).toBe(first.contact.company_id);
      const company = expectSuccess(await A('GET', `/companies/${first.contact.company_id}`)).company;
      expect(company.contacts_count).toBe(3);
      expect((await getContact(A, first.contact.id)).contact.company_size).toBe(3);
    });

    it('returns every Contact field of the spec with the right types for a fully populated contact', async () => {
      const ls = expectSuccess(await A('POST', '/lead_sources', { text: unique('Fair ') }), 201);
      const leadSource = ls.lead_source ?? ls;
      const body = {
        title: 'Ms',
        first_name: 'Ada',
        last_name: 'Lovelace',
        job_title: 'Analyst',
        company_name: unique('Engines '),
        urls: [{ type: 'website', value: 'https://ada.example' }],
        phones: [{ type: 'work', value: '+44 20 7946 0018' }],
        emails: [{ type: 'work', value: 'ada@example.test' }],
        address_list: [{ address: '1 Way', city: 'London', state: 'LDN', zip_code: 'N1', country_code: 'GB', type: 'work' }],
        tags: ['Math'],
        lead_source_id: leadSource.id,
        background: '[b]first[/b] [i]programmer[/i]',
      };
      const data = expectSuccess(await A('POST', '/contacts', body), 201);
      expectWrapper(data);
      const c = data.contact;
      expect(c).toMatchObject({
        title: 'Ms',
        first_name: 'Ada',
        last_name: 'Lovelace',
        job_title: 'Analyst',
        company_name: body.company_name,
        urls: [expect.objectContaining(body.urls[0])],
        phones: [expect.objectContaining(body.phones[0])],
        emails: [expect.objectContaining(body.emails[0])],
        address_list: [expect.objectContaining(body.address_list[0])],
        tags: ['Math'],
        lead_source_id: leadSource.id,
        background: body.background,
        pending_deal: false,
        total_pendings: 0,
        total_deals_count: 0,
        company_size: 1,
        sales_closed_for: [],
        closed_sales: [],
      });
      expect(typeof c.lead_source).toBe('string');
      expect(c.letter.toLowerCase()).toBe('l');
      // GET returns the same wrapper, also with .json
      const got = expectSuccess(await A('GET', `/contacts/${c.id}`));
      expectWrapper(got);
      expect(got.contact).toEqual(c);
      expect(expectSuccess(await A('GET', `/contacts/${c.id}.json`))).toEqual(got);
    });

    it('letter: first letter of the last name, or of the company name when there is no last name', async () => {
      expect((await newContact(A, { first_name: 'Amy', last_name: 'Zed' })).contact.letter.toLowerCase()).toBe('z');
      expect((await newContact(A, { company_name: unique('Quartz ') })).contact.letter.toLowerCase()).toBe('q');
    });

    it('an id in the body of another account (status_id, lead_source_id, owner_id) is 404', async () => {
      const foreignStatus = (await statuses(B))[0].id;
      expectNotFound(await A('POST', '/contacts', { last_name: 'X', status_id: foreignStatus }));
      expectNotFound(await A('POST', '/contacts', { last_name: 'X', owner_id: stranger.user.id }));
      const ls = expectSuccess(await B('POST', '/lead_sources', { text: unique('Foreign ') }), 201);
      expectNotFound(await A('POST', '/contacts', { last_name: 'X', lead_source_id: (ls.lead_source ?? ls).id }));
    });

    it('wrong types are 400 invalid_request_data keyed by the field', async () => {
      expectInvalid(await A('POST', '/contacts', { last_name: 42 }), 'last_name');
      expectInvalid(await A('POST', '/contacts', { last_name: 'X', emails: 'a@b.c' }), 'emails');
      expectInvalid(await A('POST', '/contacts', { last_name: 'X', tags: 'vip' }), 'tags');
      expectInvalid(await A('POST', '/contacts', { last_name: 'X', starred: 'yes' }), 'starred');
      expectError(await A('POST', '/contacts', '{"last_name":'), 400, 'invalid_request_data');
    });
  });

  describe('single-contact reads and 404s', () => {
    it("another account's contact, an unknown id and ids that are not 24-hex are 404 resource_not_found on every contact endpoint", async () => {
      const foreign = (await newContact(B, { last_name: 'Foreign' })).contact.id;
      const mine = (await newContact(A, { last_name: 'Mine' })).contact.id;
      const myStatus = (await statuses(A))[1].id;
      for (const id of [foreign, UNKNOWN_ID, ...BAD_IDS]) {
        expectNotFound(await A('GET', `/contacts/${id}`));
        expectNotFound(await A('GET', `/contacts/${id}.json`));
        expectNotFound(await A('PUT', `/contacts/${id}`, { last_name: 'Hijack' }));
        expectNotFound(await A('PUT', `/contacts/${id}?partial=true`, { last_name: 'Hijack' }));
        expectNotFound(await A('PATCH', `/contacts/${id}`, { last_name: 'Hijack' }));
        expectNotFound(await A('PUT', `/contacts/${id}/change_status/${myStatus}`));
        expectNotFound(await A('PUT', `/contacts/${id}/assign_tag/X`));
        expectNotFound(await A('PUT', `/contacts/${id}/unassign_tag/X`));
        expectNotFound(await A('PUT', `/contacts/${id}/close_sales_cycle`, { comment: 'x' }));
        expectNotFound(await A('DELETE', `/contacts/${id}`));
        expectNotFound(await A('GET', `/contacts/cascade/${id}`));
        expectNotFound(await A('POST', `/contacts/${id}/deals`, { name: 'D' }));
      }
      for (const id of [foreign, UNKNOWN_ID]) {
        expectNotFound(await A('DELETE', `/contacts/delete?ids=${id}`));
        expectNotFound(await A('POST', `/contacts/undelete?ids=${id}`));
      }
      // The foreign contact is untouched.
      expect((await getContact(B, foreign)).contact.last_name).toBe('Foreign');
      // Mixed list with one foreign id: 404 and nothing deleted.
      expectNotFound(await A('DELETE', `/contacts/delete?ids=${mine},${foreign}`));
      expect((await getContact(A, mine)).contact.id).toBe(mine);
    });
  });

  describe('GET /contacts', () => {
    it('lists wrappers with exactly their keys plus the paging fields; .json answers the same', async () => {
      const [, C] = await fresh();
      for (const n of ['Adams', 'Brown', 'Clark']) await newContact(C, { last_name: n, company_name: unique('Co ') });
      const data = expectSuccess(await C('GET', '/contacts'));
      expect(sortedKeys(data)).toEqual(['contacts', 'max_page', 'page', 'per_page', 'total_count']);
      expectPaging(data, { total_count: 3, page: 1, per_page: 10 });
      expect(data.max_page).toBe(1);
      for (const w of data.contacts) expectWrapper(w);
      expect(expectSuccess(await C('GET', '/contacts.json'))).toEqual(data);
    });

    it('paging: per_page clamps to 100, page/per_page below 1 or not integers are 400 naming the field, max_page = ceil, page past max_page is empty with the same counts', async () => {
      const [, C] = await fresh();
      for (let i = 0; i < 5; i += 1) await newContact(C, { last_name: `Pager${i}` });
      const p1 = expectSuccess(await C('GET', '/contacts?per_page=2'));
      expectPaging(p1, { total_count: 5, per_page: 2, page: 1 });
      expect(p1.max_page).toBe(3);
      expect(p1.contacts).toHaveLength(2);
      const p3 = expectSuccess(await C('GET', '/contacts?per_page=2&page=3'));
      expect(p3.contacts).toHaveLength(1);
      const past = expectSuccess(await C('GET', '/contacts?per_page=2&page=4'));
      expect(past.contacts).toEqual([]);
      expect(past).toMatchObject({ total_count: 5, per_page: 2, max_page: 3, page: 4 });
      expect(expectSuccess(await C('GET', '/contacts?per_page=1000')).per_page).toBe(100);
      expect(expectSuccess(await C('GET', '/contacts?per_page=100')).per_page).toBe(100);
      for (const q of ['page=0', 'page=-1', 'page=abc', 'page=1.5']) expectInvalid(await C('GET', `/contacts?${q}`), 'page');
      for (const q of ['per_page=0', 'per_page=-3', 'per_page=ten', 'per_page=2.5'])
        expectInvalid(await C('GET', `/contacts?${q}`), 'per_page');
      // no records at all: max_page 0
      const [, E] = await fresh();
      const empty = expectSuccess(await E('GET', '/contacts'));
      expect(empty).toMatchObject({ contacts: [], total_count: 0, max_page: 0 });
    });

    it('sorted by name by default; sort_by and order', async () => {
      const [, C] = await fresh();
      const names = ['Mills', 'Baker', 'Young', 'Evans'];
      const ids: Record<string, string> = {};
      for (const n of names) {
        ids[n] = (await newContact(C, { first_name: n === 'Baker' ? 'Zoe' : 'Al', last_name: n })).contact.id;
        await sleep(20);
      }
      const lastNames = async (q: string) => expectSuccess(await C('GET', `/contacts${q}`)).contacts.map((w: Json) => w.contact.last_name);
      expect(await lastNames('')).toEqual(['Baker', 'Evans', 'Mills', 'Young']);
      expect(await lastNames('?sort_by=last_name')).toEqual(['Baker', 'Evans', 'Mills', 'Young']);
      expect(await lastNames('?sort_by=last_name&order=asc')).toEqual(['Baker', 'Evans', 'Mills', 'Young']);
      expect(await lastNames('?sort_by=last_name&order=desc')).toEqual(['Young', 'Mills', 'Evans', 'Baker']);
      expect(await lastNames('?sort_by=created_at')).toEqual(names);
      expect(await lastNames('?sort_by=created_at&order=desc')).toEqual([...names].reverse());
      expect((await lastNames('?sort_by=first_name'))[3]).toBe('Baker');
      expectInvalid(await C('GET', '/contacts?sort_by=shoe_size'), 'sort_by');
      expectInvalid(await C('GET', '/contacts?order=sideways'), 'order');
    });

    it('time filters take YYYY-MM-DD and Unix seconds; a created_at/modified_at range without sort_by is newest first', async () => {
      const [, C] = await fresh();
      const first = (await newContact(C, { last_name: 'Aaa' })).contact.id;
      await sleep(1100);
      const t = nowSeconds();
      await sleep(1100);
      const second = (await newContact(C, { last_name: 'Bbb' })).contact.id;
      await sleep(20);
      const third = (await newContact(C, { last_name: 'Ccc' })).contact.id;
      const ids = async (q: string) => expectSuccess(await C('GET', `/contacts?${q}`)).contacts.map((w: Json) => w.contact.id);
      expect(await ids(`date_filter=created_at&since=${t}`)).toEqual([third, second]);
      expect(await ids(`date_filter=created_at&until=${t}`)).toEqual([first]);
      expect(await ids(`date_filter=created_at&since=${fileDay(0)}`)).toEqual([third, second, first]);
      expect(await ids(`date_filter=created_at&until=${todayUtc()}`)).toEqual([third, second, first]);
      expect(await ids(`date_filter=created_at&since=${dayOffset(1)}`)).toEqual([]);
      expect(await ids(`date_filter=created_at&until=${fileDay(-1)}`)).toEqual([]);
      expect(await ids(`date_filter=created_at&since=${fileDay(0)}&sort_by=last_name`)).toEqual([first, second, third]);
      expect(await ids(`modified_since=${t}`)).toEqual([third, second]);
      expect(await ids(`unmodified_since=${t}`)).toEqual([first]);
      expect(await ids(`modified_since=${fileDay(0)}`)).toEqual([third, second, first]);
      expect(await ids(`date_filter=modified_at&since=${t}`)).toEqual([third, second]);
      for (const bad of ['yesterday', '2025-13-40', '23-11-2025'])
        expectInvalid(await C('GET', `/contacts?date_filter=created_at&since=${bad}`), 'since');
      expectInvalid(await C('GET', `/contacts?modified_since=soon`), 'modified_since');
    });

    it('mutually exclusive parameters are 400 invalid_request_data naming both', async () => {
      const company = (await newContact(A, { last_name: 'Ex', company_name: unique('ExCo ') })).contact.company_id;
      const pairs: Array<[string, string]> = [
        [`has_actions=true`, `has_actions_for_me=true`],
        [`lead_source=Web`, `lead_source_id=${UNKNOWN_ID}`],
        [`not_linked_with=${company}`, `company_id=${company}`],
        [`company_id=${company}`, `tag=VIP`],
        [`company_id=${company}`, `filter_id=${UNKNOWN_ID}`],
        [`tag=VIP`, `filter_id=${UNKNOWN_ID}`],
        [`date_filter=created_at&since=${todayUtc()}`, `modified_since=${todayUtc()}`],
        [`date_filter=created_at&since=${todayUtc()}`, `unmodified_since=${todayUtc()}`],
      ];
      for (const [a, b] of pairs) {
        const res = await A('GET', `/contacts?${a}&${b}`);
        expectInvalid(res, a.split('=')[0], b.split('=')[0]);
      }
    });

    it('custom_field_id and custom_field_value are used together', async () => {
      const errors = expectError(await A('GET', `/contacts?custom_field_id=${UNKNOWN_ID}`), 400, 'invalid_request_data');
      expect(Object.keys(errors).some((k) => k.startsWith('custom_field'))).toBe(true);
      const errors2 = expectError(await A('GET', `/contacts?custom_field_value=x`), 400, 'invalid_request_data');
      expect(Object.keys(errors2).some((k) => k.startsWith('custom_field'))).toBe(true);
    });

    it('filters: team, search, phone, email, url, letter, status_id, owner_id, tag, company_id, not_linked_with, lead_source_id, starred, pending_deal', async () => {
      const [acc, C] = await fresh();
      const other = await createUser(services, acc);
      const O = caller(services, other);
      const sts = await statuses(C);
      const prospect = sts.find((s) => !/^lead$/i.test(s.status));
      const ls = expectSuccess(await C('POST', '/lead_sources', { text: 'Referral' }), 201);
      const lsId = (ls.lead_source ?? ls).id;
      const coName = unique('Hooli ');
      const a = (
        await newContact(C, {
          first_name: 'Gavin',
          last_name: 'Belson',
          company_name: coName,
          phones: [{ type: 'work', value: '5550001' }],
          tags: ['VIP'],
          status_id: prospect.id,
        })
      ).contact;
      const b = (
        await newContact(C, {
          last_name: 'Hendricks',
          emails: [{ type: 'work', value: 'richard@piedpiper.test' }],
          urls: [{ type: 'website', value: 'https://piedpiper.test' }],
          lead_source_id: lsId,
          starred: true,
        })
      ).contact;
      const c = (await newContact(O, { last_name: 'Bachman' })).contact;
      await newDeal(C, b.id, { name: 'Compression', amount: 10 });
      const ids = async (q: string, who: Caller = C) =>
        expectSuccess(await who('GET', `/contacts?${q}`))
          .contacts.map((w: Json) => w.contact.id)
          .sort();
      const sorted = (...xs: string[]) => [...xs].sort();
      // team: include contacts owned by other users
      expect(await ids('')).toEqual(sorted(a.id, b.id));
      expect(await ids('team=true')).toEqual(sorted(a.id, b.id, c.id));
      expect(await ids('team=1')).toEqual(sorted(a.id, b.id, c.id));
      expect(await ids('team=TRUE')).toEqual(sorted(a.id, b.id, c.id));
      expect(await ids('team=0')).toEqual(sorted(a.id, b.id));
      expect(await ids('team=FALSE')).toEqual(sorted(a.id, b.id));
      expectInvalid(await C('GET', '/contacts?team=maybe'), 'team');
      // search: contact name, company name or phone
      expect(await ids('search=Belson')).toEqual([a.id]);
      expect(await ids(`search=${encodeURIComponent(coName)}`)).toEqual([a.id]);
      expect(await ids('search=5550001')).toEqual([a.id]);
      expect(await ids('phone=5550001')).toEqual([a.id]);
      expect(await ids('email=richard@piedpiper.test')).toEqual([b.id]);
      expect(await ids(`url=${encodeURIComponent('https://piedpiper.test')}`)).toEqual([b.id]);
      expect(await ids('letter=h')).toEqual([b.id]);
      expect(await ids(`status_id=${prospect.id}`)).toEqual([a.id]);
      expect(await ids(`owner_id=${other.user.id}&team=true`)).toEqual([c.id]);
      expect(await ids('tag=VIP')).toEqual([a.id]);
      expect(await ids(`company_id=${a.company_id}`)).toEqual([a.id]);
      expect(await ids(`not_linked_with=${a.company_id}`)).toEqual([b.id]);
      expect(await ids(`lead_source_id=${lsId}`)).toEqual([b.id]);
      for (const v of ['true', 'TRUE', 'True', '1']) {
        expect(await ids(`starred=${v}`)).toEqual([b.id]);
        expect(await ids(`pending_deal=${v}`)).toEqual([b.id]);
      }
      for (const v of ['false', 'FALSE', '0']) expect(await ids(`pending_deal=${v}`)).toEqual(await ids('pending_deal=false'));
      expectInvalid(await C('GET', '/contacts?starred=yes'), 'starred');
    });

    it('fields=<resource>(all) adds each resource as an array beside contact', async () => {
      const [, C] = await fresh();
      const c = (await newContact(C, { last_name: 'Fielder' })).contact;
      await newDeal(C, c.id, { name: 'F deal' });
      expectSuccess(await C('POST', '/notes', { contact_id: c.id, text: 'n' }), 201);
      expectSuccess(await C('POST', '/calls', { contact_id: c.id, text: 'c' }), 201);
      const data = expectSuccess(await C('GET', '/contacts?fields=deals(all),notes(all),calls(all),meetings(all),pinned_attachments(all)'));
      const entry = data.contacts[0];
      expectWrapper(entry, { extra: ['deals', 'notes', 'calls', 'meetings', 'pinned_attachments'] });
      expect(entry.deals).toHaveLength(1);
      expect(entry.notes).toHaveLength(1);
      expect(entry.calls).toHaveLength(1);
      expect(entry.meetings).toEqual([]);
      expect(entry.pinned_attachments).toEqual([]);
      const one = expectSuccess(await C('GET', '/contacts?fields=deals(all)')).contacts[0];
      expectWrapper(one, { extra: ['deals'] });
    });
  });

  describe('GET /contacts/cascade', () => {
    it('batches of 100 in the order of GET /contacts, items_left, absolute next_set_url, null at the end', async () => {
      const [acc, C] = await fresh();
      const total = 205;
      for (let i = 0; i < total; i += 10) {
        await Promise.all(
          Array.from({ length: Math.min(10, total - i) }, (_, j) =>
            newContact(C, { last_name: `Casc${String(((i + j) * 7919) % 1000).padStart(3, '0')}`, first_name: String(i + j) }),
          ),
        );
      }
      const listed: string[] = [];
      for (let page = 1; page <= 3; page += 1)
        listed.push(...expectSuccess(await C('GET', `/contacts?per_page=100&page=${page}`)).contacts.map((w: Json) => w.contact.id));
      expect(listed).toHaveLength(total);

      const first = expectSuccess(await C('GET', '/contacts/cascade'));
      expect(sortedKeys(first)).toEqual(['contacts', 'items_left', 'next_set_url']);
      expect(first.contacts).toHaveLength(100);
      expect(first.items_left).toBe(105);
      for (const w of first.contacts) expectWrapper(w);
      const zero = expectSuccess(await C('GET', '/contacts/cascade/0'));
      expect(zero).toEqual(first);
      expect(expectSuccess(await C('GET', '/contacts/cascade.json'))).toEqual(first);

      const lastId = first.contacts[99].contact.id;
      expect(first.next_set_url).toMatch(/^https?:\/\//);
      expect(first.next_set_url.startsWith(`${acc.account.base_url}/contacts/cascade/`)).toBe(true);
      expect(first.next_set_url).toContain(`/contacts/cascade/${lastId}`);
      const nextUrl = new URL(first.next_set_url);
      const second = expectSuccess(await C('GET', nextUrl.pathname.replace(/^.*\/api\/v3/, '') + nextUrl.search));
      expect(second.contacts).toHaveLength(100);
      expect(second.items_left).toBe(5);
      const third = expectSuccess(await C('GET', `/contacts/cascade/${second.contacts[99].contact.id}`));
      expect(third.contacts).toHaveLength(5);
      expect(third.items_left).toBe(0);
      expect(third.next_set_url).toBeNull();
      const walked = [...first.contacts, ...second.contacts, ...third.contacts].map((w: Json) => w.contact.id);
      expect(walked).toEqual(listed);
    });

    it('owned by the caller by default, the whole account with team=true; next_set_url keeps the query', async () => {
      const [acc, C] = await fresh();
      const other = await createUser(services, acc);
      const mine = (await newContact(C, { last_name: 'Mine' })).contact.id;
      const theirs = (await newContact(caller(services, other), { last_name: 'Theirs' })).contact.id;
      const own = expectSuccess(await C('GET', '/contacts/cascade'));
      expect(own.contacts.map((w: Json) => w.contact.id)).toEqual([mine]);
      expect(own).toMatchObject({ items_left: 0, next_set_url: null });
      const team = expectSuccess(await C('GET', '/contacts/cascade?team=true'));
      expect(team.contacts.map((w: Json) => w.contact.id).sort()).toEqual([mine, theirs].sort());
      // next_set_url keeps the same query
      for (let i = 0; i < 100; i += 10)
        await Promise.all(Array.from({ length: 10 }, (_, j) => newContact(C, { last_name: `Bulk${i + j}` })));
      const big = expectSuccess(await C('GET', '/contacts/cascade?team=true'));
      expect(big.items_left).toBe(2);
      expect(new URL(big.next_set_url).searchParams.get('team')).toBe('true');
    });
  });

  describe('PUT, PUT ?partial=true and PATCH /contacts/{id}', () => {
    const full = {
      first_name: 'Jane',
      last_name: 'Doe',
      job_title: 'CTO',
      background: 'bg',
      emails: [
        { type: 'work', value: 'jane@x.test' },
        { type: 'home', value: 'jd@y.test' },
      ],
      tags: ['A'],
    };

    it('PUT replaces the writable fields (absent ones cleared) and answers the wrapper', async () => {
      const c = (await newContact(A, full)).contact;
      const data = expectSuccess(await A('PUT', `/contacts/${c.id}`, { last_name: 'Roe' }));
      expectWrapper(data);
      expect(data.contact.last_name).toBe('Roe');
      for (const f of ['first_name', 'job_title', 'background']) expect([null, '']).toContain(data.contact[f]);
      expect(data.contact.emails).toEqual([]);
      expect(data.contact.tags).toEqual([]);
      expect((await getContact(A, c.id)).contact).toEqual(data.contact);
    });

    it('PUT ?partial=true and PATCH change only the fields sent; an array sent replaces the whole array', async () => {
      for (const [method, suffix] of [
        ['PUT', '?partial=true'],
        ['PATCH', ''],
      ] as const) {
        const c = (await newContact(A, full)).contact;
        const data = expectSuccess(
          await A(method, `/contacts/${c.id}${suffix}`, { job_title: 'CEO', emails: [{ type: 'work', value: 'only@x.test' }] }),
        );
        expectWrapper(data);
        expect(data.contact).toMatchObject({ first_name: 'Jane', last_name: 'Doe', job_title: 'CEO', background: 'bg', tags: ['A'] });
        expect(data.contact.emails).toHaveLength(1);
        expect(data.contact.emails[0]).toMatchObject({ type: 'work', value: 'only@x.test' });
        expect(Date.parse(data.contact.modified_at)).toBeGreaterThanOrEqual(Date.parse(c.modified_at));
      }
    });

    it('wrong types on update are 400 keyed by the field', async () => {
      const c = (await newContact(A, { last_name: 'Typed' })).contact;
      expectInvalid(await A('PATCH', `/contacts/${c.id}`, { first_name: 7 }), 'first_name');
      expectInvalid(await A('PUT', `/contacts/${c.id}?partial=true`, { phones: {} }), 'phones');
    });
  });

  describe('change_status, assign_tag, unassign_tag, close_sales_cycle', () => {
    it("change_status answers the wrapper plus the five summary blocks; another account's or unknown status is 404", async () => {
      const c = (await newContact(A, { last_name: 'Status' })).contact;
      const target = (await statuses(A)).find((s) => !/^lead$/i.test(s.status));
      const res = await A('PUT', `/contacts/${c.id}/change_status/${target.id}`);
      const data = expectSuccessWithSummary(res);
      expectWrapper(data);
      expect(data.contact.status_id).toBe(target.id);
      expect(data.contact.status).toBe(target.text);
      expect((await getContact(A, c.id)).contact.status_id).toBe(target.id);
      const foreignStatus = (await statuses(B))[1].id;
      expectNotFound(await A('PUT', `/contacts/${c.id}/change_status/${foreignStatus}`));
      expectNotFound(await A('PUT', `/contacts/${c.id}/change_status/${UNKNOWN_ID}`));
      expectNotFound(await A('PUT', `/contacts/${c.id}/change_status/nope`));
      expect((await getContact(A, c.id)).contact.status_id).toBe(target.id);
    });

    it('summary blocks are counted after the change', async () => {
      const [acc, C] = await fresh();
      const c = (await newContact(C, { last_name: 'Counted' })).contact;
      const target = (await statuses(C)).find((s) => !/^lead$/i.test(s.status));
      const res = await C('PUT', `/contacts/${c.id}/change_status/${target.id}`);
      expectSuccessWithSummary(res);
      const entry = res.body.statuses.map((s: Json) => s.status ?? s).find((s: Json) => s.id === target.id);
      expect(entry.total_count).toBe(1);
      expect(res.body.contacts_count.all[0].total_count).toBe(1);
      expect(res.body.contacts_count.all[0].c).toBe(1);
      const user = res.body.contacts_count.users.find((u: Json) => u.user_id === acc.user.id);
      expect(user.total_count).toBe(1);
      const tagged = await C('PUT', `/contacts/${c.id}/assign_tag/Hot`);
      expectSuccessWithSummary(tagged);
      expect(tagged.body.tags.tags.find((t: Json) => t.name === 'Hot')).toMatchObject({ total_count: 1 });
    });

    it('assign_tag uses an existing tag in any letter case with its spelling; answers empty data + summary blocks; unassign_tag removes it', async () => {
      const name = unique('Gold');
      const c1 = (await newContact(A, { last_name: 'Tag1' })).contact;
      const c2 = (await newContact(A, { last_name: 'Tag2' })).contact;
      expectEmptyData(expectSuccessWithSummary(await A('PUT', `/contacts/${c1.id}/assign_tag/${name}`)));
      expectEmptyData(expectSuccessWithSummary(await A('PUT', `/contacts/${c2.id}/assign_tag/${name.toUpperCase()}`)));
      expect((await getContact(A, c2.id)).contact.tags).toEqual([name]);
      const tags = expectSuccess(await A('GET', '/tags?per_page=100'));
      expect(tags.tags.filter((t: Json) => (t.tag ?? t).name.toLowerCase() === name.toLowerCase())).toHaveLength(1);
      expectEmptyData(expectSuccessWithSummary(await A('PUT', `/contacts/${c2.id}/unassign_tag/${name.toLowerCase()}`)));
      expect((await getContact(A, c2.id)).contact.tags).toEqual([]);
      expect((await getContact(A, c1.id)).contact.tags).toEqual([name]);
    });

    it('close_sales_cycle records closed_sales { user_id, closed_at, comment } and sales_closed_for; no summary blocks', async () => {
      const c = (await newContact(A, { last_name: 'Closer' })).contact;
      const before = nowSeconds();
      const res = await A('PUT', `/contacts/${c.id}/close_sales_cycle`, { comment: 'Signed' });
      expectSuccess(res);
      const after = (await getContact(A, c.id)).contact;
      expect(after.sales_closed_for).toEqual([admin.user.id]);
      expect(after.closed_sales).toHaveLength(1);
      expect(after.closed_sales[0]).toMatchObject({ user_id: admin.user.id, comment: 'Signed' });
      expect(after.closed_sales[0].closed_at).toBeGreaterThanOrEqual(before - 2);
      expect(after.closed_sales[0].closed_at).toBeLessThanOrEqual(nowSeconds() + 2);
    });
  });

  describe('deletes', () => {
    it('DELETE /contacts/{id}: 200 without summary blocks, then 404', async () => {
      const c = (await newContact(A, { last_name: 'Gone' })).contact;
      expectSuccess(await A('DELETE', `/contacts/${c.id}`));
      expectNotFound(await A('GET', `/contacts/${c.id}`));
      expectNotFound(await A('DELETE', `/contacts/${c.id}`));
    });

    it('DELETE /contacts/delete needs delete_contacts (403 otherwise); empty data + summary blocks; POST /contacts/undelete restores', async () => {
      const c1 = (await newContact(A, { last_name: 'Bulk1' })).contact;
      const c2 = (await newContact(A, { last_name: 'Bulk2' })).contact;
      expectError(await M('DELETE', `/contacts/delete?ids=${c1.id},${c2.id}`), 403, 'no_permission_to_complete_action');
      expect((await getContact(A, c1.id)).contact.id).toBe(c1.id);
      expectEmptyData(expectSuccessWithSummary(await D('DELETE', `/contacts/delete?ids=${c1.id},${c2.id}`)));
      expectNotFound(await A('GET', `/contacts/${c1.id}`));
      expectNotFound(await A('GET', `/contacts/${c2.id}`));
      expectEmptyData(expectSuccessWithSummary(await D('POST', `/contacts/undelete?ids=${c1.id},${c2.id}`)));
      expect((await getContact(A, c1.id)).contact.last_name).toBe('Bulk1');
      expect((await getContact(A, c2.id)).contact.last_name).toBe('Bulk2');
    });

    it('DELETE /contacts/delete takes at most 100 ids and needs ids', async () => {
      const ids = Array.from({ length: 101 }, (_, i) => i.toString(16).padStart(24, 'a'));
      expectInvalid(await D('DELETE', `/contacts/delete?ids=${ids.join(',')}`), 'ids');
      expectInvalid(await D('DELETE', '/contacts/delete'), 'ids');
    });

    it('deleting a contact updates company_size and the company contacts_count', async () => {
      const name = unique('SizeCo ');
      const c1 = (await newContact(A, { last_name: 'S1', company_name: name })).contact;
      const c2 = (await newContact(A, { last_name: 'S2', company_name: name })).contact;
      expect((await getContact(A, c1.id)).contact.company_size).toBe(2);
      expectSuccess(await A('DELETE', `/contacts/${c2.id}`));
      expect((await getContact(A, c1.id)).contact.company_size).toBe(1);
      expect(expectSuccess(await A('GET', `/companies/${c1.company_id}`)).company.contacts_count).toBe(1);
    });

    it('summary blocks are NOT on other contact writes and reads', async () => {
      const c = (await newContact(A, { last_name: 'NoSummary' })).contact;
      expectSuccess(await A('GET', `/contacts/${c.id}`));
      expectSuccess(await A('PATCH', `/contacts/${c.id}`, { job_title: 'x' }));
      expectSuccess(await A('PUT', `/contacts/${c.id}?partial=true`, { job_title: 'y' }));
      expectSuccess(await A('GET', '/contacts'));
      expectSuccess(await A('GET', '/contacts/cascade'));
      expectSuccess(await A('POST', '/contacts', { last_name: 'NoSummary2' }), 201);
    });
  });

  describe('computed fields', () => {
    it('pending_deal, total_pendings, total_deals_count follow the deals', async () => {
      const c = (await newContact(A, { last_name: 'Counter' })).contact;
      const d1 = await newDeal(A, c.id, { name: 'P1', amount: 100, months: 1 });
      await newDeal(A, c.id, { name: 'P2', amount: 50.5, months: 1 });
      await newDeal(A, c.id, { name: 'W', amount: 7, status: 'won' });
      let got = (await getContact(A, c.id)).contact;
      expect(got).toMatchObject({ pending_deal: true, total_pendings: 150.5, total_deals_count: 3 });
      expectSuccess(await A('PATCH', `/deals/${d1.id}`, { status: 'lost' }));
      got = (await getContact(A, c.id)).contact;
      expect(got).toMatchObject({ pending_deal: true, total_pendings: 50.5, total_deals_count: 3 });
    });
  });

  describe('companies', () => {
    it('GET /companies lists { company } entries with paging; GET /companies/{id} has every Company field', async () => {
      const [, C] = await fresh();
      const c = (await newContact(C, { last_name: 'Emp', company_name: 'Initech' })).contact;
      const list = expectSuccess(await C('GET', '/companies'));
      expect(sortedKeys(list)).toEqual(['companies', 'max_page', 'page', 'per_page', 'total_count']);
      expectPaging(list, { total_count: 1 });
      expect(sortedKeys(list.companies[0])).toEqual(['company']);
      expect(expectSuccess(await C('GET', '/companies.json'))).toEqual(list);
      const one = expectSuccess(await C('GET', `/companies/${c.company_id}`));
      expect(sortedKeys(one)).toEqual(['company']);
      expectCompany(one.company);
      expect(one.company.contacts.map((w: Json) => w.contact.id)).toEqual([c.id]);
      expect(expectSuccess(await C('GET', `/companies/${c.company_id}.json`))).toEqual(one);
    });

    it('PUT replaces, PATCH changes only the fields sent', async () => {
      const c = (await newContact(A, { last_name: 'Co', company_name: unique('Vandelay ') })).contact;
      const patched = expectSuccess(await A('PATCH', `/companies/${c.company_id}`, { description: 'Imports', phone: '555' }));
      expect(patched.company).toMatchObject({ description: 'Imports', phone: '555', name: c.company_name });
      const patched2 = expectSuccess(await A('PATCH', `/companies/${c.company_id}`, { url: 'https://v.test' }));
      expect(patched2.company).toMatchObject({ description: 'Imports', phone: '555', url: 'https://v.test' });
      const put = expectSuccess(await A('PUT', `/companies/${c.company_id}`, { name: 'Vandelay Industries' }));
      expect(put.company.name).toBe('Vandelay Industries');
      expect([null, '']).toContain(put.company.description);
      expect([null, '']).toContain(put.company.phone);
      const partial = expectSuccess(await A('PUT', `/companies/${c.company_id}?partial=true`, { phone: '777' }));
      expect(partial.company).toMatchObject({ name: 'Vandelay Industries', phone: '777' });
      expectInvalid(await A('PATCH', `/companies/${c.company_id}`, { phone: 5 }), 'phone');
    });

    it('counters follow contacts and deals: contacts_count, pending/won counts and amounts, pending_deals', async () => {
      const name = unique('Counters ');
      const c1 = (await newContact(A, { last_name: 'K1', company_name: name })).contact;
      const co = () => A('GET', `/companies/${c1.company_id}`).then((r) => expectSuccess(r).company);
      expect(await co()).toMatchObject({
        contacts_count: 1,
        won_deals_count: 0,
        pending_deals_count: 0,
        total_won_amount: 0,
        total_pending_amount: 0,
        pending_deals: [],
      });
      const c2 = (await newContact(A, { last_name: 'K2', company_name: name })).contact;
      const d1 = await newDeal(A, c1.id, { name: 'D1', amount: 100 });
      await newDeal(A, c2.id, { name: 'D2', amount: 20, months: 2 });
      let now = await co();
      expect(now).toMatchObject({ contacts_count: 2, pending_deals_count: 2, won_deals_count: 0, total_won_amount: 0 });
      expect([140, 120]).toContain(now.total_pending_amount);
      expect(now.pending_deals).toHaveLength(2);
      expectSuccess(await A('PATCH', `/deals/${d1.id}`, { status: 'won' }));
      now = await co();
      expect(now).toMatchObject({ pending_deals_count: 1, won_deals_count: 1, total_won_amount: 100 });
      expect([40, 20]).toContain(now.total_pending_amount);
      expectSuccess(await A('DELETE', `/contacts/${c2.id}`));
      now = await co();
      expect(now.contacts_count).toBe(1);
    });

    it("another account's company and ids that are not 24-hex are 404", async () => {
      const foreign = (await newContact(B, { last_name: 'F', company_name: 'Foreign Co' })).contact.company_id;
      for (const id of [foreign, UNKNOWN_ID, ...BAD_IDS]) {
        expectNotFound(await A('GET', `/companies/${id}`));
        expectNotFound(await A('PUT', `/companies/${id}`, { name: 'X' }));
        expectNotFound(await A('PATCH', `/companies/${id}`, { name: 'X' }));
      }
      expect(expectSuccess(await B('GET', `/companies/${foreign}`)).company.name).toBe('Foreign Co');
    });

    it('Company fields list of the spec is complete in list entries', async () => {
      const list = expectSuccess(await A('GET', '/companies?per_page=1'));
      for (const f of COMPANY_FIELDS) expect(list.companies[0].company).toHaveProperty(f);
    });
  });

  describe('more GET /contacts rules', () => {
    it('has_actions, has_actions_for_me, has_actions_today, waiting', async () => {
      // "Today" must be one date from the action dated today to the query.
      await clearOfMidnight();
      const [acc, C] = await fresh();
      const other = await createUser(services, acc);
      const O = caller(services, other);
      const mk = async (who: Caller, last: string) => (await newContact(who, { last_name: last })).contact.id;
      const c1 = await mk(C, 'OtherActs');
      const c2 = await mk(C, 'MyActs');
      const c3 = await mk(C, 'NoActs');
      const c4 = await mk(O, 'TheirContact');
      const c5 = await mk(C, 'TodayActs');
      const c6 = await mk(C, 'WaitActs');
      const act = async (who: Caller, assignee: string, contact: string, extra: Record<string, unknown>) =>
        expectSuccess(await who('POST', '/actions', { contact_id: contact, assignee_id: assignee, text: 'a', ...extra }), 201);
      await act(O, other.user.id, c1, { status: 'date', date: dayOffset(3) });
      await act(C, acc.user.id, c2, { status: 'date', date: dayOffset(3) });
      await act(C, acc.user.id, c4, { status: 'date', date: dayOffset(3) });
      await act(C, acc.user.id, c5, { status: 'date', date: todayUtc() });
      await act(C, acc.user.id, c6, { status: 'waiting' });
      const ids = async (q: string) =>
        expectSuccess(await C('GET', `/contacts?${q}`))
          .contacts.map((w: Json) => w.contact.id)
          .sort();
      const sorted = (...xs: string[]) => [...xs].sort();
      expect(await ids('has_actions=true')).toEqual(sorted(c1, c2, c5, c6));
      expect(await ids('has_actions_for_me=true')).toEqual(sorted(c2, c5, c6));
      expect(await ids('has_actions_today=true')).toEqual([c5]);
      expect(await ids('waiting=true')).toEqual([c6]);
      expect(await ids('has_actions=1')).toEqual(await ids('has_actions=TRUE'));
      expect(await ids('')).not.toContain(c4);
      expect(await ids('')).toContain(c3);
    });

    it('sort_by company_name, name, modified_at', async () => {
      const [, C] = await fresh();
      const x = (await newContact(C, { last_name: 'Alpha', company_name: 'Zeta Co' })).contact.id;
      await sleep(20);
      const y = (await newContact(C, { last_name: 'Beta', company_name: 'Acme Co' })).contact.id;
      await sleep(20);
      const z = (await newContact(C, { last_name: 'Gamma', company_name: 'Mid Co' })).contact.id;
      const ids = async (q: string) => expectSuccess(await C('GET', `/contacts?${q}`)).contacts.map((w: Json) => w.contact.id);
      expect(await ids('sort_by=company_name')).toEqual([y, z, x]);
      expect(await ids('sort_by=company_name&order=desc')).toEqual([x, z, y]);
      expect(await ids('sort_by=name')).toEqual([x, y, z]);
      expectSuccess(await C('PATCH', `/contacts/${x}`, { job_title: 'touched' }));
      expect(await ids('sort_by=modified_at')).toEqual([y, z, x]);
      expect(await ids('sort_by=modified_at&order=desc')).toEqual([x, z, y]);
    });

    it('custom_fields on a contact: { custom_field: { id, name, type, position }, value }; custom_field_id + custom_field_value filter', async () => {
      const [, C] = await fresh();
      const created = expectSuccess(await C('POST', '/custom_fields', { name: 'Shoe size', type: 'text' }), 201);
      const field = created.custom_field ?? created;
      const c = (await newContact(C, { last_name: 'Custom', custom_fields: [{ custom_field: { id: field.id }, value: '42' }] })).contact;
      expect(c.custom_fields).toHaveLength(1);
      expect(c.custom_fields[0].value).toBe('42');
      expect(c.custom_fields[0].custom_field).toMatchObject({ id: field.id, name: 'Shoe size', type: 'text' });
      expect(Number.isInteger(c.custom_fields[0].custom_field.position)).toBe(true);
      await newContact(C, { last_name: 'Plain' });
      const hits = expectSuccess(await C('GET', `/contacts?custom_field_id=${field.id}&custom_field_value=42`)).contacts.map(
        (w: Json) => w.contact.id,
      );
      expect(hits).toEqual([c.id]);
      const foreign = expectSuccess(await B('POST', '/custom_fields', { name: unique('F'), type: 'text' }), 201);
      expectNotFound(
        await C('POST', '/contacts', {
          last_name: 'X',
          custom_fields: [{ custom_field: { id: (foreign.custom_field ?? foreign).id }, value: '1' }],
        }),
      );
    });

    it('a deleted contact is gone from lists, cascade, company contacts and is 404 on every endpoint (decisions: "unknown, deleted or another account\'s")', async () => {
      const [, C] = await fresh();
      const keep = (await newContact(C, { last_name: 'Keep', company_name: 'DelCo' })).contact;
      const gone = (await newContact(C, { last_name: 'Gone', company_name: 'DelCo' })).contact;
      expectSuccess(await C('DELETE', `/contacts/${gone.id}`));
      const listed = expectSuccess(await C('GET', '/contacts'));
      expect(listed.contacts.map((w: Json) => w.contact.id)).toEqual([keep.id]);
      expect(listed.total_count).toBe(1);
      expect(expectSuccess(await C('GET', '/contacts/cascade')).contacts.map((w: Json) => w.contact.id)).toEqual([keep.id]);
      const co = expectSuccess(await C('GET', `/companies/${keep.company_id}`)).company;
      expect(co.contacts.map((w: Json) => w.contact.id)).toEqual([keep.id]);
      expect(co.contacts_count).toBe(1);
      const status = (await statuses(C))[1].id;
      expectNotFound(await C('PUT', `/contacts/${gone.id}`, { last_name: 'Back' }));
      expectNotFound(await C('PATCH', `/contacts/${gone.id}`, { last_name: 'Back' }));
      expectNotFound(await C('PUT', `/contacts/${gone.id}/change_status/${status}`));
      expectNotFound(await C('PUT', `/contacts/${gone.id}/assign_tag/T`));
      expectNotFound(await C('POST', `/contacts/${gone.id}/deals`, { name: 'D' }));
      expectNotFound(await C('POST', '/notes', { contact_id: gone.id, text: 'n' }));
      expectNotFound(await C('POST', '/actions', { contact_id: gone.id, text: 'a', status: 'waiting' }));
      // "Deletions are undoable"
      expectSuccessWithSummary(await C('POST', `/contacts/undelete?ids=${gone.id}`));
      expect((await getContact(C, gone.id)).contact.last_name).toBe('Gone');
      expect(expectSuccess(await C('GET', `/companies/${keep.company_id}`)).company.contacts_count).toBe(2);
    });

    it('every path also answers with .json: PUT/PATCH contact, change_status, assign_tag, cascade/0, delete and undelete', async () => {
      const c = (await newContact(A, { last_name: 'Suffix' })).contact;
      const status = (await statuses(A))[1].id;
      expectWrapper(expectSuccess(await A('PATCH', `/contacts/${c.id}.json`, { job_title: 'J' })));
      expectWrapper(expectSuccess(await A('PUT', `/contacts/${c.id}.json?partial=true`, { job_title: 'K' })));
      expectWrapper(expectSuccessWithSummary(await A('PUT', `/contacts/${c.id}/change_status/${status}.json`)));
      expectSuccessWithSummary(await A('PUT', `/contacts/${c.id}/assign_tag/Dotted.json`));
      expect((await getContact(A, c.id)).contact.tags).toEqual(['Dotted']);
      expectSuccessWithSummary(await A('PUT', `/contacts/${c.id}/unassign_tag/Dotted.json`));
      expect((await getContact(A, c.id)).contact.tags).toEqual([]);
      expectSuccess(await A('GET', '/contacts/cascade/0.json'));
      expectSuccessWithSummary(await D('DELETE', `/contacts/delete.json?ids=${c.id}`));
      expectSuccessWithSummary(await D('POST', `/contacts/undelete.json?ids=${c.id}`));
      expect((await getContact(A, c.id)).contact.id).toBe(c.id);
    });

    it('error envelopes: no credentials 401, unknown route 404, wrong method 405, bad fields 400', async () => {
      const anon = await fetch(`${services.gatewayUrl}/api/v3/contacts`);
      const body = await anon.json();
      expect(anon.status).toBe(401);
      expect(sortedKeys(body)).toEqual(['error_message', 'error_name', 'errors', 'message', 'status']);
      expect(body.error_name).toBe('authorization_data_not_found');
      expectNotFound(await A('GET', '/contactz'));
      expectError(await A('PATCH', '/contacts'), 405, 'method_not_allowed');
      expectInvalid(await A('GET', '/contacts?fields=bogus(all)'), 'fields');
    });

    it('boolean forms apply to partial too (1, TRUE, True; 0 is a full replace; other values 400)', async () => {
      for (const v of ['1', 'TRUE', 'True']) {
        const c = (await newContact(A, { first_name: 'Bool', last_name: 'Partial', job_title: 'JT' })).contact;
        expect(expectSuccess(await A('PUT', `/contacts/${c.id}?partial=${v}`, { background: 'b' })).contact).toMatchObject({
          first_name: 'Bool',
          job_title: 'JT',
          background: 'b',
        });
      }
      const c = (await newContact(A, { first_name: 'Bool', last_name: 'Full', job_title: 'JT' })).contact;
      const full = expectSuccess(await A('PUT', `/contacts/${c.id}?partial=0`, { last_name: 'Full' })).contact;
      expect([null, '']).toContain(full.job_title);
      expectInvalid(await A('PUT', `/contacts/${c.id}?partial=maybe`, { last_name: 'Full' }), 'partial');
    });

    it('DELETE /contacts/delete accepts 100 ids (unknown ones: 404, not the 400 of 101)', async () => {
      const ids = Array.from({ length: 100 }, (_, i) => (i + 1).toString(16).padStart(24, '0'));
      expectNotFound(await D('DELETE', `/contacts/delete?ids=${ids.join(',')}`));
    });

    it('assign_tag with a URL-encoded name containing a space', async () => {
      const c = (await newContact(A, { last_name: 'Spaced' })).contact;
      expectSuccessWithSummary(await A('PUT', `/contacts/${c.id}/assign_tag/${encodeURIComponent('Key Account')}`));
      expect((await getContact(A, c.id)).contact.tags).toEqual(['Key Account']);
    });

    it('cascade with exactly 100 contacts: one batch, items_left 0, next_set_url null; the last id gives an empty batch', async () => {
      const [, C] = await fresh();
      for (let i = 0; i < 100; i += 10)
        await Promise.all(Array.from({ length: 10 }, (_, j) => newContact(C, { last_name: `Hundred${String(i + j).padStart(3, '0')}` })));
      const first = expectSuccess(await C('GET', '/contacts/cascade'));
      expect(first.contacts).toHaveLength(100);
      expect(first).toMatchObject({ items_left: 0, next_set_url: null });
      const after = expectSuccess(await C('GET', `/contacts/cascade/${first.contacts[99].contact.id}`));
      expect(after).toEqual({ contacts: [], items_left: 0, next_set_url: null });
    });

    it('owner_id on create sets the owner (a user of the account)', async () => {
      const c = (await newContact(A, { last_name: 'Owned', owner_id: member.user.id })).contact;
      expect(c.owner_id).toBe(member.user.id);
    });
  });

  describe('configuration', () => {
    it('GET /statuses: entries { status: { id, status, text, description, color, counts, total_count, action_stream_count, team_counts } }', async () => {
      const data = expectSuccess(await A('GET', '/statuses'));
      expectPaging(data);
      expect(data.statuses.length).toBeGreaterThan(0);
      for (const entry of data.statuses) {
        expect(sortedKeys(entry)).toEqual(['status']);
        expect(sortedKeys(entry.status)).toEqual(
          expect.arrayContaining([
            'action_stream_count',
            'color',
            'counts',
            'description',
            'id',
            'status',
            'team_counts',
            'text',
            'total_count',
          ]),
        );
        expect(Array.isArray(entry.status.team_counts)).toBe(true);
        for (const tc of entry.status.team_counts) expect(sortedKeys(tc)).toEqual(expect.arrayContaining(['counts', 'user_id']));
      }
      expect(data.statuses.filter((e: Json) => /^lead$/i.test(e.status.status))).toHaveLength(1);
    });

    it('statuses: duplicates 400 duplicated_entity, non-admin writes 403, DELETE admin only, lead 400, contacts fall back to lead', async () => {
      const [acc, C] = await fresh();
      const plain = await createUser(services, acc);
      const P = caller(services, plain);
      const created = expectSuccess(await C('POST', '/statuses', { text: 'Hot Lead', color: '#ff0000', description: 'hot' }), 201);
      const hot = created.status ?? created;
      expect(hot.id).toMatch(HEX24);
      expect(hot).toMatchObject({ status: expect.stringMatching(/^custom\d+$/), text: 'Hot Lead' });
      expectError(await C('POST', '/statuses', { text: 'hot lead' }), 400, 'duplicated_entity');
      expectError(await C('POST', '/statuses', { text: 'LEAD' }), 400, 'duplicated_entity');
      expectError(await P('POST', '/statuses', { text: 'Mine' }), 403, 'no_permission_to_complete_action');
      expectError(await P('PUT', `/statuses/${hot.id}`, { text: 'Mine' }), 403, 'no_permission_to_complete_action');
      const c = (await newContact(C, { last_name: 'Fallback' })).contact;
      expectSuccessWithSummary(await C('PUT', `/contacts/${c.id}/change_status/${hot.id}`));
      expectError(await P('DELETE', `/statuses/${hot.id}`), 403, 'no_permission_to_complete_action');
      const lead = (await statuses(C)).find((s) => /^lead$/i.test(s.status));
      expectInvalid(await C('DELETE', `/statuses/${lead.id}`));
      expectSuccess(await C('DELETE', `/statuses/${hot.id}`));
      const after = (await getContact(C, c.id)).contact;
      expect(after.status_id).toBe(lead.id);
      expect(after.status).toBe(lead.text);
      expect((await statuses(C)).map((s) => s.id)).not.toContain(hot.id);
      expectNotFound(await C('DELETE', `/statuses/${(await statuses(B))[1].id}`));
      expectNotFound(await C('DELETE', `/statuses/${UNKNOWN_ID}`));
    });

    it('a deleted status also falls back to lead on companies syncing it (synced_status_id)', async () => {
      const [, C] = await fresh();
      const st = expectSuccess(await C('POST', '/statuses', { text: 'Syncing', color: '#00ff00' }), 201);
      const status = st.status ?? st;
      const c = (await newContact(C, { last_name: 'Sync', company_name: 'SyncCo' })).contact;
      expect(
        expectSuccess(await C('PATCH', `/companies/${c.company_id}`, { syncing_status: true, synced_status_id: status.id })).company
          .synced_status_id,
      ).toBe(status.id);
      expectSuccess(await C('DELETE', `/statuses/${status.id}`));
      const lead = (await statuses(C)).find((s) => /^lead$/i.test(s.status));
      expect(expectSuccess(await C('GET', `/companies/${c.company_id}`)).company.synced_status_id).toBe(lead.id);
    });

    it('summary blocks after DELETE /contacts/delete and POST /contacts/undelete are counted after the change', async () => {
      const [acc, C] = await fresh();
      const c1 = (await newContact(C, { last_name: 'Ccount' })).contact;
      await newContact(C, { last_name: 'Dcount' });
      const del = await C('DELETE', `/contacts/delete?ids=${c1.id}`);
      expectSuccessWithSummary(del);
      expect(del.body.contacts_count.all[0]).toMatchObject({ total_count: 1, c: 0, d: 1 });
      expect(del.body.contacts_count.users.find((u: Json) => u.user_id === acc.user.id).total_count).toBe(1);
      const und = await C('POST', `/contacts/undelete?ids=${c1.id}`);
      expectSuccessWithSummary(und);
      expect(und.body.contacts_count.all[0]).toMatchObject({ total_count: 2, c: 1, d: 1 });
    });

    it('config writes by a non-admin are 403; duplicates of custom/company/deal fields and relationship types are 400 duplicated_entity', async () => {
      const [acc, C] = await fresh();
      const P = caller(services, await createUser(services, acc));
      for (const path of ['/custom_fields', '/company_fields', '/deal_fields']) {
        expectSuccess(await C('POST', path, { name: 'Budget', type: 'number' }), 201);
        expectError(await C('POST', path, { name: 'BUDGET', type: 'text' }), 400, 'duplicated_entity');
        expectError(await P('POST', path, { name: 'Other', type: 'text' }), 403, 'no_permission_to_complete_action');
      }
      expectSuccess(await C('POST', '/relationship_types', { variants: [{ name: 'Mentor' }, { name: 'Mentee' }] }), 201);
      expectError(await C('POST', '/relationship_types', { variants: [{ name: 'mentor' }, { name: 'Pupil' }] }), 400, 'duplicated_entity');
      expectError(await P('POST', '/relationship_types', { variants: [{ name: 'Buddy' }] }), 403, 'no_permission_to_complete_action');
    });

    it('lead sources: shape, duplicates 400 duplicated_entity, non-admin 403', async () => {
      const [acc, C] = await fresh();
      const P = caller(services, await createUser(services, acc));
      const created = expectSuccess(await C('POST', '/lead_sources', { text: 'Trade Show' }), 201);
      const ls = created.lead_source ?? created;
      expect(ls).toMatchObject({ id: expect.stringMatching(HEX24), text: 'Trade Show' });
      expectError(await C('POST', '/lead_sources', { text: 'TRADE SHOW' }), 400, 'duplicated_entity');
      expectError(await P('POST', '/lead_sources', { text: 'Other' }), 403, 'no_permission_to_complete_action');
      const list = expectSuccess(await C('GET', '/lead_sources'));
      expectPaging(list, { total_count: 1 });
      const entry = list.lead_sources[0];
      expect(sortedKeys(entry)).toEqual(['lead_source']);
      expect(sortedKeys(entry.lead_source)).toEqual(
        expect.arrayContaining(['action_stream_count', 'counts', 'id', 'team_counts', 'text', 'total_count']),
      );
      const c = (await newContact(C, { last_name: 'Sourced', lead_source_id: ls.id })).contact;
      expect(c.lead_source_id).toBe(ls.id);
      expect(c.lead_source).toBe('Trade Show');
    });

    it('GET /tags: tags and system_tags arrays of { name, counts, total_count, action_stream_count }', async () => {
      const [, C] = await fresh();
      await newContact(C, { last_name: 'Tagged', tags: ['Alpha'] });
      const data = expectSuccess(await C('GET', '/tags'));
      expect(Array.isArray(data.tags)).toBe(true);
      expect(Array.isArray(data.system_tags)).toBe(true);
      const alpha = data.tags.map((t: Json) => t.tag ?? t).find((t: Json) => t.name === 'Alpha');
      expect(sortedKeys(alpha)).toEqual(expect.arrayContaining(['action_stream_count', 'counts', 'name', 'total_count']));
      expect(alpha.total_count).toBe(1);
    });

    it("GET /bootstrap answers the caller's user, team and the account configuration; also as .json", async () => {
      // decisions.md: "the summary blocks, shaped as OnePageCRM's bootstrap": beside data, as OnePageCRM has them.
      const data = expectSuccessWithSummary(await A('GET', '/bootstrap'));
      expect(data).toHaveProperty('auth_key');
      expect(JSON.stringify(data)).toContain(admin.user.id);
      expectSuccessWithSummary(await A('GET', '/bootstrap.json'));
    });
  });
});
