import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitAuth1763800000000 implements MigrationInterface {
  name = 'InitAuth1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE auth.accounts (
        id varchar(24) PRIMARY KEY,
        name varchar(200) NOT NULL,
        region varchar(32) NOT NULL,
        status varchar(16) NOT NULL CHECK (status IN ('provisioning', 'active')),
        billing_status varchar(32) NOT NULL DEFAULT 'active' CHECK (billing_status IN ('active', 'trial_expired', 'subscription_canceled')),
        provisioning_payload jsonb,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX accounts_provisioning_idx ON auth.accounts (updated_at) WHERE status = 'provisioning'`);
    await q.query(`
      CREATE TABLE auth.users (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES auth.accounts(id) ON DELETE CASCADE,
        email varchar(254) NOT NULL,
        password_hash varchar(200) NOT NULL,
        role varchar(16) NOT NULL CHECK (role IN ('admin', 'user')),
        api_key_hash varchar(64),
        api_key_created_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX users_email_key ON auth.users (lower(email))`);
    await q.query(`CREATE INDEX users_account_idx ON auth.users (account_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE auth.users`);
    await q.query(`DROP TABLE auth.accounts`);
  }
}
