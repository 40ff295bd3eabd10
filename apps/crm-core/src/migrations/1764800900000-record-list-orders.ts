import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The account-wide lists of notes, calls, meetings, deals and actions (GET /notes, /calls,
 * /meetings, /deals, /actions) page in their default order; without an index in that order, page 1
 * sorted every record of the account: 80-200 ms at 30,000 records, growing with the account. Each
 * index below is the list's default order after `account_id`, so a page reads its rows in order and
 * stops (bounded by the page, whatever the account holds; a backward scan serves the reversed
 * order of deals). They also serve the date ranges the narrower indexes they replace served:
 * `(account_id, date)` of notes, `(account_id, call_time_int)` of calls and
 * `(account_id, meeting_time_int)` of meetings (decisions.md "Record lists page in their order").
 *
 * CREATE INDEX holds off writes to each table while it builds (seconds at a million rows); run the
 * migration at a quiet time on a large database.
 */
export class RecordListOrders1764800900000 implements MigrationInterface {
  name = 'RecordListOrders1764800900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX notes_account_order_idx ON crm.notes (account_id, date DESC, created_at DESC, id DESC)`);
    await q.query(`DROP INDEX crm.notes_account_date_idx`);
    await q.query(`CREATE INDEX calls_account_order_idx ON crm.calls (account_id, call_time_int DESC, id DESC)`);
    await q.query(`DROP INDEX crm.calls_account_time_idx`);
    await q.query(`CREATE INDEX meetings_account_order_idx ON crm.meetings (account_id, meeting_time_int DESC, id DESC)`);
    await q.query(`DROP INDEX crm.meetings_account_time_idx`);
    await q.query(`CREATE INDEX deals_account_date_idx ON crm.deals (account_id, date, id)`);
    // actions.repository ACTION_LIST_ORDER, expression for expression (ASC puts NULLs last).
    await q.query(
      `CREATE INDEX actions_account_order_idx ON crm.actions
         (account_id, (status = 'done'), (status <> 'asap'), date, exact_time, position, created_at, id)`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX crm.actions_account_order_idx`);
    await q.query(`DROP INDEX crm.deals_account_date_idx`);
    await q.query(`CREATE INDEX meetings_account_time_idx ON crm.meetings (account_id, meeting_time_int)`);
    await q.query(`DROP INDEX crm.meetings_account_order_idx`);
    await q.query(`CREATE INDEX calls_account_time_idx ON crm.calls (account_id, call_time_int)`);
    await q.query(`DROP INDEX crm.calls_account_order_idx`);
    await q.query(`CREATE INDEX notes_account_date_idx ON crm.notes (account_id, date)`);
    await q.query(`DROP INDEX crm.notes_account_order_idx`);
  }
}
