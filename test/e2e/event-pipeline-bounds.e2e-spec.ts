import { MAX_EVENT_DATA_BYTES } from '@crm/contracts';
import { api, type CreatedAccount } from '@crm/testing';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import { setupE2e, type Json } from './setup';
import { metric, startReceiver, until } from './webhook-helpers';

/**
 * The bounds of the event pipeline and the fan-out over HTTP (decisions.md "Event pipeline and
 * fan-out bounds"): a tenant's oversized events stop no one's webhooks, webhooks per account are
 * capped, a reply over one NATS message comes in parts and one over the 16 MiB reply limit is a
 * clean 400, the delivery log names no address, and time filters at the edges of the calendar are no 500.
 */
describe('event pipeline and fan-out bounds (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: true, member: true });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  /** One query on the services' database (a session of its own: the database goes with the services). */
  async function query<T extends object>(text: string, values: unknown[]): Promise<T[]> {
    const db = new Client({ connectionString: services.database.url });
    await db.connect();
    try {
      return (await db.query<T>(text, values)).rows;
    } finally {
      await db.end();
    }
  }

  const call = (who: CreatedAccount) => api(services, who);
  const ok = async (who: CreatedAccount, method: string, path: string, body?: unknown, status = 200): Promise<Json> => {
    const res = await call(who)<Json>(method, path, body);
    if (res.status !== status) throw new Error(`${method} ${path} answered ${res.status}: ${res.text.slice(0, 500)}`);
    return res.body.data;
  };
  const crmCoreMetricsPort = () => services.processes.find((p) => p.app === 'crm-core')!.metricsPort;

  /** A contact of `who` with a next action and 35 queued actions of `text`, all due the same day. */
  async function heavyContact(who: CreatedAccount, lastName: string, companyName: string | null, text: string) {
    const contact = (await ok(who, 'POST', '/contacts', { last_name: lastName, company_name: companyName }, 201)).contact;
    await ok(who, 'POST', `/contacts/${contact.id}/actions`, { text, status: 'date', date: '2030-01-01' }, 201);
    for (let i = 0; i < 35; i += 1)
      await ok(who, 'POST', `/contacts/${contact.id}/actions`, { text, status: 'queued_with_date', date: '2030-01-01' }, 201);
    return contact as { id: string; company_id: string | null };
  }

  it("one tenant's oversized contact and company events hold back no one: they arrive reduced, with the five keys", async () => {
    await ok(admin, 'POST', '/webhooks', { name: 'A', hook_url: `${receiver.url}/a`, types: ['contact', 'company'] }, 201);
    await ok(stranger, 'POST', '/webhooks', { name: 'B', hook_url: `${receiver.url}/b`, types: ['contact'] }, 201);

    // The attack of issue 16: large queued actions, then any edit of the contact and of its company.
    // 10,000 characters each (the longest action text): 30 KB of JSON in CJK, 60 KB in control characters (\u0001).
    const cjk = '漢'.repeat(10_000);
    const { id: first, company_id: companyId } = await heavyContact(admin, 'Heavy', 'Heavy Co', cjk);
    const second = await heavyContact(admin, 'Heavier', 'Heavy Co', cjk);
    expect(second.company_id).toBe(companyId);
    const escaped = await heavyContact(admin, 'Escaped', null, '\u0001'.repeat(10_000));
    await ok(admin, 'PATCH', `/contacts/${first}`, { first_name: 'Edited' });
    // Its own answer is over NATS's 1 MiB as well: it comes in parts, whole (the 25 queued actions a wrapper shows).
    const big = await call(admin)<Json>('PATCH', `/contacts/${escaped.id}`, { first_name: 'Escaped' });
    expect(big.status).toBe(200);
    expect(big.text.length).toBeGreaterThan(1024 * 1024);
    expect(big.body.data.contact).toMatchObject({ id: escaped.id, first_name: 'Escaped' });
    expect(big.body.data.queued_actions).toHaveLength(25);
    expect((big.body.data.queued_actions as Json[]).every((a) => a.text === '\u0001'.repeat(10_000))).toBe(true);
    // The company embeds both heavy contacts: its answer is over NATS's 1 MiB too, and comes whole.
    const renamed = await call(admin)<Json>('PATCH', `/companies/${companyId}`, { name: 'Heavy Co renamed' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data.company).toMatchObject({ id: companyId, name: 'Heavy Co renamed' });
    expect((renamed.body.data.company.contacts as Json[]).map((w) => w.contact.id).sort()).toEqual([first, second.id].sort());
    const strangers = (await ok(stranger, 'POST', '/contacts', { last_name: 'Bystander' }, 201)).contact.id as string;

    // Built through the API, these events were still over NATS's 1 MiB before they were bounded when written.
    const rows = await query<{ type: string; record_id: string; bytes: number; truncated_bytes: number }>(
      `SELECT type, record_id, octet_length(data::text) AS bytes, truncated_bytes FROM crm.outbox
       WHERE account_id = $1 AND truncated_bytes IS NOT NULL ORDER BY seq`,
      [admin.account.id],
    );
    const size = (id: string) => Math.max(0, ...rows.filter((r) => r.record_id === id).map((r) => r.truncated_bytes));
    expect(size(first)).toBeGreaterThan(MAX_EVENT_DATA_BYTES); // about 850 KB
    expect(size(escaped.id)).toBeGreaterThan(1024 * 1024); // about 1.6 MB
    expect(size(companyId!)).toBeGreaterThan(1024 * 1024); // about 1.7 MB
    for (const row of rows) expect(row.bytes).toBeLessThanOrEqual(MAX_EVENT_DATA_BYTES);

    // The other tenant's event is delivered...
    await until('the bystander tenant gets its event', () =>
      receiver.on('/b').find((h) => (h.json.data.contact as Json)?.id === strangers),
    );
    // ...and so are the large ones, reduced: the record without its sibling arrays, or only its id.
    const edited = await until('the edited contact arrives', () =>
      receiver
        .on('/a')
        .find((h) => h.json.type === 'contact' && h.json.reason === 'updated' && (h.json.data.contact as Json)?.first_name === 'Edited'),
    );
    expect(Object.keys(edited.json).sort()).toEqual(['data', 'reason', 'secretkey', 'timestamp', 'type']);
    expect(edited.json.data).toMatchObject({ truncated: true, contact: { id: first, last_name: 'Heavy' } });
    expect(edited.json.data.queued_actions).toBeUndefined();
    const company = await until('the renamed company arrives', () =>
      receiver.on('/a').find((h) => h.json.type === 'company' && h.json.reason === 'updated'),
    );
    expect(Object.keys(company.json).sort()).toEqual(['data', 'reason', 'secretkey', 'timestamp', 'type']);
    expect(company.json.data).toEqual({ company: { id: companyId }, truncated: true });
    const escapedEvent = await until('the escaped contact arrives', () =>
      receiver.on('/a').find((h) => h.json.reason === 'updated' && (h.json.data.contact as Json)?.id === escaped.id),
    );
    expect(escapedEvent.json.data).toMatchObject({ truncated: true, contact: { id: escaped.id, first_name: 'Escaped' } });

    // Nothing was parked, and the reduced events are counted.
    await until('every event is relayed', async () => (await metric(crmCoreMetricsPort(), 'crm_outbox_pending_events')) === 0);
    expect(await metric(crmCoreMetricsPort(), 'crm_outbox_parked_events')).toBe(0);
    expect(await metric(crmCoreMetricsPort(), 'crm_outbox_events_truncated_total')).toBeGreaterThanOrEqual(2);
  });

  it('caps webhooks per account (10 by default): one more is a 400 naming the cap; a member gets 403 before any of it', async () => {
    const existing = (await ok(admin, 'GET', '/webhooks')).total_count as number;
    for (let n = existing; n < 10; n += 1)
      await ok(admin, 'POST', '/webhooks', { name: `Hook ${n}`, hook_url: `${receiver.url}/cap-${n}` }, 201);
    const refused = await call(admin)<Json>('POST', '/webhooks', { name: 'One more', hook_url: `${receiver.url}/cap-more` });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      status: 400,
      error_name: 'invalid_request_data',
      errors: { webhooks: expect.stringContaining('at most 10 webhooks') },
    });
    expect(Object.keys(refused.body).sort()).toEqual(['error_message', 'error_name', 'errors', 'message', 'status']);
    // Authorization comes first: a member learns nothing of the cap or of its body's faults.
    for (const body of [
      { name: 'x', hook_url: `${receiver.url}/member` },
      { name: '', hook_url: 'nope' },
    ])
      expect((await call(member)('POST', '/webhooks', body)).status).toBe(403);
  });

  it('answers a list larger than one NATS message whole, one over the 16 MiB reply limit with a clean 400, and the account goes on', async () => {
    const contact = (await ok(stranger, 'POST', '/contacts', { last_name: 'Notes' }, 201)).contact.id as string;
    const ascii = (i: number) => `${i}`.padEnd(100_000, 'n');
    for (let i = 0; i < 30; i += 1) await ok(stranger, 'POST', `/contacts/${contact}/notes`, { text: ascii(i) }, 201);
    // About 3 MB: several NATS messages, joined.
    const whole = await call(stranger)<Json>('GET', '/notes?per_page=100');
    expect(whole.status).toBe(200);
    expect(whole.body.data.total_count).toBe(30);
    expect((whole.body.data.notes as Json[]).map((n) => n.note.text).sort()).toEqual(
      Array.from({ length: 30 }, (_v, i) => ascii(i)).sort(),
    );
    // 60 more of 300 KB each (three bytes a character): the page would be about 21 MB.
    for (let i = 0; i < 60; i += 1) await ok(stranger, 'POST', `/contacts/${contact}/notes`, { text: `${i}`.padEnd(100_000, '漢') }, 201);
    const res = await call(stranger)<Json>('GET', '/notes?per_page=100');
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error_name: 'invalid_request_data', errors: { reply: expect.stringContaining('16 MiB') } });
    // Nothing stays held: the next request of the account is answered.
    const page = await call(stranger)<Json>('GET', '/notes?per_page=5');
    expect(page.status).toBe(200);
    expect(page.body.data.total_count).toBe(90);
  });

  it("lists a company's contacts in full when each wrapper repeats its 25 pending deals (about 2 MB, in parts)", async () => {
    const company = `Busy Co ${Date.now()}`;
    const firstContact = (await ok(stranger, 'POST', '/contacts', { last_name: 'Busy 00', company_name: company }, 201)).contact;
    for (let i = 1; i < 60; i += 1)
      await ok(
        stranger,
        'POST',
        '/contacts',
        { last_name: `Busy ${String(i).padStart(2, '0')}`, company_id: firstContact.company_id },
        201,
      );
    for (let i = 0; i < 25; i += 1)
      await ok(stranger, 'POST', `/contacts/${firstContact.id}/deals`, { name: `Deal ${i}`, amount: 100, text: 'd'.repeat(200) }, 201);
    const res = await call(stranger)<Json>('GET', `/contacts?company_id=${firstContact.company_id}&per_page=100`);
    expect(res.status).toBe(200);
    expect(res.text.length).toBeGreaterThan(1024 * 1024);
    const wrappers = res.body.data.contacts as Json[];
    expect(wrappers.map((w) => w.contact.last_name)).toEqual(Array.from({ length: 60 }, (_v, i) => `Busy ${String(i).padStart(2, '0')}`));
    for (const wrapper of wrappers) {
      expect(wrapper.company).toMatchObject({ id: firstContact.company_id, pending_deals_count: 25 });
      expect(wrapper.company.pending_deals).toHaveLength(25);
    }
  });

  it('shows a failed delivery as a category in the delivery log, without the address or port it tried', async () => {
    const port = await closedPort();
    const hook = await ok(stranger, 'POST', '/webhooks', { name: 'Refused', hook_url: `http://127.0.0.1:${port}/x`, types: ['note'] }, 201);
    const contact = (await ok(stranger, 'POST', '/contacts', { last_name: 'Refused' }, 201)).contact.id as string;
    await ok(stranger, 'POST', `/contacts/${contact}/notes`, { text: 'hello' }, 201);
    const delivery = await until('the first attempt is logged', async () => {
      const list = await ok(stranger, 'GET', `/webhooks/${hook.webhook.id}/deliveries`);
      return (list.deliveries as Array<{ delivery: Json }>).map((d) => d.delivery).find((d) => d.attempts.length > 0);
    });
    expect(delivery.attempts[0]).toMatchObject({ response_code: null, error: 'connection refused' });
    expect(delivery.error).toBe('connection refused');
    expect(JSON.stringify(delivery)).not.toContain(String(port));
  });

  // On the other tenant's account: the first account's heavy contacts make its lists too large to answer.
  it.each(['/contacts', '/companies', '/contacts/cascade'])(
    'GET %s with bounds at the edges of the calendar: clamped, or a 400 naming the field, never a 500',
    async (list) => {
      for (const query of [
        'until=9999-12-31',
        'since=9999-12-31',
        'modified_since=9999-12-31',
        'unmodified_since=9999-12-31',
        'until=999999999999',
      ]) {
        const res = await call(stranger)<Json>('GET', `${list}?${query}`);
        expect([query, res.status, res.status === 200 ? '' : res.text]).toEqual([query, 200, '']);
      }
      // Clamped, not ignored: until the end of time keeps everything, since its last day keeps nothing.
      if (list !== '/contacts/cascade') {
        await ok(stranger, 'POST', '/contacts', { last_name: 'Edge', company_name: 'Edge Co' }, 201);
        const all = (await ok(stranger, 'GET', list)).total_count as number;
        expect(all).toBeGreaterThan(0);
        expect((await ok(stranger, 'GET', `${list}?until=9999-12-31`)).total_count).toBe(all);
        expect((await ok(stranger, 'GET', `${list}?since=9999-12-31`)).total_count).toBe(0);
      }
      for (const field of ['until', 'since', 'modified_since', 'unmodified_since']) {
        const res = await call(stranger)<Json>('GET', `${list}?${field}=0000-01-01`);
        expect([field, res.status, res.body.error_name]).toEqual([field, 400, 'invalid_request_data']);
        expect(Object.keys(res.body.errors)).toEqual([field]);
      }
    },
  );

  it('GET /contacts and the cascade with a saved filter at the edges of the calendar: clamped, never a 500', async () => {
    for (const [field, operator, value] of [
      ['created_at', 'until', '9999-12-31'],
      ['modified_at', 'since', '9999-12-31'],
      ['created_at', 'until', 253402300799],
      // Year 0000 (PostgreSQL has none) is clamped to 0001-01-01 in a saved filter.
      ['created_at', 'since', '0000-01-01'],
      ['modified_at', 'until', '0000-01-01'],
    ] as const) {
      const filter = await ok(
        stranger,
        'POST',
        '/filters',
        { name: `${field} ${operator} ${value}`, conditions: [{ field, operator, value }] },
        201,
      );
      for (const list of ['/contacts', '/contacts/cascade']) {
        const res = await call(stranger)<Json>('GET', `${list}?filter_id=${filter.filter.id}`);
        expect([list, field, operator, value, res.status, res.status === 200 ? '' : res.text]).toEqual([
          list,
          field,
          operator,
          value,
          200,
          '',
        ]);
      }
    }
  });
});

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}
