import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The schedule indexed by webhook: a replica claims per webhook (skipping the ones it has no room
 * for without walking their backlog — a hanging receiver's pile no longer slows every claim), and
 * the webhooks with waiting deliveries are found by a skip scan over this index.
 */
export class DeliveriesDueByWebhook1764200300000 implements MigrationInterface {
  name = 'DeliveriesDueByWebhook1764200300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX deliveries_due_by_webhook_idx ON webhooks.deliveries (webhook_id, next_attempt_at) WHERE status = 'pending' AND locked_by IS NULL`,
    );
    await q.query(`DROP INDEX webhooks.deliveries_due_idx`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX deliveries_due_idx ON webhooks.deliveries (next_attempt_at) WHERE status = 'pending' AND locked_by IS NULL`,
    );
    await q.query(`DROP INDEX webhooks.deliveries_due_by_webhook_idx`);
  }
}
