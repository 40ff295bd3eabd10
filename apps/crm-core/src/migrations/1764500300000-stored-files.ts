import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 13 (attachments for real; decisions.md "Attachments"): attachments whose bytes we store
 * carry their storage key, content type and thumbnail key; contacts' photos and companies' logos
 * theirs. Keys whose bytes must go are queued in crm.storage_purges in the deleting transaction
 * (a trigger on attachments, so every path that deletes rows is covered: a record deleted, a
 * record's attachment list replaced, a contact or account removed); crm-core removes the bytes
 * after the commit.
 */
export class StoredFiles1764500300000 implements MigrationInterface {
  name = 'StoredFiles1764500300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE crm.attachments
        ADD COLUMN storage_key varchar(1024),
        ADD COLUMN thumbnail_key varchar(1100),
        ADD COLUMN content_type varchar(255)`);
    await q.query(`CREATE UNIQUE INDEX attachments_storage_key_idx ON crm.attachments (storage_key) WHERE storage_key IS NOT NULL`);
    await q.query(`CREATE INDEX attachments_account_size_idx ON crm.attachments (account_id) INCLUDE (size) WHERE storage_key IS NOT NULL`);
    await q.query(`ALTER TABLE crm.contacts ADD COLUMN photo_key varchar(1024)`);
    await q.query(`ALTER TABLE crm.companies ADD COLUMN logo_key varchar(1024)`);
    await q.query(`
      CREATE TABLE crm.storage_purges (
        id bigserial PRIMARY KEY,
        account_id varchar(24) NOT NULL,
        storage_key varchar(1100) NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE FUNCTION crm.attachments_purge_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO crm.storage_purges (account_id, storage_key)
          SELECT o.account_id, k.key FROM old_rows o CROSS JOIN LATERAL (VALUES (o.storage_key), (o.thumbnail_key)) AS k(key)
          WHERE k.key IS NOT NULL;
        RETURN NULL;
      END $$`);
    await q.query(`
      CREATE TRIGGER attachments_purge_bytes AFTER DELETE ON crm.attachments
        REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION crm.attachments_purge_bytes()`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER attachments_purge_bytes ON crm.attachments`);
    await q.query(`DROP FUNCTION crm.attachments_purge_bytes()`);
    await q.query(`DROP TABLE crm.storage_purges`);
    await q.query(`ALTER TABLE crm.companies DROP COLUMN logo_key`);
    await q.query(`ALTER TABLE crm.contacts DROP COLUMN photo_key`);
    await q.query(`DROP INDEX crm.attachments_account_size_idx`);
    await q.query(`DROP INDEX crm.attachments_storage_key_idx`);
    await q.query(`ALTER TABLE crm.attachments DROP COLUMN content_type, DROP COLUMN thumbnail_key, DROP COLUMN storage_key`);
  }
}
