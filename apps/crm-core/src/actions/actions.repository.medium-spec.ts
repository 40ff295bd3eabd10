import { newId } from '@crm/common';
import { parseContract, ListActionsRequest } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { openMediumDatabase, type TestAccount } from '../contacts/contacts.medium-fixture';
import { ActionsRepository, type NewAction } from './actions.repository';

describe('ActionsRepository (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let acme: TestAccount;
  let other: TestAccount;
  const actions = new ActionsRepository();

  async function contact(account: TestAccount): Promise<string> {
    const id = newId();
    await dataSource.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, first_name, last_name, status_id, sort_name, letter)
       SELECT $1, $2::varchar, $3, 'Ann', 'Lee', s.id, 'lee', 'l' FROM crm.statuses s WHERE s.account_id = $2::varchar AND s.is_lead`,
      [id, account.accountId, account.userId],
    );
    return id;
  }

  /** Inserts a queued action (after every other) and renumbers its queue. */
  async function queued(contactId: string, text: string, date = '2026-12-01', extra: Partial<NewAction> = {}): Promise<string> {
    const id = newId();
    await actions.insert(dataSource.manager, {
      id,
      accountId: acme.accountId,
      contactId,
      assigneeId: acme.userId,
      text,
      date,
      exactTime: null,
      ...extra,
    });
    await actions.renumber(dataSource.manager, contactId, acme.userId);
    return id;
  }

  /** A contact with queued actions `a` and `b`, `a` then made its next action of `status` (no date). */
  async function nextBeforeQueued(status: 'asap' | 'waiting'): Promise<{ c: string; a: string; b: string }> {
    const c = await contact(acme);
    const [a, b] = [await queued(c, 'a'), await queued(c, 'b')];
    await actions.makeNext(dataSource.manager, a, { status, date: null, exact_time: null });
    await actions.renumber(dataSource.manager, c, acme.userId);
    return { c, a, b };
  }

  /** The open actions of a contact: [text, status, position], by position. */
  async function queue(contactId: string): Promise<Array<[string, string, number]>> {
    const rows: Array<{ text: string; status: string; position: number }> = await dataSource.query(
      "SELECT text, status, position FROM crm.actions WHERE contact_id = $1 AND status <> 'done' ORDER BY position, id",
      [contactId],
    );
    return rows.map((r) => [r.text, r.status, r.position]);
  }

  beforeAll(async () => {
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(await createTestDatabase('crm_actions_repo')));
    [acme, other] = accounts;
  });

  afterAll(async () => close?.());

  it('inserts queued after every other, numbers the queue 1..n and reads actions back', async () => {
    const c = await contact(acme);
    const a = await queued(c, 'a');
    await queued(c, 'b');
    expect(await queue(c)).toEqual([
      ['a', 'queued_with_date', 1],
      ['b', 'queued_with_date', 2],
    ]);
    expect(await actions.byId(dataSource.manager, a)).toMatchObject({ text: 'a', externally_controlled: false, external_id: null });
    expect(await actions.visible(dataSource.manager, acme.accountId, a)).toMatchObject({ id: a });
    expect(await actions.visible(dataSource.manager, other.accountId, a)).toBeUndefined();
    expect(await actions.contactOf(dataSource.manager, acme.accountId, a)).toBe(c);
    expect(await actions.contactOf(dataSource.manager, other.accountId, a)).toBeUndefined();
  });

  it('makes one the next action, promotes the first queued one, and queues a replaced next action first', async () => {
    const { c, a, b } = await nextBeforeQueued('waiting');
    expect(await queue(c)).toEqual([
      ['a', 'waiting', 0],
      ['b', 'queued_with_date', 1],
    ]);
    expect(await actions.nextAction(dataSource.manager, c, acme.userId)).toMatchObject({ id: a });
    expect(await actions.nextAction(dataSource.manager, c, acme.userId, a)).toBeUndefined();
    // The waiting next action is replaced: it goes first in the queue, dated today.
    await actions.queueFirst(dataSource.manager, a, '2026-11-23');
    await actions.promote(dataSource.manager, b, 'date');
    await actions.renumber(dataSource.manager, c, acme.userId);
    expect(await queue(c)).toEqual([
      ['b', 'date', 0],
      ['a', 'queued_with_date', 1],
    ]);
    expect(await actions.byId(dataSource.manager, a)).toMatchObject({ date: '2026-11-23' });
  });

  it('an asap next action is the one next action: the unique index refuses a second, and replaced it queues first dated today', async () => {
    const { c, a, b } = await nextBeforeQueued('asap');
    expect(await actions.nextAction(dataSource.manager, c, acme.userId)).toMatchObject({ id: a, status: 'asap', date: null });
    // actions_next_uq covers asap: no second next action of any kind beside it.
    for (const status of ['asap', 'date', 'waiting'] as const)
      await expect(
        actions.makeNext(dataSource.manager, b, { status, date: status === 'date' ? '2026-12-01' : null, exact_time: null }),
      ).rejects.toThrow(/actions_next_uq/);
    await actions.queueFirst(dataSource.manager, a, '2026-11-23');
    await actions.makeNext(dataSource.manager, b, { status: 'asap', date: null, exact_time: null });
    await actions.renumber(dataSource.manager, c, acme.userId);
    expect(await queue(c)).toEqual([
      ['b', 'asap', 0],
      ['a', 'queued_with_date', 1],
    ]);
    expect(await actions.byId(dataSource.manager, a)).toMatchObject({ date: '2026-11-23' });
    // Completed and reopened, it keeps asap as its former status, and is dated today until placed.
    await actions.complete(dataSource.manager, b, '2026-11-23');
    expect(await actions.byId(dataSource.manager, b)).toMatchObject({ status: 'done', status_before_done: 'asap' });
    await actions.reopen(dataSource.manager, b, '2026-11-23');
    expect(await actions.byId(dataSource.manager, b)).toMatchObject({ status: 'queued_with_date', date: '2026-11-23' });
  });

  it('lists an asap action first among the open ones, waiting ones after the dated', async () => {
    const c = await contact(acme);
    const w = await queued(c, 'waiting');
    await queued(c, 'dated', '2026-12-02');
    await actions.makeNext(dataSource.manager, w, { status: 'waiting', date: null, exact_time: null });
    const other = await contact(acme);
    const asap = await queued(other, 'asap');
    await actions.makeNext(dataSource.manager, asap, { status: 'asap', date: null, exact_time: null });
    const { rows } = await actions.list(
      dataSource.manager,
      acme.accountId,
      parseContract(ListActionsRequest, { assignee_id: acme.userId, per_page: '100' }),
    );
    const texts = rows.filter((r) => r.contact_id === c || r.contact_id === other).map((r) => r.text);
    expect(texts).toEqual(['asap', 'dated', 'waiting']);
    expect(
      (await actions.list(dataSource.manager, acme.accountId, parseContract(ListActionsRequest, { status: 'asap' }))).rows.map((r) => r.id),
    ).toEqual([asap]);
  });

  it('moves a queued action to a position: out of the queue, renumbered, then a gap opened', async () => {
    const c = await contact(acme);
    const [a, , cc] = [await queued(c, 'a'), await queued(c, 'b'), await queued(c, 'c')];
    expect(await actions.firstQueued(dataSource.manager, c, acme.userId, null)).toMatchObject({ id: a });
    expect(await actions.firstQueued(dataSource.manager, c, acme.userId, a)).toMatchObject({ text: 'b' });
    await actions.park(dataSource.manager, cc, { date: '2026-12-09', exact_time: null });
    await actions.renumber(dataSource.manager, c, acme.userId, cc);
    expect(await actions.queueLength(dataSource.manager, c, acme.userId, cc)).toBe(2);
    await actions.insertInQueue(dataSource.manager, c, acme.userId, cc, 1);
    expect(await queue(c)).toEqual([
      ['c', 'queued_with_date', 1],
      ['a', 'queued_with_date', 2],
      ['b', 'queued_with_date', 3],
    ]);
    await actions.queueAt(dataSource.manager, a, 7);
    await actions.renumber(dataSource.manager, c, acme.userId);
    expect((await queue(c)).map(([text]) => text)).toEqual(['c', 'b', 'a']);
  });

  it('completes (keeping the former status) and reopens at the end of the queue', async () => {
    const c = await contact(acme);
    const a = await queued(c, 'a');
    await actions.makeNext(dataSource.manager, a, { status: 'date_time', date: '2026-12-01', exact_time: 1_800_000_000 });
    await actions.complete(dataSource.manager, a, '2026-11-23');
    expect(await actions.byId(dataSource.manager, a)).toMatchObject({
      status: 'done',
      done: true,
      done_at: '2026-11-23',
      status_before_done: 'date_time',
    });
    await actions.reopen(dataSource.manager, a, '2026-11-23');
    expect(await actions.byId(dataSource.manager, a)).toMatchObject({
      status: 'queued_with_date',
      done: false,
      done_at: null,
      status_before_done: null,
      position: 1_000_000,
      date: '2026-12-01',
    });
  });

  it('finds, locks and unlinks mirrored external actions', async () => {
    const c = await contact(acme);
    const id = await queued(c, 'ext', '2026-12-01', { external: { provider: 'cal', externalId: 'e-1' } });
    await dataSource.transaction(async (tx) => {
      await actions.lockExternal(tx, acme.accountId, 'cal', 'e-1');
      expect(await actions.byExternal(tx, acme.accountId, 'cal', 'e-1')).toMatchObject({ id, externally_controlled: true });
      expect(await actions.byExternal(tx, other.accountId, 'cal', 'e-1')).toBeUndefined();
      expect(await actions.lock(tx, id, c)).toMatchObject({ id });
      expect(await actions.lock(tx, id, await contact(acme))).toBeUndefined();
    });
    await actions.setTextAndAssignee(dataSource.manager, id, 'renamed', acme.userId);
    await actions.unlink(dataSource.manager, id);
    expect(await actions.byId(dataSource.manager, id)).toMatchObject({
      text: 'renamed',
      externally_controlled: false,
      external_provider: null,
      external_id: null,
    });
  });

  it('lists open actions first by date, done ones last, with the filters', async () => {
    const c = await contact(acme);
    const later = await queued(c, 'later', '2026-12-10');
    await queued(c, 'sooner', '2026-12-02');
    const done = await queued(c, 'done', '2026-11-01');
    await actions.complete(dataSource.manager, done, '2026-11-23');
    const page = (filter: object) =>
      actions
        .list(dataSource.manager, acme.accountId, parseContract(ListActionsRequest, { contact_id: c, ...filter }))
        .then(({ rows, page: info }) => ({ total: info.total_count, texts: rows.map((r) => r.text) }));
    expect(await page({})).toEqual({ total: 3, texts: ['sooner', 'later', 'done'] });
    expect(await page({ done: 'true' })).toEqual({ total: 1, texts: ['done'] });
    expect(await page({ status: 'queued_with_date' })).toEqual({ total: 2, texts: ['sooner', 'later'] });
    expect((await page({ date_filter: 'date', since: '2026-12-05' })).texts).toEqual(['later']);
    await actions.delete(dataSource.manager, later);
    expect((await page({})).total).toBe(2);
  });
});
