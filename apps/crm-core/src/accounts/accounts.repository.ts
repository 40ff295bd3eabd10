import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import type { ListFormat } from '@crm/contracts';
import { execute, maybeOne, sql, type Db } from '../common/sql';
import type { UserRow } from '../users/users.repository';
import {
  DEFAULT_CUSTOM_STATUSES,
  DEFAULT_PIPELINE_STAGES,
  DEFAULT_PIPELINES,
  DEFAULT_STATUSES,
  type StoredSettingsRow,
} from './account.rules';

/** crm.accounts: the CRM half of an account (the auth-server owns its identity half). */
export interface AccountRow {
  id: string;
  name: string;
  region: string;
}

/** The profile of a user the auth-server provisions (the rest of crm.users has defaults). */
export type ProvisionedUser = Pick<UserRow, 'id' | 'account_id' | 'first_name' | 'last_name' | 'email' | 'role'> & {
  account_rights: readonly string[];
  permissions: readonly string[];
};

/** Updates of a repeated provisioning message: the profile the auth-server owns. */
const USER_UPSERT =
  sql.raw(`ON CONFLICT (id) DO UPDATE SET first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, email = EXCLUDED.email,
  role = EXCLUDED.role, account_rights = EXCLUDED.account_rights, permissions = EXCLUDED.permissions, modified_at = now()`);

/** The account aggregate: the account row, its users' profiles and the defaults it starts with. */
@Injectable()
export class AccountsRepository {
  async find(db: Db, accountId: string): Promise<AccountRow | undefined> {
    return maybeOne(db, sql`SELECT id, name, region FROM crm.accounts WHERE id = ${accountId}`, { prepare: true });
  }

  /** The account's stored settings, locked for a change; undefined when there is no such account. */
  lockSettings(db: Db, accountId: string): Promise<StoredSettingsRow | undefined> {
    return maybeOne(db, sql`SELECT account_type, settings, cost_setup FROM crm.accounts WHERE id = ${accountId} FOR UPDATE`);
  }

  /** The `list_format` the operator set for the account (undefined: never set, or no such account). */
  async listFormat(db: Db, accountId: string): Promise<ListFormat | undefined> {
    const row = await maybeOne<{ list_format: ListFormat | null }>(
      db,
      sql`SELECT settings->>'list_format' AS list_format FROM crm.accounts WHERE id = ${accountId}`,
      { prepare: true },
    );
    return row?.list_format ?? undefined;
  }

  async writeSettings(db: Db, accountId: string, row: StoredSettingsRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.accounts SET account_type = ${row.account_type}, settings = ${JSON.stringify(row.settings)}::jsonb,
                 cost_setup = ${JSON.stringify(row.cost_setup)}::jsonb
          WHERE id = ${accountId}`,
    );
  }

  /** Idempotent: a retried provisioning request changes nothing already made. */
  async insertAccount(db: Db, account: AccountRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.accounts (id, name, region) VALUES (${account.id}, ${account.name}, ${account.region}) ON CONFLICT DO NOTHING`,
    );
  }

  /**
   * Creates or updates a user's profile in its account, taking the company name from the account;
   * false when the account does not exist.
   */
  async upsertUser(db: Db, user: ProvisionedUser, bccEmail: string): Promise<boolean> {
    const made = await execute(
      db,
      sql`INSERT INTO crm.users (id, account_id, first_name, last_name, email, role, account_rights, permissions, company_name,
                                 photo_url, country_code, bcc_email, google_contacts_email)
          SELECT ${user.id}, a.id, ${user.first_name}, ${user.last_name}, ${user.email}, ${user.role}, ${user.account_rights}::text[],
                 ${user.permissions}::text[], a.name, '', '', ${bccEmail}, ''
          FROM crm.accounts a WHERE a.id = ${user.account_id}
          ${USER_UPSERT}`,
    );
    return made > 0;
  }

  /** The statuses (lead first) and default pipelines of a new account; a repeat changes nothing. */
  async seedDefaults(db: Db, accountId: string): Promise<void> {
    const lead = await maybeOne(db, sql`SELECT id FROM crm.statuses WHERE account_id = ${accountId} AND is_lead`);
    if (!lead) {
      const rows = DEFAULT_STATUSES.map(
        (s, position) =>
          sql`(${newId()}, ${accountId}, ${s.status}, ${s.text}, ${s.description}, ${s.color}, ${position === 0}, ${position}::int)`,
      );
      await execute(
        db,
        sql`INSERT INTO crm.statuses (id, account_id, status, text, description, color, is_lead, position) VALUES ${sql.join(rows, ', ')}
            ON CONFLICT DO NOTHING`,
      );
      await execute(
        db,
        sql`UPDATE crm.accounts SET custom_statuses_made = greatest(custom_statuses_made, ${DEFAULT_CUSTOM_STATUSES}::int) WHERE id = ${accountId}`,
      );
    }
    for (const pipeline of DEFAULT_PIPELINES) {
      await execute(
        db,
        sql`INSERT INTO crm.pipelines (id, account_id, name, kind, is_default, stages)
            SELECT ${newId()}, ${accountId}, ${pipeline.name}, ${pipeline.kind}, true, ${JSON.stringify(DEFAULT_PIPELINE_STAGES)}::jsonb
            WHERE NOT EXISTS (SELECT 1 FROM crm.pipelines WHERE account_id = ${accountId} AND kind = ${pipeline.kind} AND is_default)
            ON CONFLICT DO NOTHING`,
      );
    }
  }
}
