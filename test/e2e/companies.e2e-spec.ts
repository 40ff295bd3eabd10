import { api, type CreatedAccount } from '@crm/testing';
import { setupE2e } from './setup';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const COMPANY_KEYS = [
  'address',
  'company_fields',
  'contacts',
  'contacts_count',
  'created_at',
  'description',
  'id',
  'image',
  'modified_at',
  'name',
  'pending_deals',
  'pending_deals_count',
  'phone',
  'photo_url',
  'synced_status_id',
  'synced_tags',
  'syncing_status',
  'syncing_tags',
  'total_pending_amount',
  'total_won_amount',
  'url',
  'won_deals_count',
];
const FOREIGN_ID = 'f'.repeat(24);
const PNG = 'data:image/png;base64,iVBORw0KGgo=';

/** Companies over HTTP, and the counters contacts and companies aggregate from deals (spec "Company"). */
describe('companies (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: true, member: true });

  const call = (who: CreatedAccount) => api(services, who);
  const ok = async (who: CreatedAccount, method: string, path: string, body?: unknown, status = 200) => {
    const res = await call(who)<Json>(method, path, body);
    if (res.status !== status) throw new Error(`${method} ${path} ${res.status}: ${res.text}`);
    return res.body as Json;
  };
  const contact = async (who: CreatedAccount, body: Record<string, unknown>) =>
    (await ok(who, 'POST', '/contacts', body, 201)).data.contact as Json;

  it('shows a company with its counters and contacts, listed by name', async () => {
    const a = await contact(admin, { first_name: 'Ann', last_name: 'Alpha', company_name: 'Wayne Enterprises' });
    await contact(admin, { first_name: 'Bob', last_name: 'Beta', company_name: 'wayne enterprises' });
    await contact(admin, { last_name: 'Solo', company_name: 'Acme' });
    const got = await ok(member, 'GET', `/companies/${a.company_id}.json`);
    expect(Object.keys(got.data)).toEqual(['company']);
    const company = got.data.company;
    expect(Object.keys(company).sort()).toEqual(COMPANY_KEYS);
    expect(company).toMatchObject({
      id: a.company_id,
      name: 'Wayne Enterprises',
      contacts_count: 2,
      won_deals_count: 0,
      pending_deals_count: 0,
      total_won_amount: 0,
      total_pending_amount: 0,
      pending_deals: [],
      address: { address: '', city: '', state: '', zip_code: '', country_code: '' },
      company_fields: [],
      syncing_status: false,
      synced_status_id: '',
      syncing_tags: false,
      synced_tags: [],
      image: '',
    });
    expect(company.contacts.map((w: Json) => w.contact.last_name)).toEqual(['Alpha', 'Beta']);
    expect(Object.keys(company.contacts[0]).sort()).toEqual([
      'company',
      'contact',
      'next_action',
      'next_action_conflicts',
      'next_actions',
      'queued_actions',
    ]);

    const list = await ok(admin, 'GET', '/companies?per_page=1&page=2');
    expect(list.data).toMatchObject({ total_count: 2, page: 2, per_page: 1, max_page: 2 });
    expect(list.data.companies.map((c: Json) => c.company.name)).toEqual(['Wayne Enterprises']);
    expect((await ok(admin, 'GET', '/companies?search=ACM')).data.companies.map((c: Json) => c.company.name)).toEqual(['Acme']);
    expect((await ok(admin, 'GET', '/companies?sort_by=created_at&order=desc')).data.companies.map((c: Json) => c.company.name)).toEqual([
      'Acme',
      'Wayne Enterprises',
    ]);
    expect((await ok(stranger, 'GET', '/companies')).data.total_count).toBe(0);
    for (const query of ['?page=0', '?sort_by=size', '?since=yesterday', '?date_filter=created_at&unmodified_since=2026-01-01']) {
      expect((await call(admin)<Json>('GET', `/companies${query}`)).status).toBe(400);
    }

    // Deleting a contact lowers the counts; undeleting restores them.
    await ok(admin, 'DELETE', `/contacts/${a.id}`);
    expect((await ok(admin, 'GET', `/companies/${a.company_id}`)).data.company).toMatchObject({ contacts_count: 1 });
    await ok(admin, 'POST', `/contacts/undelete?ids=${a.id}`);
    expect((await ok(admin, 'GET', `/companies/${a.company_id}`)).data.company).toMatchObject({ contacts_count: 2 });
  });

  it('replaces with PUT, changes what is sent with PATCH, and renames on its contacts', async () => {
    const c = await contact(admin, { company_name: 'Umbrella' });
    const id = c.company_id;
    const put = await ok(admin, 'PUT', `/companies/${id}`, {
      name: 'Umbrella Corp',
      description: 'Pharma',
      phone: '555',
      url: 'https://umbrella.example',
      image: PNG,
      address: { city: 'Raccoon City', country_code: 'us' },
    });
    expect(put.data.company).toMatchObject({
      name: 'Umbrella Corp',
      description: 'Pharma',
      image: PNG,
      address: { city: 'Raccoon City', country_code: 'US', address: '' },
    });
    const patched = await ok(admin, 'PATCH', `/companies/${id}`, { phone: '556' });
    expect(patched.data.company).toMatchObject({ name: 'Umbrella Corp', description: 'Pharma', phone: '556' });
    const partial = await ok(admin, 'PUT', `/companies/${id}?partial=1`, { url: '' });
    expect(partial.data.company).toMatchObject({ phone: '556', url: '' });
    const replaced = await ok(admin, 'PUT', `/companies/${id}`, { name: 'Umbrella Corp' });
    expect(replaced.data.company).toMatchObject({ description: '', phone: '', image: '', address: { city: '' } });
    // The contact follows the new name: company_name, sort order and letter.
    const renamed = await ok(admin, 'PATCH', `/companies/${id}`, { name: 'Zeta Umbrella' });
    expect(renamed.data.company.contacts[0].contact).toMatchObject({ company_name: 'Zeta Umbrella', letter: 'z' });
    expect((await ok(admin, 'GET', `/contacts/${c.id}`)).data.contact.company_name).toBe('Zeta Umbrella');
    // The contact's company_name matches the renamed company in any letter case.
    expect((await contact(admin, { last_name: 'Joiner', company_name: 'ZETA umbrella' })).company_id).toBe(id);

    await contact(admin, { last_name: 'Other', company_name: 'Taken Name' });
    const dup = await call(admin)<Json>('PATCH', `/companies/${id}`, { name: 'taken name' });
    expect(dup.status).toBe(400);
    expect(dup.body).toMatchObject({ error_name: 'duplicated_entity', errors: { name: expect.any(String) } });
    const cases: Array<[string, unknown, string]> = [
      ['PUT', { description: 'no name' }, 'name'],
      ['PATCH', { name: '' }, 'name'],
      ['PATCH', { name: null }, 'name'],
      ['PATCH', { image: 'http://x/y.png' }, 'image'],
      ['PATCH', { address: 'Main St' }, 'address'],
      ['PATCH', { address: { country_code: 'USA' } }, 'address.country_code'],
      ['PATCH', { syncing_status: 'yes' }, 'syncing_status'],
      ['PATCH', { synced_status_id: 'lead' }, 'synced_status_id'],
      ['PATCH', { company_fields: [{ value: 1 }] }, 'company_fields.0.company_field'],
    ];
    for (const [method, body, key] of cases) {
      const res = await call(admin)<Json>(method, `/companies/${id}`, body);
      expect([method, body, res.status]).toEqual([method, body, 400]);
      expect(Object.keys(res.body.errors)).toContain(key);
    }
    expect((await call(admin)<Json>('PATCH', `/companies/${id}`, { synced_status_id: FOREIGN_ID })).status).toBe(404);
  });

  it('checks company field values against their definitions', async () => {
    const field = (await ok(admin, 'POST', '/company_fields', { name: 'Industry', type: 'select_box', choices: ['Retail', 'Tech'] }, 201))
      .data.company_field;
    const size = (await ok(admin, 'POST', '/company_fields', { name: 'Employees', type: 'number' }, 201)).data.company_field;
    const c = await contact(admin, { company_name: 'Fielded' });
    const res = await ok(admin, 'PATCH', `/companies/${c.company_id}`, {
      company_fields: [
        { company_field: { id: size.id }, value: 250 },
        { company_field: { id: field.id }, value: 'Tech' },
      ],
    });
    expect(res.data.company.company_fields).toEqual([
      {
        company_field: { id: field.id, name: 'Industry', type: 'select_box', position: field.position, choices: ['Retail', 'Tech'] },
        value: 'Tech',
      },
      { company_field: { id: size.id, name: 'Employees', type: 'number', position: size.position }, value: 250 },
    ]);
    const bad = await call(admin)<Json>('PATCH', `/companies/${c.company_id}`, {
      company_fields: [{ company_field: { id: field.id }, value: 'Farming' }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty(['company_fields.0.value']);
    expect(
      (
        await call(admin)<Json>('PATCH', `/companies/${c.company_id}`, {
          company_fields: [{ company_field: { id: FOREIGN_ID }, value: 1 }],
        })
      ).status,
    ).toBe(404);
    // Contact custom fields are a separate set.
    expect(
      (await call(admin)<Json>('PATCH', `/contacts/${c.id}`, { custom_fields: [{ custom_field: { id: field.id }, value: 'Tech' }] }))
        .status,
    ).toBe(404);
    const custom = (await ok(admin, 'POST', '/custom_fields', { name: 'Birthday', type: 'date' }, 201)).data.custom_field;
    const withValue = await ok(admin, 'PATCH', `/contacts/${c.id}`, {
      custom_fields: [{ custom_field: { id: custom.id }, value: '1990-02-28' }],
    });
    expect(withValue.data.contact.custom_fields).toEqual([
      { custom_field: { id: custom.id, name: 'Birthday', type: 'date', position: custom.position }, value: '1990-02-28' },
    ]);
    expect(
      (await call(admin)<Json>('PATCH', `/contacts/${c.id}`, { custom_fields: [{ custom_field: { id: custom.id }, value: '1990-02-30' }] }))
        .status,
    ).toBe(400);
    const found = await ok(admin, 'GET', `/contacts?custom_field_id=${custom.id}&custom_field_value=1990-02-28`);
    expect(found.data.contacts.map((w: Json) => w.contact.id)).toEqual([c.id]);
  });

  it('syncs status and tags to its contacts, including ones that join later', async () => {
    const first = await contact(admin, { last_name: 'Synced', company_name: 'Sync Co' });
    const statuses = (await ok(admin, 'PUT', `/contacts/${first.id}/assign_tag/seed`)).statuses as Json[];
    const trial = statuses.find((s) => s.status.text === 'Trial').status;
    const res = await ok(admin, 'PATCH', `/companies/${first.company_id}`, {
      syncing_status: true,
      synced_status_id: trial.id,
      syncing_tags: true,
      synced_tags: ['Partner', 'SEED'],
    });
    expect(res.data.company).toMatchObject({
      syncing_status: true,
      synced_status_id: trial.id,
      syncing_tags: true,
      synced_tags: ['Partner', 'seed'],
    });
    expect((await ok(admin, 'GET', `/contacts/${first.id}`)).data.contact).toMatchObject({ status: 'Trial', tags: ['Partner', 'seed'] });
    const later = await contact(admin, { last_name: 'Later', company_name: 'sync co' });
    expect(later).toMatchObject({ status: 'Trial', tags: ['Partner', 'seed'] });
  });

  it('aggregates deal counters on contacts and companies', async () => {
    const c = await contact(admin, { last_name: 'Dealer', company_name: 'Deal Co' });
    const other = await contact(admin, { last_name: 'Partner', company_name: 'Deal Co' });
    await ok(admin, 'POST', `/contacts/${c.id}/deals`, { name: 'Pending one', amount: 100, months: 3 }, 201);
    await ok(admin, 'POST', `/contacts/${c.id}/deals`, { name: 'Won one', amount: 50, status: 'won' }, 201);
    await ok(admin, 'POST', `/contacts/${other.id}/deals`, { name: 'Pending two', amount: 10 }, 201);
    const got = (await ok(admin, 'GET', `/contacts/${c.id}`)).data;
    expect(got.contact).toMatchObject({ pending_deal: true, total_pendings: 300, total_deals_count: 2, company_size: 2 });
    expect(got.company).toMatchObject({ won_deals_count: 1, pending_deals_count: 2, total_won_amount: 50, total_pending_amount: 310 });
    expect(got.company.pending_deals.map((d: Json) => d.deal.name).sort()).toEqual(['Pending one', 'Pending two']);
    const listed = await ok(admin, 'GET', `/contacts?pending_deal=true&fields=deals(all)`);
    const entry = listed.data.contacts.find((e: Json) => e.contact.id === c.id);
    expect(entry.deals.map((d: Json) => d.deal.name).sort()).toEqual(['Pending one', 'Won one']);
    // A deleted contact's deals leave the company's counters.
    await ok(admin, 'DELETE', `/contacts/${other.id}`);
    expect((await ok(admin, 'GET', `/companies/${c.company_id}`)).data.company).toMatchObject({
      contacts_count: 1,
      pending_deals_count: 1,
      total_pending_amount: 300,
    });
  });

  it('shows the caller’s next action in the wrapper', async () => {
    const c = await contact(admin, { last_name: 'Actor' });
    await ok(admin, 'POST', '/actions', { contact_id: c.id, text: 'Call back', status: 'date', date: '2030-01-02' }, 201);
    await ok(member, 'POST', '/actions', { contact_id: c.id, text: 'Email', status: 'waiting' }, 201);
    const mine = (await ok(admin, 'GET', `/contacts/${c.id}`)).data;
    expect(mine.next_action).toMatchObject({ text: 'Call back', assignee_id: admin.user.id });
    expect(mine.next_actions).toHaveLength(2);
    const theirs = (await ok(member, 'GET', `/contacts/${c.id}`)).data;
    expect(theirs.next_action).toMatchObject({ text: 'Email', assignee_id: member.user.id });
    expect((await ok(admin, 'GET', '/contacts?action_stream=true')).data.contacts.map((w: Json) => w.contact.id)).toEqual([c.id]);
    expect((await ok(admin, 'GET', '/contacts?has_actions_for_me=true')).data.contacts.map((w: Json) => w.contact.id)).toEqual([c.id]);
    expect((await ok(admin, 'GET', '/contacts?team=true&waiting=true')).data.contacts).toEqual([]);
    expect((await ok(member, 'GET', '/contacts?team=true&waiting=true')).data.contacts.map((w: Json) => w.contact.id)).toEqual([c.id]);
  });

  it("never reads or changes another account's companies", async () => {
    const c = await contact(admin, { company_name: 'Secret Inc' });
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'Stolen' }],
      ['PATCH', { name: 'Stolen' }],
    ] as const) {
      const res = await call(stranger)<Json>(method, `/companies/${c.company_id}`, body);
      expect(res.status).toBe(404);
      expect(res.body.error_name).toBe('resource_not_found');
    }
    expect((await call(admin)<Json>('GET', '/companies/not-an-id')).status).toBe(404);
    expect((await ok(admin, 'GET', `/companies/${c.company_id}`)).data.company.name).toBe('Secret Inc');
    // A contact of the stranger naming the same company gets its own.
    expect((await contact(stranger, { company_name: 'Secret Inc' })).company_id).not.toBe(c.company_id);
    expect((await call(stranger)<Json>('POST', '/contacts', { last_name: 'X', company_id: c.company_id })).status).toBe(404);
    expect((await ok(stranger, 'GET', `/contacts?team=true&company_id=${c.company_id}`)).data.contacts).toEqual([]);
  });

  it('embeds fewer contacts in each GET /companies entry than in GET /companies/{id} (docs/decisions.md "Bounded embedded arrays")', async () => {
    const LIST_CAP = 3; // COMPANY_LIST_CONTACTS_CAP
    const names = ['Cap E', 'Cap D', 'Cap C', 'Cap B', 'Cap A'];
    let companyId = '';
    for (const last of names) companyId = (await contact(admin, { last_name: last, company_name: 'Capped Co' })).company_id;
    const single = (await ok(admin, 'GET', `/companies/${companyId}`)).data.company;
    expect(single.contacts.map((w: Json) => w.contact.last_name)).toEqual([...names].reverse());
    const [entry] = (await ok(admin, 'GET', '/companies?search=Capped')).data.companies;
    expect(entry.company.contacts_count).toBe(names.length);
    expect(entry.company.contacts.map((w: Json) => w.contact.last_name)).toEqual([...names].reverse().slice(0, LIST_CAP));
  });
});
