import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox's statistics follow its backlog closely: analyzed after every 2,000 changed rows
 * (not 10% of the table, which for a long-lived outbox of published rows is a long wait) and
 * vacuumed after 1% dead rows. The relay's claim is planned from them; stale ones made a backlog
 * look empty and the claim scan every pending row for each row it took.
 */
export class OutboxStatistics1764300100000 implements MigrationInterface {
  name = 'OutboxStatistics1764300100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE crm.outbox SET (autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 2000, autovacuum_vacuum_scale_factor = 0.01)`,
    );
    await q.query(`ANALYZE crm.outbox`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE crm.outbox RESET (autovacuum_analyze_scale_factor, autovacuum_analyze_threshold, autovacuum_vacuum_scale_factor)`,
    );
  }
}
