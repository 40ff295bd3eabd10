import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox keeps order per record, not globally, and parks what cannot be published
 * (decisions.md "Event pipeline and fan-out bounds"): failed publishes are counted and retried
 * later (`attempts`, `retry_at`, `last_error`), a row that can never be published is parked
 * (`parked_at`) instead of being retried ahead of everything, and `truncated_bytes` records the
 * original size of an event written in its reduced form.
 */
export class OutboxParking1764300000000 implements MigrationInterface {
  name = 'OutboxParking1764300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE crm.outbox
        ADD COLUMN attempts integer NOT NULL DEFAULT 0,
        ADD COLUMN retry_at timestamptz,
        ADD COLUMN last_error text,
        ADD COLUMN parked_at timestamptz,
        ADD COLUMN truncated_bytes integer`);
    await q.query(`DROP INDEX crm.outbox_pending_idx`);
    await q.query(`CREATE INDEX outbox_pending_idx ON crm.outbox (seq) WHERE published_at IS NULL AND parked_at IS NULL`);
    // The relay's per-record order: earlier pending rows of the same record.
    await q.query(
      `CREATE INDEX outbox_pending_record_idx ON crm.outbox (account_id, record_id, seq) WHERE published_at IS NULL AND parked_at IS NULL`,
    );
    // Rows waiting for a retry (few): the claim leaves out the later rows of their records.
    await q.query(
      `CREATE INDEX outbox_waiting_idx ON crm.outbox (account_id, record_id, seq) WHERE published_at IS NULL AND parked_at IS NULL AND retry_at IS NOT NULL`,
    );
    await q.query(`CREATE INDEX outbox_parked_idx ON crm.outbox (seq) WHERE parked_at IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX crm.outbox_parked_idx`);
    await q.query(`DROP INDEX crm.outbox_waiting_idx`);
    await q.query(`DROP INDEX crm.outbox_pending_record_idx`);
    await q.query(`DROP INDEX crm.outbox_pending_idx`);
    await q.query(`CREATE INDEX outbox_pending_idx ON crm.outbox (seq) WHERE published_at IS NULL`);
    await q.query(
      `ALTER TABLE crm.outbox DROP COLUMN attempts, DROP COLUMN retry_at, DROP COLUMN last_error, DROP COLUMN parked_at, DROP COLUMN truncated_bytes`,
    );
  }
}
