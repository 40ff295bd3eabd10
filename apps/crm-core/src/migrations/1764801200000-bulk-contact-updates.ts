import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A bulk UPDATE of contacts that moves no contact between companies and deletes none (a status
 * deleted moves its contacts to the lead status; a tag or a next action given to thousands of
 * contacts updates their `tag_ids` or `stream_ids`) took time quadratic in its rows: the change
 * test of crm.contacts_deals_company (migration 1764200100000) was an `EXISTS` over a join of the
 * statement's transition tables, which PostgreSQL runs as a nested loop hoping to stop at the
 * first match. With no match it compares every row with every other: 3,000 rows 2 s, 4,500 rows
 * 4.7 s, 30,000 rows minutes. The test now collects the changed ids (a hash join, linear) and
 * returns when there are none, as the other statement triggers do (decisions.md "Bulk updates of
 * contacts stay linear").
 */

/** The trigger function, with `test` (returning when no contact changed company or deleted state) first. */
const FUNCTION = (test: string) => `
  CREATE OR REPLACE FUNCTION crm.contacts_deals_company() RETURNS trigger LANGUAGE plpgsql AS $fn$
  BEGIN
    -- A statement trigger fires even when no row changed (the counters triggers' UPDATEs of 0 rows):
    -- without this test, the UPDATE below would fire the deals counters trigger, which updates
    -- crm.contacts, which fires this trigger again, without end.
    ${test}
    UPDATE crm.deals d
    SET company_id = CASE WHEN n.deleted_at IS NULL THEN n.company_id END
    FROM new_rows n JOIN old_rows o ON o.id = n.id
    WHERE d.contact_id = n.id
      AND (o.company_id IS DISTINCT FROM n.company_id OR o.deleted_at IS DISTINCT FROM n.deleted_at)
      AND d.company_id IS DISTINCT FROM (CASE WHEN n.deleted_at IS NULL THEN n.company_id END);
    RETURN NULL;
  END
  $fn$`;

const CHANGED = `o.company_id IS DISTINCT FROM n.company_id OR o.deleted_at IS DISTINCT FROM n.deleted_at`;

export class BulkContactUpdates1764801200000 implements MigrationInterface {
  name = 'BulkContactUpdates1764801200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      FUNCTION(`IF (SELECT count(*) FROM new_rows n JOIN old_rows o ON o.id = n.id WHERE ${CHANGED}) = 0 THEN
      RETURN NULL;
    END IF;`),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(
      FUNCTION(`IF NOT EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o.id = n.id
                   WHERE ${CHANGED}) THEN
      RETURN NULL;
    END IF;`),
    );
  }
}
