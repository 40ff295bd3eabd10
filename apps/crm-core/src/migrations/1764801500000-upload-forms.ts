import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upload forms (decisions.md "Upload forms"): each GET /attachments/s3_form records the one key its
 * form may store under (`<contact_id>/<nonce>/<name>`), the bytes it reserves from the account's
 * quota and when it expires. Registration takes only such a key, of the caller's account and the
 * record's contact, once; the purge removes whatever is stored under an expired form's key, and
 * the row with it.
 */
export class UploadForms1764801500000 implements MigrationInterface {
  name = 'UploadForms1764801500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.upload_forms (
        storage_key varchar(1024) PRIMARY KEY,
        account_id varchar(24) NOT NULL,
        contact_id varchar(24) NOT NULL,
        max_bytes bigint NOT NULL CHECK (max_bytes > 0),
        expires_at timestamptz NOT NULL,
        registered_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX upload_forms_account_idx ON crm.upload_forms (account_id) INCLUDE (max_bytes)`);
    await q.query(`CREATE INDEX upload_forms_expires_idx ON crm.upload_forms (expires_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.upload_forms`);
  }
}
