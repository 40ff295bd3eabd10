import { newId } from '@crm/common';
import type { PoolClient as PgClient } from 'pg';
import type { Caller } from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { execute, sql } from '../common/sql';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { BootstrapRepository } from './bootstrap.repository';

/**
 * next_action_dates' grouped query and popular_countries against the real PostgreSQL: the
 * account's time zone, periods, bounds; and that both read a bounded part of a large account.
 */
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

  describe('on an account of 3,000 contacts, each with a dated next action of the caller', () => {
    let big: Caller;

    beforeAll(async () => {
      big = await fx.newAccount('Big');
      const db = fx.dataSource.manager;
      await execute(
        db,
        sql`INSERT INTO crm.contacts (id, account_id, owner_id, last_name, status_id, sort_name, letter, modified_at)
            SELECT substr(md5('big' || g), 1, 24), ${big.account_id}, ${big.user_id}, 'C' || g, s.id, 'c' || g, 'c', now() - g * interval '1 minute'
            FROM generate_series(1, 3000) g, (SELECT id FROM crm.statuses WHERE account_id = ${big.account_id} AND is_lead) s`,
      );
      await execute(
        db,
        sql`INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, created_at)
            SELECT substr(md5('act' || g), 1, 24), ${big.account_id}, substr(md5('big' || g), 1, 24), ${big.user_id}, 'Call', 'date',
                   current_date + 1 + g % 30, now() - g * interval '1 hour'
            FROM generate_series(1, 3000) g`,
      );
      await execute(db, sql`ANALYZE crm.contacts`);
      await execute(db, sql`ANALYZE crm.actions`);
    });

    /** The plans of the statements `read` sends, as JSON text. */
    async function plansOf(read: (db: typeof fx.dataSource.manager) => Promise<unknown>): Promise<string[]> {
      const runner = fx.dataSource.createQueryRunner();
      try {
        const client = (await runner.connect()) as PgClient;
        const query = client.query.bind(client) as (config: { text: string; values?: unknown[] }) => Promise<{ rows: unknown[] }>;
        const seen: Array<{ text: string; values?: unknown[] }> = [];
        (client as unknown as { query: typeof query }).query = (config) => {
          seen.push(config);
          return query(config);
        };
        await read(runner.manager);
        (client as unknown as { query: typeof query }).query = query;
        return Promise.all(
          seen.map(async ({ text, values }) => JSON.stringify((await query({ text: `EXPLAIN (FORMAT JSON) ${text}`, values })).rows)),
        );
      } finally {
        await runner.release();
      }
    }

    it("next_action_dates reads the caller's latest dated next actions from their index in order: no sort of them all", async () => {
      const rows = await repository.nextActionDates(fx.dataSource.manager, big.account_id, big.user_id, 'UTC', 5);
      expect(rows.reduce((n, r) => n + r.uses, 0)).toBeGreaterThan(0);
      const [plan] = await plansOf((db) => repository.nextActionDates(db, big.account_id, big.user_id, 'UTC', 5));
      expect(plan).toContain('"Index Name":"actions_dated_recent_idx"');
      expect(plan).not.toMatch(/"Node Type":"Seq Scan"[^{}]*"Relation Name":"actions"/);
      // The one sort left orders the grouped distances, never the actions.
      expect(plan).not.toMatch(/"Sort Key":\["a\.created_at DESC"\]/);
    });

    it("popular_countries reads the latest changed contacts from contacts_modified_idx and stops: no scan of the account's contacts", async () => {
      const newest = (
        await fx.dataSource.query(`SELECT id FROM crm.contacts WHERE account_id = $1 ORDER BY modified_at DESC LIMIT 1`, [big.account_id])
      )[0].id;
      await fx.dataSource.query(`UPDATE crm.contacts SET address_list = $2::jsonb, modified_at = now() WHERE id = $1`, [
        newest,
        JSON.stringify([{ address: '1 Main St', country_code: 'ie' }]),
      ]);
      expect(await repository.popularCountries(fx.dataSource.manager, big.account_id, 5)).toEqual(['IE']);
      const [plan] = await plansOf((db) => repository.popularCountries(db, big.account_id, 5));
      expect(plan).toContain('"Index Name":"contacts_modified_idx"');
      expect(plan).not.toMatch(/"Node Type":"Seq Scan"[^{}]*"Relation Name":"contacts"/);
      expect(plan).not.toMatch(/"Sort Key":\["contacts\.modified_at DESC"\]/);
    });
  });
});
