import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { openMediumDatabase, type TestAccount } from '../contacts/contacts.medium-fixture';
import type { DealState, PipelineRef } from './deal.rules';
import { DealsRepository, type DealListFilter } from './deals.repository';

describe('DealsRepository (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let acme: TestAccount;
  let other: TestAccount;
  let pipelines: PipelineRef[];
  const deals = new DealsRepository();

  async function contact(account: TestAccount, last: string, options: { companyId?: string; company?: string } = {}): Promise<string> {
    const id = newId();
    await dataSource.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, first_name, last_name, status_id, sort_name, letter, company_id, company_name)
       SELECT $1, $2::varchar, $3, 'Ann', $4::varchar, s.id, lower($4::varchar), 'l', $5, $6 FROM crm.statuses s WHERE s.account_id = $2::varchar AND s.is_lead`,
      [id, account.accountId, account.userId, last, options.companyId ?? null, options.company ?? ''],
    );
    return id;
  }

  function state(contactId: string, fields: Partial<DealState> = {}): DealState {
    const pipeline = pipelines.find((p) => p.kind === 'pipeline' && p.is_default)!;
    const sales = pipelines.find((p) => p.kind === 'sales' && p.is_default)!;
    return {
      contact_id: contactId,
      owner_id: acme.userId,
      pipeline_id: pipeline.id,
      sales_pipeline_id: sales.id,
      name: 'Deal',
      text: '',
      status: 'pending',
      stage: 10,
      last_stage: null,
      expected_close_date: '2026-12-01',
      close_date: '2026-12-01',
      date: '2026-11-01',
      amount: 0,
      months: 1,
      cost: 0,
      commission_base: '',
      commission_type: '',
      commission: 0,
      commission_percentage: 0,
      reason_lost_id: null,
      deal_fields: {},
      previous_pipeline_stages: {},
      ...fields,
    };
  }

  async function insert(contactId: string, fields: Partial<DealState> = {}): Promise<string> {
    const id = newId();
    await deals.insert(dataSource.manager, id, acme.accountId, acme.userId, state(contactId, fields), new Date());
    return id;
  }

  const list = (filter: Partial<DealListFilter>) =>
    deals.list(dataSource.manager, acme.accountId, { page: 1, perPage: 50, ...filter }).then(({ rows, total }) => ({
      total,
      names: rows.map((r) => r.name),
    }));

  beforeAll(async () => {
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(await createTestDatabase('crm_deals_repo')));
    [acme, other] = accounts;
    pipelines = await deals.pipelines(dataSource.manager, acme.accountId, []);
  });

  afterAll(async () => close?.());

  it('reads the defaults and the pipelines named as candidates, never another account', async () => {
    expect(pipelines.map((p) => p.kind).sort()).toEqual(['pipeline', 'sales']);
    const [otherDefault] = await deals.pipelines(dataSource.manager, other.accountId, []);
    const named = await deals.pipelines(dataSource.manager, acme.accountId, [otherDefault.id]);
    expect(named.map((p) => p.id).sort()).toEqual(pipelines.map((p) => p.id).sort());
  });

  it('reads what a new deal needs in one statement: its contact, the users named, the pipelines', async () => {
    const contactId = await contact(acme, 'Context');
    const context = await deals.createContext(dataSource.manager, acme.accountId, contactId, [acme.userId, other.userId], []);
    expect(context).toMatchObject({ id: contactId, last_name: 'Context' });
    expect(context!.users.map((u) => u.id)).toEqual([acme.userId]);
    expect(context!.pipelines).toHaveLength(2);
    expect(await deals.createContext(dataSource.manager, other.accountId, contactId, [other.userId], [])).toBeUndefined();
  });

  it('inserts and reads back every column (JSON and numeric ones included)', async () => {
    const contactId = await contact(acme, 'Columns');
    const id = await insert(contactId, {
      name: 'Columns',
      amount: 12.5,
      months: 3,
      cost: 1.25,
      commission_percentage: 12.3456,
      deal_fields: { f: ['a', 'b'] },
      previous_pipeline_stages: { p: 30 },
    });
    const row = await deals.byId(dataSource.manager, acme.accountId, id);
    expect(row).toMatchObject({
      name: 'Columns',
      contact_id: contactId,
      author_id: acme.userId,
      status: 'pending',
      stage: 10,
      months: 3,
      deal_fields: { f: ['a', 'b'] },
      previous_pipeline_stages: { p: 30 },
      c_last_name: 'Columns',
      items: [],
      linked: [],
      has_related_notes: false,
      attachments: [],
    });
    expect(Number(row!.amount)).toBe(12.5);
    expect(Number(row!.commission_percentage)).toBe(12.3456);
    expect(await deals.byId(dataSource.manager, other.accountId, id)).toBeUndefined();
  });

  it('locks and updates the whole state', async () => {
    const contactId = await contact(acme, 'Update');
    const moved = await contact(acme, 'Moved');
    const id = await insert(contactId, { name: 'Before' });
    await dataSource.transaction(async (tx) => {
      const current = await deals.lock(tx, acme.accountId, id);
      expect(current).toMatchObject({ id, name: 'Before', amount: 0, c_status_id: expect.any(String) });
      expect(await deals.lock(tx, other.accountId, id)).toBeUndefined();
      await deals.update(tx, id, {
        ...current!,
        contact_id: moved,
        name: 'After',
        status: 'won',
        stage: null,
        last_stage: 10,
        amount: 7.5,
      });
    });
    expect(await deals.byId(dataSource.manager, acme.accountId, id)).toMatchObject({
      name: 'After',
      contact_id: moved,
      status: 'won',
      stage: null,
      last_stage: 10,
    });
  });

  it('replaces items in order (an id sent updates that item, the rest are removed) and totals them', async () => {
    const contactId = await contact(acme, 'Items');
    const id = await insert(contactId, { name: 'Items' });
    expect(await deals.itemTotals(dataSource.manager, id)).toBeNull();
    await deals.replaceItems(dataSource.manager, acme.accountId, id, [
      { name: 'a', price: 10, qty: 2, cost: 1 },
      { name: 'b', price: 5 },
    ]);
    const first = (await deals.byId(dataSource.manager, acme.accountId, id))!.items;
    expect(first.map((i) => [i.name, i.position])).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
    expect(await deals.itemTotals(dataSource.manager, id)).toEqual({ amount: 25, cost: 2 });
    await deals.replaceItems(dataSource.manager, acme.accountId, id, [{ id: first[1].id.toUpperCase(), name: 'b2', price: 1, qty: 3 }]);
    const second = (await deals.byId(dataSource.manager, acme.accountId, id))!.items;
    expect(second.map((i) => [i.id, i.name, i.position])).toEqual([[first[1].id, 'b2', 0]]);
    expect(await deals.itemTotals(dataSource.manager, id)).toEqual({ amount: 3, cost: 0 });
  });

  it('replaces linked contacts and hides deleted ones', async () => {
    const primary = await contact(acme, 'Primary');
    const [a, b] = [await contact(acme, 'Alpha'), await contact(acme, 'Beta')];
    const id = await insert(primary, { name: 'Links' });
    await deals.replaceLinks(dataSource.manager, acme.accountId, id, [a, b]);
    expect((await deals.links(dataSource.manager, id)).sort()).toEqual([a, b].sort());
    await deals.replaceLinks(dataSource.manager, acme.accountId, id, [b]);
    expect(await deals.links(dataSource.manager, id)).toEqual([b]);
    await dataSource.query('UPDATE crm.contacts SET deleted_at = now() WHERE id = $1', [b]);
    expect((await deals.byId(dataSource.manager, acme.accountId, id))!.linked).toEqual([]);
  });

  describe('list', () => {
    let companyId: string;
    let alice: string;

    beforeAll(async () => {
      [{ id: companyId }] = await dataSource.query(
        "INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, 'Initech') RETURNING id",
        [newId(), acme.accountId],
      );
      alice = await contact(acme, 'Zed', { companyId, company: 'Initech' });
      const gone = await contact(acme, 'Gone');
      await insert(alice, { name: 'L-100% done', date: '2026-01-03', status: 'won', stage: null, last_stage: 40 });
      await insert(alice, { name: 'L-open', date: '2026-01-02', stage: 20 });
      await insert(alice, { name: 'L-lost', date: '2026-01-01', status: 'lost', stage: null });
      await insert(gone, { name: 'L-gone', date: '2026-01-04' });
      await dataSource.query('UPDATE crm.contacts SET deleted_at = now() WHERE id = $1', [gone]);
    });

    it('hides deals of deleted contacts from the page and from both counts', async () => {
      expect(await list({ name: 'L-' })).toEqual({ total: 3, names: ['L-100% done', 'L-open', 'L-lost'] });
      expect(await list({ name: 'L-', search: 'initech' })).toEqual({ total: 3, names: ['L-100% done', 'L-open', 'L-lost'] });
    });

    it('filters by status (closed = won or lost), stage of pending deals, contact and company', async () => {
      expect((await list({ name: 'L-', status: 'closed' })).names).toEqual(['L-100% done', 'L-lost']);
      expect((await list({ name: 'L-', status: 'won', stage: 40 })).total).toBe(0);
      expect((await list({ name: 'L-', stage: 20 })).names).toEqual(['L-open']);
      expect((await list({ contactId: alice })).total).toBe(3);
      expect((await list({ companyId })).total).toBe(3);
    });

    it("filters by company through the deal's stored company_id, which follows its contact (moves, soft deletes, deal moves)", async () => {
      const bob = await contact(acme, 'Bob');
      const moved = await insert(bob, { name: 'M-deal', date: '2026-02-01' });
      const names = async () => (await list({ companyId, name: 'M-' })).names;
      expect(await names()).toEqual([]);
      await dataSource.query('UPDATE crm.contacts SET company_id = $2 WHERE id = $1', [bob, companyId]);
      expect(await names()).toEqual(['M-deal']);
      await dataSource.query('UPDATE crm.contacts SET deleted_at = now() WHERE id = $1', [bob]);
      expect(await names()).toEqual([]);
      await dataSource.query('UPDATE crm.contacts SET deleted_at = NULL WHERE id = $1', [bob]);
      expect(await names()).toEqual(['M-deal']);
      const carl = await contact(acme, 'Carl');
      await deals.update(dataSource.manager, moved, state(carl, { name: 'M-deal', date: '2026-02-01' }));
      expect(await names()).toEqual([]);
      await deals.update(dataSource.manager, moved, state(alice, { name: 'M-deal', date: '2026-02-01' }));
      expect(await list({ companyId, name: 'M-' })).toEqual({ total: 1, names: ['M-deal'] });
      await dataSource.query('DELETE FROM crm.deals WHERE id = $1', [moved]);
    });

    it('searches names literally (%, _ are not wildcards) and contact names', async () => {
      expect((await list({ name: '100%' })).names).toEqual(['L-100% done']);
      expect((await list({ name: 'L_' })).total).toBe(0);
      expect((await list({ name: 'L-', search: 'ann zed' })).total).toBe(3);
      expect((await list({ name: 'L-', search: 'zed ann' })).total).toBe(3);
    });

    it('sorts by a column (nulls last) or by date, newest first; pages', async () => {
      expect((await list({ name: 'L-', sortBy: 'name' })).names).toEqual(['L-100% done', 'L-lost', 'L-open']);
      expect((await list({ name: 'L-', sortBy: 'stage', order: 'asc' })).names[0]).toBe('L-open');
      const page2 = await deals.list(dataSource.manager, acme.accountId, { name: 'L-', page: 2, perPage: 2 });
      expect({ total: page2.total, names: page2.rows.map((r) => r.name) }).toEqual({ total: 3, names: ['L-lost'] });
    });

    it('applies the time filters on date columns by day', async () => {
      expect((await list({ name: 'L-', date_filter: 'date', since: '2026-01-02', until: '2026-01-02' })).names).toEqual(['L-open']);
    });
  });

  it('deletes the deal with its items', async () => {
    const contactId = await contact(acme, 'Delete');
    const id = await insert(contactId);
    await deals.replaceItems(dataSource.manager, acme.accountId, id, [{ name: 'x' }]);
    await deals.delete(dataSource.manager, id);
    expect(await deals.byId(dataSource.manager, acme.accountId, id)).toBeUndefined();
    expect(await deals.itemTotals(dataSource.manager, id)).toBeNull();
  });
});
