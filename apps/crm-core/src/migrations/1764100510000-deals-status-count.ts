import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A narrow index for GET /deals' exact total_count by status: (account_id, status) keys repeat,
 * so B-tree deduplication keeps it a fraction of the wider indexes' size and an index-only count
 * of tens of thousands of deals reads far fewer pages.
 */
export class DealsStatusCount1764100510000 implements MigrationInterface {
  name = 'DealsStatusCount1764100510000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX deals_account_status_idx ON crm.deals (account_id, status)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX crm.deals_account_status_idx`);
  }
}
