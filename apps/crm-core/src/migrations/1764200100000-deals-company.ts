import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * crm.deals gains `company_id`: the company of the deal's contact while that contact is not deleted,
 * else NULL (docs/decisions.md "Record counters"). A company's pending deals (embedded in the company,
 * in each of its contacts' wrappers, in events) and GET /deals?company_id= become an index range on
 * deals_company_idx instead of a walk through all of the company's contacts.
 *
 * Kept in the writing transaction by triggers, so no write path can forget it:
 *
 * - BEFORE INSERT, and BEFORE UPDATE changing contact_id, ON crm.deals (per row): the deal takes
 *   its contact's company. The contact row is locked (FOR NO KEY UPDATE, the lock the counters trigger takes on
 *   it at the end of the same statement anyway), so a concurrent move of that contact to another
 *   company either commits first (and is read here) or waits for this transaction (and then sees
 *   this deal).
 * - AFTER UPDATE ON crm.contacts (per statement, transition tables): the deals of each contact
 *   whose company_id or deleted_at changed take its new value, O(deals of those contacts). This
 *   covers moves, soft deletes, undeletes, bulk statements and a company's deletion (its contacts'
 *   company_id is set to NULL by the foreign key, an UPDATE that fires this trigger).
 */

const DEALS_FUNCTION = `
  CREATE FUNCTION crm.deals_company() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    SELECT CASE WHEN c.deleted_at IS NULL THEN c.company_id END INTO NEW.company_id
    FROM crm.contacts c WHERE c.id = NEW.contact_id FOR NO KEY UPDATE;
    RETURN NEW;
  END
  $fn$`;

const CONTACTS_FUNCTION = `
  CREATE FUNCTION crm.contacts_deals_company() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    -- A statement trigger fires even when no row changed (the counters triggers' UPDATEs of 0 rows):
    -- without this test, the UPDATE below would fire the deals counters trigger, which updates
    -- crm.contacts, which fires this trigger again, without end.
    IF NOT EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
                   WHERE o.company_id IS DISTINCT FROM n.company_id OR o.deleted_at IS DISTINCT FROM n.deleted_at) THEN
      RETURN NULL;
    END IF;
    UPDATE crm.deals d
    SET company_id = CASE WHEN n.deleted_at IS NULL THEN n.company_id END
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE d.contact_id = n.id
      AND (o.company_id IS DISTINCT FROM n.company_id OR o.deleted_at IS DISTINCT FROM n.deleted_at)
      AND d.company_id IS DISTINCT FROM (CASE WHEN n.deleted_at IS NULL THEN n.company_id END);
    RETURN NULL;
  END
  $fn$`;

/** The contacts' trigger function as this migration created it (a later migration restores it in its down()). */
export const DEALS_COMPANY_FUNCTION = CONTACTS_FUNCTION.replace('CREATE FUNCTION', 'CREATE OR REPLACE FUNCTION');

export class DealsCompany1764200100000 implements MigrationInterface {
  name = 'DealsCompany1764200100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.deals ADD COLUMN company_id varchar(24)`);
    // Backfill before the triggers exist (the ALTER above holds crm.deals exclusively until commit).
    await q.query(`
      UPDATE crm.deals d SET company_id = c.company_id
      FROM crm.contacts c
      WHERE c.id = d.contact_id AND c.deleted_at IS NULL AND c.company_id IS NOT NULL`);
    // "The company's pending deals, newest first, first 25" is a range of this index; so is ?company_id=.
    await q.query(
      `CREATE INDEX deals_company_idx ON crm.deals (company_id, status, date DESC, created_at DESC, id DESC) WHERE company_id IS NOT NULL`,
    );
    await q.query(DEALS_FUNCTION);
    await q.query(CONTACTS_FUNCTION);
    await q.query(`CREATE TRIGGER deals_company_insert BEFORE INSERT ON crm.deals FOR EACH ROW EXECUTE FUNCTION crm.deals_company()`);
    await q.query(
      `CREATE TRIGGER deals_company_update BEFORE UPDATE OF contact_id ON crm.deals
       FOR EACH ROW WHEN (OLD.contact_id IS DISTINCT FROM NEW.contact_id) EXECUTE FUNCTION crm.deals_company()`,
    );
    await q.query(
      `CREATE TRIGGER contacts_deals_company AFTER UPDATE ON crm.contacts REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
       FOR EACH STATEMENT EXECUTE FUNCTION crm.contacts_deals_company()`,
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TRIGGER contacts_deals_company ON crm.contacts`);
    await q.query(`DROP FUNCTION crm.contacts_deals_company()`);
    await q.query(`DROP TRIGGER deals_company_update ON crm.deals`);
    await q.query(`DROP TRIGGER deals_company_insert ON crm.deals`);
    await q.query(`DROP FUNCTION crm.deals_company()`);
    await q.query(`DROP INDEX crm.deals_company_idx`);
    await q.query(`ALTER TABLE crm.deals DROP COLUMN company_id`);
  }
}
