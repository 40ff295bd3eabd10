import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The rest of OnePageCRM's operations (issue 13, item 1): predefined items and their groups, and
 * contacts linked to companies other than their own.
 */
export class RemainingOperations1764500700000 implements MigrationInterface {
  name = 'RemainingOperations1764500700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.predefined_item_groups (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        position integer NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX predefined_item_groups_name_uq ON crm.predefined_item_groups (account_id, lower(name))`);
    await q.query(`CREATE INDEX predefined_item_groups_order_idx ON crm.predefined_item_groups (account_id, position, id)`);
    await q.query(`
      CREATE TABLE crm.predefined_items (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        name varchar(200) NOT NULL,
        description varchar(2000) NOT NULL DEFAULT '',
        cost numeric(18, 2) NOT NULL DEFAULT 0,
        price numeric(18, 2) NOT NULL DEFAULT 0,
        position integer NOT NULL,
        group_id varchar(24) REFERENCES crm.predefined_item_groups(id) ON DELETE SET NULL,
        group_position integer,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE UNIQUE INDEX predefined_items_name_uq ON crm.predefined_items (account_id, lower(name))`);
    await q.query(`CREATE INDEX predefined_items_order_idx ON crm.predefined_items (account_id, position, id)`);
    await q.query(`CREATE INDEX predefined_items_group_idx ON crm.predefined_items (group_id, group_position)`);
    // A contact linked to a company it does not belong to (OnePageCRM's linked contacts).
    await q.query(`
      CREATE TABLE crm.company_linked_contacts (
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        company_id varchar(24) NOT NULL REFERENCES crm.companies(id) ON DELETE CASCADE,
        contact_id varchar(24) NOT NULL REFERENCES crm.contacts(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (company_id, contact_id)
      )`);
    await q.query(`CREATE INDEX company_linked_contacts_contact_idx ON crm.company_linked_contacts (contact_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.company_linked_contacts`);
    await q.query(`DROP TABLE crm.predefined_items`);
    await q.query(`DROP TABLE crm.predefined_item_groups`);
  }
}
