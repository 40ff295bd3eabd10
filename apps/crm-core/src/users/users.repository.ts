import { Injectable } from '@nestjs/common';
import { accountPage, execute, maybeOne, sql, type AccountList, type Db, type TimeFilterInput } from '../common/sql';

/** crm.users: the CRM user profile (credentials live in the auth schema). */
export interface UserRow {
  id: string;
  account_id: string;
  first_name: string;
  last_name: string;
  email: string;
  role: 'admin' | 'user';
  account_rights: string[];
  permissions: string[];
  company_name: string;
  photo_url: string;
  country_code: string;
  bcc_email: string;
  google_contacts_email: string;
  created_at: Date;
  modified_at: Date;
}

const COLUMNS = sql.raw(
  'u.id, u.account_id, u.first_name, u.last_name, u.email, u.role, u.account_rights, u.permissions, u.company_name, u.photo_url, u.country_code, u.bcc_email, u.google_contacts_email, u.created_at, u.modified_at',
);

/** Every query is scoped by account: another account's user is simply not found. */
const LIST: AccountList = {
  from: sql.raw('crm.users u'),
  alias: 'u',
  columns: COLUMNS,
  orderBy: sql.raw('u.last_name, u.first_name, u.id'),
};

@Injectable()
export class UsersRepository {
  find(db: Db, accountId: string, userId: string, lock = false): Promise<UserRow | undefined> {
    if (lock)
      return maybeOne(db, sql`SELECT ${COLUMNS} FROM crm.users u WHERE u.account_id = ${accountId} AND u.id = ${userId} FOR UPDATE`);
    return maybeOne(db, sql`SELECT ${COLUMNS} FROM crm.users u WHERE u.account_id = ${accountId} AND u.id = ${userId}`, { prepare: true });
  }

  async updateProfile(
    db: Db,
    userId: string,
    p: { first_name: string; last_name: string; company_name: string; bcc_email: string },
  ): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.users SET first_name = ${p.first_name}, last_name = ${p.last_name}, company_name = ${p.company_name},
          bcc_email = ${p.bcc_email}, modified_at = now() WHERE id = ${userId}`,
    );
  }

  /** One page by name; `time`: the common time filters (decisions.md "Paging and lists"). */
  page(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    return accountPage<UserRow>(db, LIST, accountId, time, page, perPage);
  }
}
