import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Actions take OnePageCRM's `asap` status (docs/decisions.md "OnePageCRM shapes and the conformance
 * fixture"): a fourth kind of next action, the most urgent, without a date. The status check
 * accepts it, and the partial unique index `actions_next_uq` (one next action per contact and
 * assignee) covers it, with the same list as the repositories' NEXT_STATUSES_SQL (keep them
 * identical: the planner matches the index by that predicate). No stored action is `asap` yet, so
 * the rebuilt index holds the same rows.
 */
export class AsapActions1764800100000 implements MigrationInterface {
  name = 'AsapActions1764800100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.actions DROP CONSTRAINT actions_status_check`);
    await q.query(
      `ALTER TABLE crm.actions ADD CONSTRAINT actions_status_check CHECK (status IN ('asap', 'date', 'date_time', 'waiting', 'queued_with_date', 'done'))`,
    );
    await q.query(`DROP INDEX crm.actions_next_uq`);
    await q.query(
      `CREATE UNIQUE INDEX actions_next_uq ON crm.actions (contact_id, assignee_id) WHERE status IN ('asap', 'date', 'date_time', 'waiting')`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // An asap action becomes waiting (the other next action without a date).
    await q.query(`UPDATE crm.actions SET status = 'waiting' WHERE status = 'asap'`);
    await q.query(`UPDATE crm.actions SET status_before_done = 'waiting' WHERE status_before_done = 'asap'`);
    await q.query(`DROP INDEX crm.actions_next_uq`);
    await q.query(
      `CREATE UNIQUE INDEX actions_next_uq ON crm.actions (contact_id, assignee_id) WHERE status IN ('date', 'date_time', 'waiting')`,
    );
    await q.query(`ALTER TABLE crm.actions DROP CONSTRAINT actions_status_check`);
    await q.query(
      `ALTER TABLE crm.actions ADD CONSTRAINT actions_status_check CHECK (status IN ('date', 'date_time', 'waiting', 'queued_with_date', 'done'))`,
    );
  }
}
