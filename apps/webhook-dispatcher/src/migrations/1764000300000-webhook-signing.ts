import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-webhook signing secrets (Standard Webhooks): the current one and, for 24 hours after a
 * rotation, the previous one. They must be readable to sign, so they are stored as issued.
 */
export class WebhookSigning1764000300000 implements MigrationInterface {
  name = 'WebhookSigning1764000300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE webhooks.webhooks ADD COLUMN signing_secret varchar(100) NOT NULL DEFAULT ''`);
    await q.query(`ALTER TABLE webhooks.webhooks ADD COLUMN previous_signing_secret varchar(100)`);
    await q.query(`ALTER TABLE webhooks.webhooks ADD COLUMN previous_secret_expires_at timestamptz`);
    await q.query(`CREATE INDEX webhooks_order_idx ON webhooks.webhooks (account_id, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX webhooks.webhooks_order_idx`);
    await q.query(
      `ALTER TABLE webhooks.webhooks DROP COLUMN previous_secret_expires_at, DROP COLUMN previous_signing_secret, DROP COLUMN signing_secret`,
    );
  }
}
