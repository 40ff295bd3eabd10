import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /bootstrap's `next_action_dates` reads the caller's 500 most recently created dated next
 * actions (bootstrap.repository NEXT_ACTIONS_READ); with no index in that order it read and sorted
 * every dated next action of the caller: 62-90 ms at 45,000, growing with the account, on every
 * client's connect. This partial index holds them in that order, so the read stops after 500
 * entries (decisions.md "GET /bootstrap reads a bounded part of the account").
 */
export class BootstrapReads1764801300000 implements MigrationInterface {
  name = 'BootstrapReads1764801300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX actions_dated_recent_idx ON crm.actions (account_id, assignee_id, created_at DESC)
       WHERE status IN ('date', 'date_time') AND date IS NOT NULL`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX crm.actions_dated_recent_idx`);
  }
}
