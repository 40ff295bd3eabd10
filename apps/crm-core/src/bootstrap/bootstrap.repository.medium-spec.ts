import { newId } from '@crm/common';
import type { Caller } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { execute, sql } from '../common/sql';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { BootstrapRepository } from './bootstrap.repository';

/** next_action_dates' grouped query against the real PostgreSQL: the account's time zone, periods, bounds. */
describe('BootstrapRepository.nextActionDates (real PostgreSQL)', () => {
  let fx: MediumDatabase;
  let acme: Caller;
  let colleague: Caller;
  const repository = new BootstrapRepository();

  /** A next action of `who`, created at `createdAt` (UTC), due on `date`. */
  async function action(who: Caller, createdAt: string, date: string, status = 'date') {
    const db = fx.dataSource.manager;
    const contactId = newId();
    await execute(
      db,
      sql`INSERT INTO crm.contacts (id, account_id, owner_id, last_name, status_id, sort_name, letter)
          SELECT ${contactId}, ${who.account_id}, ${who.user_id}, 'X', id, 'x', 'x' FROM crm.statuses WHERE account_id = ${who.account_id} AND is_lead`,
    );
    await execute(
      db,
      sql`INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, done, created_at)
          VALUES (${newId()}, ${who.account_id}, ${contactId}, ${who.user_id}, 'Call', ${status}, ${date}::date, ${status === 'done'}, ${createdAt}::timestamptz)`,
    );
  }

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_bootstrap_repository'));
    acme = await fx.newAccount('Acme');
    colleague = await fx.newUser(acme, 'Colleague');
    // Created at 23:30 UTC on 1 March: still 1 March in UTC, already 2 March in Tokyo.
    await action(acme, '2026-03-01T23:30:00Z', '2026-03-11'); // UTC 10 days, Tokyo 9 days
    await action(acme, '2026-03-01T23:30:00Z', '2026-03-11');
    await action(acme, '2026-03-01T10:00:00Z', '2026-03-15'); // 2 weeks in both
    await action(acme, '2026-01-31T10:00:00Z', '2026-02-28'); // 28 days: 4 weeks
    await action(acme, '2026-01-15T10:00:00Z', '2026-04-15'); // 3 months
    await action(acme, '2026-01-15T10:00:00Z', '2027-06-15'); // beyond a year: left out
    await action(acme, '2026-01-15T10:00:00Z', '2026-01-15'); // same day: left out
    await action(acme, '2026-01-15T10:00:00Z', '2026-01-20', 'done'); // done: not a next action
    await action(colleague, '2026-01-15T10:00:00Z', '2026-01-18'); // someone else's
  });

  afterAll(async () => {
    await fx?.close();
  });

  const quick = (timeZone: string, limit = 5) =>
    repository
      .nextActionDates(fx.dataSource.manager, acme.account_id, acme.user_id, timeZone, limit)
      .then((rows) => rows.map((r) => `${r.number} ${r.period} x${r.uses}`));

  it("groups the caller's next actions by distance, most used first, in the account's time zone", async () => {
    expect(await quick('UTC')).toEqual(['10 days x2', '2 weeks x1', '4 weeks x1', '3 months x1']);
    expect(await quick('Asia/Tokyo')).toEqual(['9 days x2', '2 weeks x1', '4 weeks x1', '3 months x1']);
  });

  it('answers at most the limit', async () => {
    expect(await quick('UTC', 2)).toEqual(['10 days x2', '2 weeks x1']);
  });
});
