import { createAccount, type CreatedAccount } from '@crm/testing';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { setupE2e } from './setup';
import { aToday } from './utc-days';
import { recordCalls, type Json } from './record-helpers';

const DEAL_KEYS = [
  'amount',
  'attachments',
  'author',
  'close_date',
  'commission',
  'commission_base',
  'commission_percentage',
  'commission_type',
  'contact_id',
  'contact_info',
  'cost',
  'created_at',
  'date',
  'deal_fields',
  'deal_items',
  'expected_close_date',
  'has_deal_items',
  'has_related_notes',
  'id',
  'linked_contacts',
  'margin',
  'modified_at',
  'months',
  'name',
  'owner',
  'owner_id',
  'pipeline_id',
  'reason_lost_id',
  'sales_pipeline_id',
  'stage',
  'status',
  'text',
  'total_amount',
  'total_cost',
];
const FOREIGN_ID = 'f'.repeat(24);

/** Deals over HTTP (spec "Deal", "GET /deals", "POST /contacts/{contact_id}/deals"; decisions.md "Deals and actions"). */
describe('deals (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });

  const { call, ok, contact } = recordCalls(() => services);
  const deal = async (who: CreatedAccount, contactId: string, body: Record<string, unknown> = {}) =>
    (await ok(who, 'POST', `/contacts/${contactId}/deals`, { name: 'Deal', ...body }, 201)).deal as Json;

  it('creates a deal with the spec defaults and reads it back', async () => {
    const person = await contact(admin, { company_name: 'Globex' });
    const res = await call(admin)<Json>('POST', `/contacts/${person.id}/deals.json`, {
      name: `  ${'x'.repeat(80)}`,
      text: '[b]Big[/b] [i]one[/i]',
      amount: 250.5,
      months: 4,
      cost: 50.25,
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(['data', 'message', 'status', 'timestamp']);
    const created = res.body.data.deal;
    expect(Object.keys(created).sort()).toEqual(DEAL_KEYS);
    expect(created).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{24}$/),
      contact_id: person.id,
      owner_id: admin.user.id,
      name: 'x'.repeat(60),
      text: '[b]Big[/b] [i]one[/i]',
      status: 'pending',
      stage: 10,
      date: aToday(),
      expected_close_date: aToday(),
      close_date: aToday(),
      amount: 250.5,
      months: 4,
      total_amount: 1002,
      total_cost: 201,
      margin: 801,
      has_deal_items: false,
      deal_items: [],
      deal_fields: [],
      attachments: [],
      linked_contacts: [],
      has_related_notes: false,
      author: 'Ada Admin',
      contact_info: { contact_name: 'Ann Lee', company: 'Globex' },
      owner: { id: admin.user.id, name: 'Ada Admin', email: admin.user.email },
      reason_lost_id: '',
    });
    const pipelines = await ok(admin, 'GET', '/pipelines');
    expect(JSON.stringify(pipelines)).toContain(created.pipeline_id);
    expect(JSON.stringify(pipelines)).toContain(created.sales_pipeline_id);
    const got = await ok(admin, 'GET', `/deals/${created.id.toUpperCase()}.json`);
    expect(got.deal).toEqual(created);
    // POST /deals with contact_id in the body is the same create.
    expect((await ok(member, 'POST', '/deals', { contact_id: person.id, name: 'Body' }, 201)).deal).toMatchObject({
      contact_id: person.id,
      owner_id: member.user.id,
      author: 'Uma User',
    });
  });

  it('moves deals through pending, won and lost, and the contact and company counters follow', async () => {
    const person = await contact(admin, { company_name: 'Counters Inc' });
    const d = await deal(admin, person.id, {
      stage: 60,
      amount: 100,
      months: 2,
    });
    let read = (await ok(admin, 'GET', `/contacts/${person.id}`)).contact;
    expect(read).toMatchObject({
      pending_deal: true,
      total_pendings: 200,
      total_deals_count: 1,
    });

    const won = (await ok(admin, 'PATCH', `/deals/${d.id}`, { status: 'won' })).deal;
    expect(won).toMatchObject({
      status: 'won',
      stage: 0,
      last_stage: 60,
      close_date: aToday(),
    });
    read = (await ok(admin, 'GET', `/contacts/${person.id}`)).contact;
    expect(read).toMatchObject({
      pending_deal: false,
      total_pendings: 0,
      total_deals_count: 1,
    });
    const company = (await ok(admin, 'GET', `/companies/${person.company_id}`)).company;
    expect(company).toMatchObject({
      won_deals_count: 1,
      pending_deals_count: 0,
      total_won_amount: 200,
      total_pending_amount: 0,
      pending_deals: [],
    });

    const lost = (
      await ok(admin, 'PUT', `/deals/${d.id}?partial=true`, {
        status: 'lost',
        close_date: '2025-12-31',
      })
    ).deal;
    expect(lost).toMatchObject({
      status: 'lost',
      last_stage: 60,
      close_date: '2025-12-31',
    });
    const reopened = (await ok(admin, 'PATCH', `/deals/${d.id}`, { status: 'pending' })).deal;
    expect(reopened).toMatchObject({ status: 'pending', stage: 60 });
    expect(reopened).not.toHaveProperty('last_stage');
    const companyAgain = (await ok(admin, 'GET', `/companies/${person.company_id}`)).company;
    expect(companyAgain).toMatchObject({
      won_deals_count: 0,
      pending_deals_count: 1,
      total_pending_amount: 200,
    });
    expect(companyAgain.pending_deals.map((e: Json) => e.deal.id)).toEqual([d.id]);

    // PUT replaces: name required, every absent writable field back to its create default
    // (stage: the default pipeline's first stage, date today, owner the caller).
    expect((await call(admin)<Json>('PUT', `/deals/${d.id}`, { amount: 5 })).body).toMatchObject({
      error_name: 'invalid_request_data',
      errors: { name: expect.any(String) },
    });
    const replaced = (await ok(admin, 'PUT', `/deals/${d.id}`, { name: 'Replaced' })).deal;
    expect(replaced).toMatchObject({
      name: 'Replaced',
      amount: 0,
      months: 1,
      text: '',
      status: 'pending',
      stage: 10,
      date: aToday(),
      owner_id: admin.user.id,
    });
    read = (await ok(admin, 'GET', `/contacts/${person.id}`)).contact;
    expect(read).toMatchObject({ pending_deal: true, total_pendings: 0 });

    expect((await call(admin)('DELETE', `/deals/${d.id}`)).status).toBe(200);
    expect((await call(admin)('GET', `/deals/${d.id}`)).status).toBe(404);
    read = (await ok(admin, 'GET', `/contacts/${person.id}`)).contact;
    expect(read).toMatchObject({ pending_deal: false, total_deals_count: 0 });
  });

  it('keeps deal items, linked contacts and admin-only deal fields', async () => {
    const primary = await contact(admin, { last_name: 'Primary' });
    const other = await contact(admin, {
      first_name: 'Bo',
      last_name: 'Linked',
      company_name: 'Initech',
    });
    const field = (await ok(admin, 'POST', '/deal_fields', { name: 'Region', type: 'select_box', choices: ['EMEA', 'APAC'] }, 201))
      .deal_field;
    const d = await deal(admin, primary.id, {
      linked_contact_ids: [other.id],
      deal_fields: [{ deal_field: { id: field.id }, value: 'EMEA' }],
      deal_items: [{ name: 'Seats', price: 20, cost: 5, qty: 10, description: 'per seat' }],
    });
    expect(d).toMatchObject({
      has_deal_items: true,
      amount: 200,
      cost: 50,
      total_amount: 200,
      margin: 150,
    });
    expect(d.deal_items).toEqual([
      expect.objectContaining({
        name: 'Seats',
        price: 20,
        cost: 5,
        qty: 10,
        amount: 200,
        deal_id: d.id,
        position: 0,
        predefined_item_id: '',
      }),
    ]);
    expect(d.linked_contacts).toEqual([
      {
        id: other.id,
        contact_name: 'Bo Linked',
        company: 'Initech',
        photo_url: '',
      },
    ]);
    expect(d.deal_fields).toEqual([
      {
        deal_field: {
          id: field.id,
          name: 'Region',
          type: 'select_box',
          position: field.position,
          choices: ['EMEA', 'APAC'],
        },
        value: 'EMEA',
      },
    ]);

    const denied = await call(member)<Json>('PATCH', `/deals/${d.id}`, {
      deal_fields: [{ deal_field: { id: field.id }, value: 'APAC' }],
    });
    expect(denied.status).toBe(403);
    expect(denied.body.error_name).toBe('no_permission_to_complete_action');
    const badValue = await call(admin)<Json>('PATCH', `/deals/${d.id}`, {
      deal_fields: [{ deal_field: { id: field.id }, value: 'Mars' }],
    });
    expect(badValue.status).toBe(400);
    expect(Object.keys(badValue.body.errors)).toEqual(['deal_fields.0.value']);
    expect(
      (
        await call(admin)('PATCH', `/deals/${d.id}`, {
          deal_fields: [{ deal_field: { id: FOREIGN_ID }, value: 'x' }],
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(admin)('PATCH', `/deals/${d.id}`, {
          linked_contact_ids: [FOREIGN_ID],
        })
      ).status,
    ).toBe(404);

    const listed = await ok(admin, 'GET', `/deals?contact_id=${primary.id}&fields=contacts(all)`);
    expect(listed.deals).toHaveLength(1);
    expect(listed.deals[0].contacts.map((c: Json) => c.id)).toEqual([primary.id, other.id]);
    expect(listed.deals[0].contacts[1]).toMatchObject({
      first_name: 'Bo',
      last_name: 'Linked',
      company_name: 'Initech',
    });
    const withDeals = await ok(admin, 'GET', `/contacts?fields=deals(all)&search=Primary`);
    expect(withDeals.contacts[0].deals.map((e: Json) => e.deal.id)).toEqual([d.id]);
  });

  it("answers each list entry's contacts with fields=contacts(all): primary first, then linked, at most 5", async () => {
    const who = await createAccount(services, { name: 'Deal contacts' });
    const primary = await contact(who, { last_name: 'Primary', company_name: 'Contacts Co' });
    const linked: Json[] = [];
    for (const name of ['L1', 'L2', 'L3', 'L4', 'L5', 'L6']) linked.push(await contact(who, { last_name: name }));
    const big = await deal(who, primary.id, { name: 'Many', linked_contact_ids: linked.map((c) => c.id) });
    const small = await deal(who, linked[0].id, { name: 'Few', linked_contact_ids: [primary.id] });
    const listed = await ok(who, 'GET', '/deals?fields=contacts(all)&sort_by=name');
    const byId = new Map(listed.deals.map((e: Json) => [e.deal.id, e.contacts.map((c: Json) => c.id)]));
    expect(byId.get(big.id)).toEqual([primary.id, ...linked.slice(0, 4).map((c) => c.id)]);
    expect(byId.get(small.id)).toEqual([linked[0].id, primary.id]);
    const entry = listed.deals.find((e: Json) => e.deal.id === big.id);
    expect(entry.contacts[0]).toMatchObject({ id: primary.id, last_name: 'Primary', company_name: 'Contacts Co' });
    // Without fields= an entry is the deal alone, as the spec and OnePageCRM have it.
    expect(Object.keys((await ok(who, 'GET', '/deals')).deals[0])).toEqual(['deal']);
  });

  it('lists with every filter, paging and the one-of-four rule', async () => {
    const who = await createAccount(services, { name: 'Lister' });
    const a = await contact(who, {
      last_name: 'Alpha',
      company_name: 'Alpha Co',
      tags: ['hot'],
    });
    const b = await contact(who, { last_name: 'Beta' });
    const d1 = await deal(who, a.id, {
      name: 'Apple pie',
      amount: 10,
      stage: 25,
      date: '2025-01-10',
      expected_close_date: '2025-02-01',
    });
    const d2 = await deal(who, a.id, {
      name: 'Banana',
      amount: 30,
      status: 'won',
      date: '2025-03-10',
      close_date: '2025-03-20',
    });
    const d3 = await deal(who, b.id, {
      name: 'Cherry',
      amount: 20,
      status: 'lost',
      date: '2025-05-10',
    });
    const d4 = await deal(who, b.id, {
      name: 'Apple tart',
      amount: 40,
      stage: 50,
      date: '2025-07-10',
    });
    const ids = async (query: string) => (await ok(who, 'GET', `/deals${query}`)).deals.map((e: Json) => e.deal.id);

    expect(await ids('')).toEqual([d4.id, d3.id, d2.id, d1.id]);
    expect(await ids('?status=pending')).toEqual([d4.id, d1.id]);
    expect(await ids('?status=closed')).toEqual([d3.id, d2.id]);
    expect(await ids('?status=WON')).toEqual([d2.id]);
    expect(await ids('?stage=25')).toEqual([d1.id]);
    expect(await ids('?name=apple')).toEqual([d4.id, d1.id]);
    expect(await ids('?search=alpha')).toEqual([d2.id, d1.id]);
    expect(await ids(`?contact_id=${b.id}`)).toEqual([d4.id, d3.id]);
    expect(await ids(`?company_id=${a.company_id}`)).toEqual([d2.id, d1.id]);
    expect(await ids('?tag=HOT')).toEqual([d2.id, d1.id]);
    expect(await ids(`?owner_id=${who.user.id}&pipeline_id=${d1.pipeline_id}&sales_pipeline_id=${d1.sales_pipeline_id}`)).toHaveLength(4);
    expect(await ids('?sort_by=amount')).toEqual([d1.id, d3.id, d2.id, d4.id]);
    expect(await ids('?sort_by=amount&order=desc')).toEqual([d4.id, d2.id, d3.id, d1.id]);
    expect(await ids('?date_filter=date&since=2025-03-10&until=2025-05-10')).toEqual([d3.id, d2.id]);
    expect(await ids('?date_filter=close_date&until=2025-03-20&status=won')).toEqual([d2.id]);
    expect(await ids(`?modified_since=${Math.floor(Date.now() / 1000) + 3600}`)).toEqual([]);
    expect(await ids('?unmodified_since=2000-01-01')).toEqual([]);

    const page = await ok(who, 'GET', '/contacts/' + a.id + '/deals?per_page=1&page=2');
    expect(page).toMatchObject({
      total_count: 2,
      page: 2,
      per_page: 1,
      max_page: 2,
    });
    expect(page.deals.map((e: Json) => e.deal.id)).toEqual([d1.id]);
    const history = await ok(who, 'GET', `/deals?include_history=true&per_page=1`);
    expect(history.deals[0].deal.previous_pipeline_stages).toEqual({});
    expect((await ok(who, 'GET', '/deals?per_page=1')).deals[0].deal).not.toHaveProperty('previous_pipeline_stages');

    for (const [query, key] of [
      [`?contact_id=${a.id}&tag=hot`, 'tag'],
      ['?status=open', 'status'],
      ['?stage=100', 'stage'],
      ['?fields=notes(all)', 'fields'],
      ['?date_filter=date&modified_since=2025-01-01', 'date_filter'],
      ['?since=yesterday', 'since'],
      ['?sort_by=owner', 'sort_by'],
      ['?include_history=maybe', 'include_history'],
      ['?per_page=0', 'per_page'],
      ['?search=a%00b', 'search'],
    ]) {
      const res = await call(who)<Json>('GET', `/deals${query}`);
      expect([query, res.status, res.body.error_name]).toEqual([query, 400, 'invalid_request_data']);
      expect(Object.keys(res.body.errors)).toContain(key);
    }
    expect((await call(who)('GET', `/deals?contact_id=${FOREIGN_ID}`)).status).toBe(404);
    expect((await call(who)('GET', `/contacts/${FOREIGN_ID}/deals`)).status).toBe(404);
  });

  it('refuses bad input with errors keyed by field and another account with 404', async () => {
    const person = await contact(admin);
    for (const [body, key] of [
      [{ stage: 0 }, 'stage'],
      [{ stage: 100 }, 'stage'],
      [{ stage: 'ten' }, 'stage'],
      [{ status: 'closed' }, 'status'],
      [{ date: '2025-13-01' }, 'date'],
      [{ close_date: '20250101' }, 'close_date'],
      [{ months: 0 }, 'months'],
      [{ amount: -1 }, 'amount'],
      [{ deal_items: [{ name: 'x', qty: -2 }] }, 'deal_items.0.qty'],
      [{ deal_items: [{ qty: 1 }] }, 'deal_items.0.name'],
      [{ name: '' }, 'name'],
      [{ text: 'a\u0000b' }, 'text'],
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await call(admin)<Json>('POST', `/contacts/${person.id}/deals`, { name: 'x', ...body });
      expect([key, res.status, res.body.error_name]).toEqual([key, 400, 'invalid_request_data']);
      expect(Object.keys(res.body.errors)).toContain(key);
    }
    const missing = await call(admin)<Json>('POST', `/contacts/${person.id}/deals`, { amount: 1 });
    expect(missing.body.errors).toHaveProperty('name');
    // A stage sent for a won deal is ignored.
    expect((await deal(admin, person.id, { status: 'won', stage: 100 })).status).toBe('won');

    const theirs = await contact(stranger);
    expect(
      (
        await call(admin)<Json>('POST', `/contacts/${theirs.id}/deals`, {
          name: 'x',
        })
      ).body.error_name,
    ).toBe('resource_not_found');
    const mine = await deal(admin, person.id);
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'x' }],
      ['PATCH', { name: 'x' }],
      ['DELETE', undefined],
    ] as const) {
      const res = await call(stranger)<Json>(method, `/deals/${mine.id}`, body);
      expect([method, res.status, res.body.error_name]).toEqual([method, 404, 'resource_not_found']);
    }
    expect((await ok(stranger, 'GET', '/deals')).total_count).toBe(0);
    expect(
      (
        await call(admin)('PATCH', `/deals/${mine.id}`, {
          contact_id: theirs.id,
        })
      ).status,
    ).toBe(404);
    expect(
      (
        await call(admin)('PATCH', `/deals/${mine.id}`, {
          owner_id: stranger.user.id,
        })
      ).status,
    ).toBe(404);
    expect((await call(admin)('GET', '/deals/not-an-id')).status).toBe(404);
  });

  it('delivers deal events in the spec shape (created, changed_to_won, deleted)', async () => {
    const received: Json[] = [];
    const receiver = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        received.push(JSON.parse(body));
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const who = await createAccount(services, { name: 'Hooked' });
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
      expect(
        (
          await call(who)('POST', '/webhooks', {
            name: 'deals',
            hook_url: url,
            types: ['deal'],
            secretkey: 's3',
          })
        ).status,
      ).toBe(201);
      const person = await contact(who);
      const d = await deal(who, person.id, { stage: 35 });
      await ok(who, 'PATCH', `/deals/${d.id}`, { status: 'won' });
      await ok(who, 'DELETE', `/deals/${d.id}`);
      const until = Date.now() + 20_000;
      while (received.length < 3 && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
      const byReason = Object.fromEntries(received.map((e) => [e.reason, e]));
      expect(Object.keys(byReason).sort()).toEqual(['changed_to_won', 'created', 'deleted']);
      for (const event of received) expect(Object.keys(event).sort()).toEqual(['data', 'reason', 'secretkey', 'timestamp', 'type']);
      expect(byReason.created).toMatchObject({
        type: 'deal',
        secretkey: 's3',
        data: {
          deal: {
            id: d.id,
            status: 'pending',
            stage: 35,
            expected_close_date: aToday(),
          },
        },
      });
      expect(byReason.changed_to_won.data.deal).toMatchObject({
        id: d.id,
        status: 'won',
        last_stage: 35,
        close_date: aToday(),
      });
      expect(byReason.deleted.data).toEqual({ id: d.id });
    } finally {
      await new Promise((r) => receiver.close(r));
    }
  });

  it('documents every deal route in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${services.gatewayUrl}/api/v3/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/deals']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/deals/{deal_id}']).sort()).toEqual(['delete', 'get', 'patch', 'put']);
    expect(Object.keys(doc.paths['/contacts/{contact_id}/deals']).sort()).toEqual(['get', 'post']);
  });
});
