import type { MigrationInterface, QueryRunner } from 'typeorm';

export class InitCrm1763800000000 implements MigrationInterface {
  name = 'InitCrm1763800000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.accounts (
        id varchar(24) PRIMARY KEY,
        name varchar(200) NOT NULL,
        region varchar(32) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE crm.users (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        first_name varchar(100) NOT NULL,
        last_name varchar(100) NOT NULL,
        email varchar(254) NOT NULL,
        role varchar(16) NOT NULL CHECK (role IN ('admin', 'user')),
        account_rights text[] NOT NULL DEFAULT '{}',
        permissions text[] NOT NULL DEFAULT '{}',
        company_name varchar(200) NOT NULL DEFAULT '',
        photo_url varchar(2000) NOT NULL DEFAULT '',
        country_code varchar(2) NOT NULL DEFAULT '',
        bcc_email varchar(254) NOT NULL,
        google_contacts_email varchar(254) NOT NULL DEFAULT '',
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX users_account_idx ON crm.users (account_id, last_name, first_name)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.users`);
    await q.query(`DROP TABLE crm.accounts`);
  }
}
