import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * crm.company_counters gains `account_id` (NOT NULL), the last table of the crm schema without it
 * (docs/scaling.md: partitioning by account needs it in every table; the medium spec
 * partition-key keeps it so). The contact triggers that keep the counters write it from the
 * contact rows they see; existing rows take their company's account. The functions' text repeats
 * RecordCounters1764200000000's with the account added: a migration is a frozen record of the
 * schema it made, so the earlier one is not changed to share it.
 */

/** A contact's contribution to its company's counters (as in RecordCounters1764200000000), with its account. */
function contactContribution(table: string, sign: '' | '-'): string {
  return `SELECT account_id, company_id, (hashtext(id) & 15)::smallint AS slot,
           ${sign}1 AS contacts_count,
           ${sign}won_deals_count AS won_deals_count,
           ${sign}pending_deals_count AS pending_deals_count,
           ${sign}won_deals_amount AS total_won_amount,
           ${sign}pending_deals_amount AS total_pending_amount
    FROM ${table} WHERE company_id IS NOT NULL AND deleted_at IS NULL`;
}

function contactsFunction(name: string, parts: string[], withAccount: boolean): string {
  const account = withAccount ? 'account_id, ' : '';
  const accountOf = withAccount ? 'min(x.account_id), ' : '';
  return `
    CREATE OR REPLACE FUNCTION crm.${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
    BEGIN
      INSERT INTO crm.company_counters AS cc (${account}company_id, slot, contacts_count, won_deals_count, pending_deals_count, total_won_amount, total_pending_amount)
      SELECT ${accountOf}x.company_id, x.slot, sum(x.contacts_count), sum(x.won_deals_count), sum(x.pending_deals_count),
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

function functions(withAccount: boolean): string[] {
  const [newRows, oldRows] = [contactContribution('new_rows', ''), contactContribution('old_rows', '-')];
  return [
    contactsFunction('contacts_counters_insert', [newRows], withAccount),
    contactsFunction('contacts_counters_update', [newRows, oldRows], withAccount),
    contactsFunction('contacts_counters_delete', [oldRows], withAccount),
  ];
}

export class CompanyCountersAccount1764400000000 implements MigrationInterface {
  name = 'CompanyCountersAccount1764400000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.company_counters ADD COLUMN account_id varchar(24)`);
    await q.query(`UPDATE crm.company_counters cc SET account_id = co.account_id FROM crm.companies co WHERE co.id = cc.company_id`);
    await q.query(`ALTER TABLE crm.company_counters ALTER COLUMN account_id SET NOT NULL`);
    // A company and its contacts share one account, so every delta of a (company, slot) group names the same one.
    for (const statement of functions(true)) await q.query(statement);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const statement of functions(false)) await q.query(statement);
    await q.query(`ALTER TABLE crm.company_counters DROP COLUMN account_id`);
  }
}
