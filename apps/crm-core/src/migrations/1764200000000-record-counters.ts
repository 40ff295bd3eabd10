import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Record counters kept in the writing transaction (docs/decisions.md "Record counters"), so that no
 * read counts a company's contacts or a contact's deals:
 *
 * - crm.contacts gains its deal counters (all deals; pending ones and their amount × months; won
 *   ones and their amount × months), kept by statement-level triggers on crm.deals;
 * - crm.company_counters holds each company's counters over its non-deleted contacts in 16 slot
 *   rows (slot = a hash of the contact id), kept by statement-level triggers on crm.contacts with
 *   `INSERT ... ON CONFLICT DO UPDATE SET x = x + excluded.x`. A read sums at most 16 rows by key;
 *   contacts added in parallel to one company lock different slot rows (one in 16 pairs meets).
 *
 * - contacts_company_name_idx (company_id, sort_name, id) replaces contacts_company_idx (company_id):
 *   a company embeds its first contacts by name, an index range whatever the company's size.
 *
 * Triggers run inside every writing transaction and see every write path (create, update, bulk
 * delete, undelete, moves between companies and contacts, status/amount/months changes, cascades),
 * so no service can forget one. The triggers never touch modified_at. Deltas are grouped per
 * statement (a bulk delete of 20,000 contacts does at most 16 upserts per company) and applied in
 * key order, so two statements never lock the same slot rows in opposite orders.
 */

/** A deal's contribution to its contact's counters, over a transition table of crm.deals. */
function dealContribution(table: string, sign: '' | '-'): string {
  return `SELECT contact_id,
           ${sign}1 AS deals_count,
           ${sign}(status = 'pending')::int AS pending_deals_count,
           ${sign}(CASE WHEN status = 'pending' THEN amount * months ELSE 0 END) AS pending_deals_amount,
           ${sign}(status = 'won')::int AS won_deals_count,
           ${sign}(CASE WHEN status = 'won' THEN amount * months ELSE 0 END) AS won_deals_amount
    FROM ${table}`;
}

function dealsFunction(name: string, parts: string[]): string {
  return `
    CREATE FUNCTION crm.${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      UPDATE crm.contacts c
      SET deals_count = c.deals_count + d.deals_count,
          pending_deals_count = c.pending_deals_count + d.pending_deals_count,
          pending_deals_amount = c.pending_deals_amount + d.pending_deals_amount,
          won_deals_count = c.won_deals_count + d.won_deals_count,
          won_deals_amount = c.won_deals_amount + d.won_deals_amount
      FROM (
        SELECT contact_id, sum(deals_count) AS deals_count, sum(pending_deals_count) AS pending_deals_count,
               sum(pending_deals_amount) AS pending_deals_amount, sum(won_deals_count) AS won_deals_count,
               sum(won_deals_amount) AS won_deals_amount
        FROM (${parts.join(' UNION ALL ')}) x
        GROUP BY contact_id
        HAVING sum(deals_count) <> 0 OR sum(pending_deals_count) <> 0 OR sum(pending_deals_amount) <> 0
            OR sum(won_deals_count) <> 0 OR sum(won_deals_amount) <> 0
      ) d
      WHERE c.id = d.contact_id;
      RETURN NULL;
    END
    $fn$`;
}

/** A contact's contribution to its company's counters: only a non-deleted contact of a company counts. */
function contactContribution(table: string, sign: '' | '-'): string {
  return `SELECT company_id, (hashtext(id) & 15)::smallint AS slot,
           ${sign}1 AS contacts_count,
           ${sign}won_deals_count AS won_deals_count,
           ${sign}pending_deals_count AS pending_deals_count,
           ${sign}won_deals_amount AS total_won_amount,
           ${sign}pending_deals_amount AS total_pending_amount
    FROM ${table} WHERE company_id IS NOT NULL AND deleted_at IS NULL`;
}

function contactsFunction(name: string, parts: string[]): string {
  return `
    CREATE FUNCTION crm.${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO crm.company_counters AS cc (company_id, slot, contacts_count, won_deals_count, pending_deals_count, total_won_amount, total_pending_amount)
      SELECT x.company_id, x.slot, sum(x.contacts_count), sum(x.won_deals_count), sum(x.pending_deals_count),
             sum(x.total_won_amount), sum(x.total_pending_amount)
      FROM (${parts.join(' UNION ALL ')}) x
      -- a company deleted in this statement (its counters went with it) takes no more deltas
      WHERE EXISTS (SELECT 1 FROM crm.companies co WHERE co.id = x.company_id)
      GROUP BY x.company_id, x.slot
      HAVING sum(x.contacts_count) <> 0 OR sum(x.won_deals_count) <> 0 OR sum(x.pending_deals_count) <> 0
          OR sum(x.total_won_amount) <> 0 OR sum(x.total_pending_amount) <> 0
      ORDER BY x.company_id, x.slot
      ON CONFLICT (company_id, slot) DO UPDATE SET
        contacts_count = cc.contacts_count + excluded.contacts_count,
        won_deals_count = cc.won_deals_count + excluded.won_deals_count,
        pending_deals_count = cc.pending_deals_count + excluded.pending_deals_count,
        total_won_amount = cc.total_won_amount + excluded.total_won_amount,
        total_pending_amount = cc.total_pending_amount + excluded.total_pending_amount;
      RETURN NULL;
    END
    $fn$`;
}

const TRIGGERS: Array<{ table: string; name: string; event: string; referencing: string }> = [
  { table: 'deals', name: 'deals_counters_insert', event: 'INSERT', referencing: 'NEW TABLE AS new_rows' },
  { table: 'deals', name: 'deals_counters_update', event: 'UPDATE', referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows' },
  { table: 'deals', name: 'deals_counters_delete', event: 'DELETE', referencing: 'OLD TABLE AS old_rows' },
  { table: 'contacts', name: 'contacts_counters_insert', event: 'INSERT', referencing: 'NEW TABLE AS new_rows' },
  { table: 'contacts', name: 'contacts_counters_update', event: 'UPDATE', referencing: 'OLD TABLE AS old_rows NEW TABLE AS new_rows' },
  { table: 'contacts', name: 'contacts_counters_delete', event: 'DELETE', referencing: 'OLD TABLE AS old_rows' },
];

const CONTACT_COLUMNS = ['deals_count', 'pending_deals_count', 'pending_deals_amount', 'won_deals_count', 'won_deals_amount'];

export class RecordCounters1764200000000 implements MigrationInterface {
  name = 'RecordCounters1764200000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE crm.contacts
        ADD COLUMN deals_count integer NOT NULL DEFAULT 0,
        ADD COLUMN pending_deals_count integer NOT NULL DEFAULT 0,
        ADD COLUMN pending_deals_amount numeric NOT NULL DEFAULT 0,
        ADD COLUMN won_deals_count integer NOT NULL DEFAULT 0,
        ADD COLUMN won_deals_amount numeric NOT NULL DEFAULT 0`);
    await q.query(`
      CREATE TABLE crm.company_counters (
        company_id varchar(24) NOT NULL REFERENCES crm.companies(id) ON DELETE CASCADE,
        slot smallint NOT NULL CHECK (slot BETWEEN 0 AND 15),
        contacts_count integer NOT NULL DEFAULT 0,
        won_deals_count integer NOT NULL DEFAULT 0,
        pending_deals_count integer NOT NULL DEFAULT 0,
        total_won_amount numeric NOT NULL DEFAULT 0,
        total_pending_amount numeric NOT NULL DEFAULT 0,
        PRIMARY KEY (company_id, slot)
      )`);

    // A company's first contacts by name (the ones it embeds) are an index range, not a sort of all of them.
    await q.query(`CREATE INDEX contacts_company_name_idx ON crm.contacts (company_id, sort_name, id) WHERE deleted_at IS NULL`);
    await q.query(`DROP INDEX crm.contacts_company_idx`);

    // Backfill before the triggers exist (the ALTER above holds crm.contacts exclusively until commit).
    await q.query(`
      UPDATE crm.contacts c
      SET deals_count = d.deals_count, pending_deals_count = d.pending_deals_count, pending_deals_amount = d.pending_deals_amount,
          won_deals_count = d.won_deals_count, won_deals_amount = d.won_deals_amount
      FROM (
        SELECT contact_id, sum(deals_count) AS deals_count, sum(pending_deals_count) AS pending_deals_count,
               sum(pending_deals_amount) AS pending_deals_amount, sum(won_deals_count) AS won_deals_count, sum(won_deals_amount) AS won_deals_amount
        FROM (${dealContribution('crm.deals', '')}) x GROUP BY contact_id
      ) d
      WHERE c.id = d.contact_id`);
    await q.query(`
      INSERT INTO crm.company_counters (company_id, slot, contacts_count, won_deals_count, pending_deals_count, total_won_amount, total_pending_amount)
      SELECT company_id, slot, sum(contacts_count), sum(won_deals_count), sum(pending_deals_count), sum(total_won_amount), sum(total_pending_amount)
      FROM (${contactContribution('crm.contacts', '')}) x
      GROUP BY company_id, slot`);

    await q.query(dealsFunction('deals_counters_insert', [dealContribution('new_rows', '')]));
    await q.query(dealsFunction('deals_counters_update', [dealContribution('new_rows', ''), dealContribution('old_rows', '-')]));
    await q.query(dealsFunction('deals_counters_delete', [dealContribution('old_rows', '-')]));
    await q.query(contactsFunction('contacts_counters_insert', [contactContribution('new_rows', '')]));
    await q.query(
      contactsFunction('contacts_counters_update', [contactContribution('new_rows', ''), contactContribution('old_rows', '-')]),
    );
    await q.query(contactsFunction('contacts_counters_delete', [contactContribution('old_rows', '-')]));
    for (const t of TRIGGERS)
      await q.query(
        `CREATE TRIGGER ${t.name} AFTER ${t.event} ON crm.${t.table} REFERENCING ${t.referencing} FOR EACH STATEMENT EXECUTE FUNCTION crm.${t.name}()`,
      );
  }

  async down(q: QueryRunner): Promise<void> {
    for (const t of TRIGGERS) {
      await q.query(`DROP TRIGGER ${t.name} ON crm.${t.table}`);
      await q.query(`DROP FUNCTION crm.${t.name}()`);
    }
    await q.query(`DROP TABLE crm.company_counters`);
    await q.query(`CREATE INDEX contacts_company_idx ON crm.contacts (company_id) WHERE deleted_at IS NULL`);
    await q.query(`DROP INDEX crm.contacts_company_name_idx`);
    await q.query(`ALTER TABLE crm.contacts ${CONTACT_COLUMNS.map((c) => `DROP COLUMN ${c}`).join(', ')}`);
  }
}
