import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Statuses as OnePageCRM has them (docs/decisions.md "Account configuration"): `status` becomes
 * the read-only type key (`lead`, `prospect`, `customer`, `inactive`, `general`, `customN`) and
 * `text` the display name, unique per account regardless of case.
 *
 * Existing rows: the former name moves to `text` whole (the column stays varchar(100), so no name
 * is truncated; only new or changed texts are held to OnePageCRM's 20 characters); the former
 * 2-10 character labels are dropped (nothing else read them). The lead status is `lead`; a status
 * named Prospect, Customer, Inactive or General (any case) takes that key; every other one is
 * `custom1`, `custom2`, ... per account in list order. `crm.accounts.custom_statuses_made` counts
 * the custom keys handed out, so a number is never reused within an account.
 */
export class StatusTypeKeys1764800300000 implements MigrationInterface {
  name = 'StatusTypeKeys1764800300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.accounts ADD COLUMN custom_statuses_made integer NOT NULL DEFAULT 0`);
    await q.query(`DROP INDEX crm.statuses_name_uq`);
    await q.query(`
      WITH keyed AS (
        SELECT id, account_id, status AS name, position, created_at,
               CASE WHEN is_lead THEN 'lead'
                    WHEN lower(status) IN ('prospect', 'customer', 'inactive', 'general') THEN lower(status) END AS key
        FROM crm.statuses
      ), numbered AS (
        SELECT id, name,
               coalesce(key, 'custom' || row_number() OVER (PARTITION BY account_id, key IS NULL ORDER BY position, created_at, id)) AS key
        FROM keyed
      )
      UPDATE crm.statuses s SET text = n.name, status = n.key FROM numbered n WHERE n.id = s.id`);
    await q.query(`
      UPDATE crm.accounts a SET custom_statuses_made = c.made
      FROM (SELECT account_id, count(*)::int AS made FROM crm.statuses WHERE status ~ '^custom[0-9]+$' GROUP BY account_id) c
      WHERE c.account_id = a.id`);
    await q.query(`CREATE UNIQUE INDEX statuses_key_uq ON crm.statuses (account_id, status)`);
    await q.query(`CREATE UNIQUE INDEX statuses_text_uq ON crm.statuses (account_id, lower(text))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX crm.statuses_text_uq`);
    await q.query(`DROP INDEX crm.statuses_key_uq`);
    await q.query(`UPDATE crm.statuses SET status = text, text = upper(left(text, 2))`);
    await q.query(`CREATE UNIQUE INDEX statuses_name_uq ON crm.statuses (account_id, lower(status))`);
    await q.query(`ALTER TABLE crm.accounts DROP COLUMN custom_statuses_made`);
  }
}
