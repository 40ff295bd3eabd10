import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * GET /call_results counts the account's calls per author and result, as OnePageCRM's list has
 * them (`counts`, `total_counts`, `team_counts`; issue 13, item 4): this index answers that count
 * from the index alone, without reading the calls' rows.
 */
export class CallResultCounts1764800600000 implements MigrationInterface {
  name = 'CallResultCounts1764800600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX IF NOT EXISTS calls_result_counts_idx ON crm.calls (account_id, call_result, author_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS crm.calls_result_counts_idx`);
  }
}
