import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Contact custom fields, company fields and deal fields (issue 4): one table, three sets. */
export class Fields1764000000000 implements MigrationInterface {
  name = 'Fields1764000000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.fields (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        field_set varchar(16) NOT NULL CHECK (field_set IN ('custom_fields', 'company_fields', 'deal_fields')),
        name varchar(100) NOT NULL,
        type varchar(16) NOT NULL CHECK (type IN ('text', 'number', 'date', 'checkbox', 'select_box', 'multiple_choice')),
        position integer NOT NULL,
        choices text[],
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT fields_choices_ck CHECK ((type IN ('select_box', 'multiple_choice')) = (choices IS NOT NULL))
      )`);
    await q.query(`CREATE UNIQUE INDEX fields_name_uq ON crm.fields (account_id, field_set, lower(name))`);
    await q.query(`CREATE INDEX fields_order_idx ON crm.fields (account_id, field_set, position, created_at, id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.fields`);
  }
}
