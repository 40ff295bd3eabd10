import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The last attempt of a delivery lives in its row (`last_*`, now with its time); the attempts
 * table keeps only the earlier ones. Most deliveries succeed at once and then write no attempt row.
 */
export class DeliveryLastAttempt1764200100000 implements MigrationInterface {
  name = 'DeliveryLastAttempt1764200100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.deliveries ADD COLUMN last_attempted_at timestamptz`);
    // Rows written before: their last attempt is already in the attempts table; leave last_attempted_at NULL for them.
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.deliveries DROP COLUMN last_attempted_at`);
  }
}
