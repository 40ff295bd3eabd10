import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * crm.contact_owner_counters: each owner's non-deleted contacts, counted in the writing
 * transaction (docs/decisions.md "Record counters"), so GET /contacts without filters (the
 * caller's contacts, or the team's with team=true) reads `total_count` from at most 16 rows per
 * owner instead of counting the account's contacts on every page (an index scan that grows with
 * the account: about 4 ms of PostgreSQL time per request at 50,000 contacts).
 *
 * As with crm.company_counters: 16 slot rows per owner (slot = a hash of the contact id), so
 * contacts created in parallel for one owner lock different rows; statement-level triggers with
 * transition tables group a statement's deltas (a bulk delete of 20,000 contacts does at most 16
 * upserts per owner) and apply them in key order. An UPDATE counts only the rows whose owner or
 * deleted state changed, so the frequent updates (last activity, names) cost one empty join.
 */

/** The contributions of the non-deleted rows of a transition table, with a sign. */
export function contribution(table: string, sign: '' | '-', where = 'TRUE'): string {
  return `SELECT account_id, owner_id, (hashtext(id) & 15)::smallint AS slot, ${sign}1 AS n FROM ${table} WHERE deleted_at IS NULL AND ${where}`;
}

/** old_rows and new_rows rows of one contact whose owner or deleted state changed. */
const CHANGED = `id IN (SELECT o.id FROM old_rows o JOIN new_rows n ON n.id = o.id
                        WHERE o.owner_id IS DISTINCT FROM n.owner_id OR (o.deleted_at IS NULL) <> (n.deleted_at IS NULL))`;

export function counterFunction(name: string, parts: string[]): string {
  return `
    CREATE OR REPLACE FUNCTION crm.${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO crm.contact_owner_counters AS oc (account_id, owner_id, slot, contacts_count)
      SELECT x.account_id, x.owner_id, x.slot, sum(x.n)
      FROM (${parts.join(' UNION ALL ')}) x
      GROUP BY x.account_id, x.owner_id, x.slot
      HAVING sum(x.n) <> 0
      ORDER BY x.account_id, x.owner_id, x.slot
      ON CONFLICT (account_id, owner_id, slot) DO UPDATE SET contacts_count = oc.contacts_count + excluded.contacts_count;
      RETURN NULL;
    END
    $fn$`;
}

const TRIGGERS = [
  { name: 'contacts_owner_counters_insert', event: 'INSERT', referencing: 'NEW TABLE AS new_rows', parts: [contribution('new_rows', '')] },
  {
    name: 'contacts_owner_counters_update',
    event: 'UPDATE',
    referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
    parts: [contribution('new_rows', '', CHANGED), contribution('old_rows', '-', CHANGED)],
  },
  { name: 'contacts_owner_counters_delete', event: 'DELETE', referencing: 'OLD TABLE AS old_rows', parts: [contribution('old_rows', '-')] },
];

/** The UPDATE trigger's function as this migration created it (a later migration restores it in its down()). */
export const OWNER_UPDATE_FUNCTION = counterFunction(TRIGGERS[1].name, TRIGGERS[1].parts);

export class OwnerContactCounters1764700000000 implements MigrationInterface {
  name = 'OwnerContactCounters1764700000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE crm.contact_owner_counters (
        account_id varchar(24) NOT NULL,
        owner_id varchar(24) NOT NULL,
        slot smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
        contacts_count integer NOT NULL DEFAULT 0,
        PRIMARY KEY (account_id, owner_id, slot)
      )`);
    // No write may slip between the backfill and the triggers.
    await q.query(`LOCK TABLE crm.contacts IN SHARE ROW EXCLUSIVE MODE`);
    await q.query(`
      INSERT INTO crm.contact_owner_counters (account_id, owner_id, slot, contacts_count)
      SELECT account_id, owner_id, slot, sum(n) FROM (${contribution('crm.contacts', '')}) x GROUP BY account_id, owner_id, slot`);
    for (const t of TRIGGERS) {
      await q.query(counterFunction(t.name, t.parts));
      await q.query(
        `CREATE TRIGGER ${t.name} AFTER ${t.event} ON crm.contacts REFERENCING ${t.referencing} FOR EACH STATEMENT EXECUTE FUNCTION crm.${t.name}()`,
      );
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of TRIGGERS) {
      await q.query(`DROP TRIGGER ${t.name} ON crm.contacts`);
      await q.query(`DROP FUNCTION crm.${t.name}()`);
    }
    await q.query(`DROP TABLE crm.contact_owner_counters`);
  }
}
