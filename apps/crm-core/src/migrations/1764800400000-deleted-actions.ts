import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 13 (OnePageCRM's `DELETE /actions/{id}?undo=true`; decisions.md "Deleted actions can be
 * restored"): a deleted action's row is kept in crm.deleted_actions, as it was, for 30 days. The
 * live table and every query over it stay as they are. A contact's old deletions are purged
 * when it deletes another action, so the rows kept are bounded by what one contact deleted in
 * that window. The contact's or the account's removal removes them.
 */
export class DeletedActions1764800400000 implements MigrationInterface {
  name = 'DeletedActions1764800400000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.deleted_actions (
        id varchar(24) PRIMARY KEY,
        account_id varchar(24) NOT NULL REFERENCES crm.accounts(id) ON DELETE CASCADE,
        contact_id varchar(24) NOT NULL REFERENCES crm.contacts(id) ON DELETE CASCADE,
        deleted_at timestamptz NOT NULL DEFAULT now(),
        -- the crm.actions row as it was (to_jsonb), restored with jsonb_populate_record
        action jsonb NOT NULL
      )`);
    await q.query(`CREATE INDEX deleted_actions_contact_idx ON crm.deleted_actions (contact_id, deleted_at)`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE crm.deleted_actions`);
  }
}
