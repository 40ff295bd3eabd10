import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Relationship types, their variants (one = symmetrical, two = directional) and the
 * contact-to-contact relationships that use them (issue 4). Deleting a type removes its
 * relationships, soft-deleted ones included, by the foreign key.
 */
export class RelationshipTypes1764000100000 implements MigrationInterface {
  name = 'RelationshipTypes1764000100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.relationship_types (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        symmetrical boolean NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX relationship_types_order_idx ON crm.relationship_types (account_id, created_at, id)`);
    await q.query(`
      CREATE TABLE crm.relationship_variants (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL,
        relationship_type_id varchar(24) NOT NULL REFERENCES crm.relationship_types(id) ON DELETE CASCADE,
        position smallint NOT NULL CHECK (position IN (0, 1)),
        name varchar(100) NOT NULL,
        UNIQUE (relationship_type_id, position)
      )`);
    // A label names one variant of one type in the account (case-insensitive).
    await q.query(`CREATE UNIQUE INDEX relationship_variants_name_uq ON crm.relationship_variants (account_id, lower(name))`);
    await q.query(`
      CREATE TABLE crm.contact_relationships (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL,
        relationship_type_id varchar(24) NOT NULL REFERENCES crm.relationship_types(id) ON DELETE CASCADE,
        contact_id varchar(24) NOT NULL,
        related_contact_id varchar(24) NOT NULL,
        variant_id varchar(24) REFERENCES crm.relationship_variants(id) ON DELETE CASCADE,
        deleted_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX contact_relationships_contact_idx ON crm.contact_relationships (account_id, contact_id)`);
    await q.query(`CREATE INDEX contact_relationships_type_idx ON crm.contact_relationships (relationship_type_id)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.contact_relationships`);
    await q.query(`DROP TABLE crm.relationship_variants`);
    await q.query(`DROP TABLE crm.relationship_types`);
  }
}
