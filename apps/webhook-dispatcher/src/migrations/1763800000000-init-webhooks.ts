import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitWebhooks1763800000000 implements MigrationInterface {
  name = 'InitWebhooks1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhooks.webhooks (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL,
        name varchar(200) NOT NULL,
        hook_url varchar(2000) NOT NULL,
        secretkey varchar(200) NOT NULL DEFAULT '',
        types text[] NOT NULL DEFAULT '{}',
        status_id varchar(24),
        active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX webhooks_account_idx ON webhooks.webhooks (account_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE webhooks.webhooks`);
  }
}
