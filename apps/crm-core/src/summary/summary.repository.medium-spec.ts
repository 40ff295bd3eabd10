import { newId } from '@crm/common';
import type { Caller } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { accountCountsOf, streamCountsOf, tagCountsOf } from './counts';
import { SummaryRepository } from './summary.repository';

/** The grouped counting statements of the summary blocks against the real PostgreSQL. */
describe('SummaryRepository (real PostgreSQL)', () => {
  const repository = new SummaryRepository();
  let fx: MediumDatabase;
  let admin: Caller;
  let colleague: Caller;
  let lead: string;
  let customer: string;

  /** A contact stored as the contacts module stores it: the letter is the first of its sort name. */
  async function contact(over: { name: string; owner?: string; status?: string; starred?: boolean; deleted?: boolean; account?: Caller }) {
    const id = newId();
    const account = over.account ?? admin;
    const sortName = over.name.toLowerCase();
    await fx.dataSource.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, last_name, status_id, starred, sort_name, letter, deleted_at)
       VALUES ($1, $2::varchar, $3, $4, coalesce($5, (SELECT id FROM crm.statuses WHERE account_id = $2::varchar AND is_lead)), $6, $7, $8, $9)`,
      [
        id,
        account.account_id,
        over.owner ?? account.user_id,
        over.name,
        over.status ?? null,
        over.starred ?? false,
        sortName,
        /^[a-z]/.test(sortName) ? sortName[0] : '1',
        over.deleted ? new Date() : null,
      ],
    );
    return id;
  }

  async function action(contactId: string, assignee: string, status: string) {
    await fx.dataSource.query(
      'INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, done) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
      [newId(), admin.account_id, contactId, assignee, 'Call', status, status === 'waiting' ? null : '2030-01-01', status === 'done'],
    );
  }

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_summary_repository'));
    admin = await fx.newAccount('Summ');
    colleague = await fx.newUser(admin, 'Colleague');
    const statuses: Array<{ id: string; status: string }> = await fx.dataSource.query(
      'SELECT id, status FROM crm.statuses WHERE account_id = $1 ORDER BY position',
      [admin.account_id],
    );
    lead = statuses[0].id;
    customer = statuses.find((s) => s.status === 'customer')!.id;
    const ann = await contact({ name: 'Able', starred: true });
    const ben = await contact({ name: 'Baker', owner: colleague.user_id, status: customer });
    const corp = await contact({ name: '3M', status: customer });
    await contact({ name: 'Gone', deleted: true });
    await contact({ name: 'Elsewhere', account: await fx.newAccount('Other') });
    const vip = newId();
    await fx.dataSource.query("INSERT INTO crm.tags (id, account_id, name) VALUES ($1, $2, 'VIP')", [vip, admin.account_id]);
    for (const c of [ann, ben])
      await fx.dataSource.query('INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) VALUES ($1, $2, $3)', [
        c,
        vip,
        admin.account_id,
      ]);
    await action(ann, admin.user_id, 'date');
    await action(ann, colleague.user_id, 'waiting');
    await action(ben, colleague.user_id, 'date_time');
    await action(corp, admin.user_id, 'queued_with_date');
    await action(corp, admin.user_id, 'done');
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('counts non-deleted contacts per status, owner and letter in one scan, with the caller stream and starred', async () => {
    const counts = accountCountsOf(await repository.contactGroups(fx.dataSource.manager, admin.account_id, admin.user_id));
    expect(counts.all.counts).toMatchObject({ a: 1, b: 1, '1': 1, total_count: 3 });
    expect(counts.byStatus.get(lead)).toMatchObject({ stream: 1, counts: { a: 1, total_count: 1 } });
    expect(counts.byStatus.get(customer)!.counts).toMatchObject({ b: 1, '1': 1, total_count: 2 });
    expect(counts.byStatus.get(customer)!.team.get(colleague.user_id)).toMatchObject({ b: 1, total_count: 1 });
    expect(counts.starred).toMatchObject({ stream: 1, counts: { a: 1, total_count: 1 } });
    // The colleague's stream holds Able (waiting) and Baker (date_time).
    const theirs = accountCountsOf(await repository.contactGroups(fx.dataSource.manager, admin.account_id, colleague.user_id));
    expect(theirs.all.stream).toBe(2);
  });

  it('counts tags with the caller stream, and the streams of every assignee (queued and done actions do not count)', async () => {
    const byTag = tagCountsOf(await repository.tagGroups(fx.dataSource.manager, admin.account_id, colleague.user_id));
    expect([...byTag.values()]).toEqual([
      expect.objectContaining({ stream: 2, counts: expect.objectContaining({ a: 1, b: 1, total_count: 2 }) }),
    ]);
    const streams = streamCountsOf(await repository.streamGroups(fx.dataSource.manager, admin.account_id));
    expect(streams.all).toMatchObject({ a: 1, b: 1, total_count: 2 });
    expect(streams.byUser.get(admin.user_id)).toMatchObject({ a: 1, total_count: 1 });
    expect(streams.byUser.get(colleague.user_id)).toMatchObject({ a: 1, b: 1, total_count: 2 });
  });

  it('lists users, statuses, lead sources and tags in their display order', async () => {
    const db = fx.dataSource.manager;
    expect(await repository.userIds(db, admin.account_id)).toEqual([colleague.user_id, admin.user_id]);
    const statuses = await repository.statuses(db, admin.account_id);
    expect(statuses[0]).toMatchObject({ id: lead, is_lead: true });
    expect(statuses).toHaveLength(5);
    expect(await repository.leadSources(db, admin.account_id)).toEqual([]);
    expect((await repository.tags(db, admin.account_id)).map((t) => t.name)).toEqual(['VIP']);
  });
});
