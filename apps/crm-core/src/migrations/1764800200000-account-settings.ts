import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Account settings (issue 13, item 4; docs/decisions.md "Account settings"): OnePageCRM's
 * bootstrap `account_type`, `settings` (localization and display preferences) and `cost_setup`.
 * `settings` and `cost_setup` hold only what the operator set; every key not set reads as its
 * default (libs/contracts DEFAULT_ACCOUNT_SETTINGS and DEFAULT_COST_SETUP), so existing and new
 * accounts start with the defaults and a default changed later applies to every account that did
 * not choose its own. Constant column defaults: a catalogue change, no table rewrite.
 */
export class AccountSettings1764800200000 implements MigrationInterface {
  name = 'AccountSettings1764800200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE crm.accounts
        ADD COLUMN account_type varchar(10) NOT NULL DEFAULT 'pro' CONSTRAINT accounts_account_type_ck CHECK (account_type IN ('pro', 'trial', 'free')),
        ADD COLUMN settings jsonb NOT NULL DEFAULT '{}' CONSTRAINT accounts_settings_ck CHECK (jsonb_typeof(settings) = 'object'),
        ADD COLUMN cost_setup jsonb NOT NULL DEFAULT '{}' CONSTRAINT accounts_cost_setup_ck CHECK (jsonb_typeof(cost_setup) = 'object')`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE crm.accounts DROP COLUMN account_type, DROP COLUMN settings, DROP COLUMN cost_setup`);
  }
}
