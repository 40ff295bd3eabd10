import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 5: attachment metadata of deals, notes, calls and meetings (files kept by a storage
 * provider; `contact_id` so a contact's pinned attachments are one index away), notifications
 * (a note's `user_ids_to_notify`), and the index behind a deal's `has_related_notes`.
 */
export class RecordAttachments1764100500000 implements MigrationInterface {
  name = 'RecordAttachments1764100500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.attachments (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        record_type varchar(16) NOT NULL CHECK (record_type IN ('deal', 'note', 'call', 'meeting')),
        record_id varchar(24) NOT NULL,
        contact_id varchar(24) NOT NULL REFERENCES crm.contacts(id) ON DELETE CASCADE,
        filename varchar(255) NOT NULL,
        custom_filename varchar(255) NOT NULL DEFAULT '',
        pinned boolean NOT NULL DEFAULT false,
        pinned_at timestamptz,
        size bigint NOT NULL DEFAULT 0,
        storage_provider varchar(50) NOT NULL DEFAULT 'external',
        url varchar(2000) NOT NULL,
        url_expires_at bigint,
        thumbnail_url varchar(2000),
        position integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        modified_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX attachments_record_idx ON crm.attachments (record_id, position)`);
    await q.query(`CREATE INDEX attachments_pinned_idx ON crm.attachments (contact_id, pinned_at DESC) WHERE pinned`);

    await q.query(`
      CREATE TABLE crm.notifications (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        user_id varchar(24) NOT NULL REFERENCES crm.users(id) ON DELETE CASCADE,
        kind varchar(32) NOT NULL,
        record_type varchar(16) NOT NULL,
        record_id varchar(24) NOT NULL,
        contact_id varchar(24) REFERENCES crm.contacts(id) ON DELETE CASCADE,
        author_id varchar(24),
        read_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX notifications_user_idx ON crm.notifications (user_id, created_at DESC)`);
    await q.query(`CREATE INDEX notifications_record_idx ON crm.notifications (record_id)`);

    await q.query(`CREATE INDEX notes_linked_deal_idx ON crm.notes (linked_deal_id) WHERE linked_deal_id IS NOT NULL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX crm.notes_linked_deal_idx`);
    await q.query(`DROP TABLE crm.notifications`);
    await q.query(`DROP TABLE crm.attachments`);
  }
}
