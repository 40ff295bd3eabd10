import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Actions take OnePageCRM's `queued` status (docs/decisions.md "OnePageCRM shapes and the
 * conformance fixture"): a queued action without a date, in the same queue (positions 1..n) as
 * `queued_with_date`. Only the status check changes: the next-action index does not list queued
 * statuses.
 */
export class QueuedActions1764800500000 implements MigrationInterface {
  name = 'QueuedActions1764800500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.actions DROP CONSTRAINT actions_status_check`);
    await q.query(
      `ALTER TABLE crm.actions ADD CONSTRAINT actions_status_check CHECK (status IN ('asap', 'date', 'date_time', 'waiting', 'queued', 'queued_with_date', 'done'))`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    // An undated queued action gets the day it was created.
    await q.query(`UPDATE crm.actions SET status = 'queued_with_date', date = created_at::date WHERE status = 'queued'`);
    await q.query(`UPDATE crm.actions SET status_before_done = 'queued_with_date' WHERE status_before_done = 'queued'`);
    await q.query(`ALTER TABLE crm.actions DROP CONSTRAINT actions_status_check`);
    await q.query(
      `ALTER TABLE crm.actions ADD CONSTRAINT actions_status_check CHECK (status IN ('asap', 'date', 'date_time', 'waiting', 'queued_with_date', 'done'))`,
    );
  }
}
