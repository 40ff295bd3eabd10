import { Injectable } from '@nestjs/common';
import type { CompanySortKey, ContactSortKey, SortOrder } from '@crm/contracts';
import { CONTACT_SORT_COLUMNS } from '../contacts/contacts.repository';
import {
  escapeLike,
  execute,
  many,
  maybeOne,
  one,
  orderDirection,
  pageLimit,
  sql,
  timeFilterConditions,
  type Db,
  type SqlFragment,
  type TimeFilterInput,
} from '../common/sql';
import { COMPANY_COLUMNS, type CompanyState } from './company.rules';

/** A company's writable columns as stored (crm.companies). */
export type CompanyRow = CompanyState;

export interface CompanyListFilter extends TimeFilterInput {
  search?: string;
  name?: string;
  phone?: string;
  letter?: string;
}

/**
 * A company's letter: a-z when its lower-cased name begins with that ASCII letter, else '1' (the
 * expression of companies_letter_idx, migration 1764600500000; keep them identical).
 */
const LETTER_SQL = sql.raw(`(CASE WHEN ascii(lower(co.name)) BETWEEN 97 AND 122 THEN chr(ascii(lower(co.name))) ELSE '1' END)`);
/** The phone's digits (the expression of companies_phone_idx). */
const PHONE_DIGITS_SQL = sql.raw(`regexp_replace(co.phone, '\\D', '', 'g')`);

const JSON_COLUMNS: ReadonlySet<string> = new Set(['address', 'company_fields']);
const SORT_COLUMNS: Record<CompanySortKey, SqlFragment> = {
  name: sql.raw('lower(co.name)'),
  created_at: sql.raw('co.created_at'),
  modified_at: sql.raw('co.modified_at'),
};
/** The unique index on (account_id, lower(name)): a rename onto another company's name violates it. */
export const COMPANY_NAME_INDEX = 'companies_name_uq';

/** Every SQL statement on crm.companies (creating one by a contact's company_name is the contacts repository's). */
@Injectable()
export class CompaniesRepository {
  /** The count and one page of ids of the account's companies matching `filter`, in `order` (ties by id). */
  async page(
    db: Db,
    accountId: string,
    filter: CompanyListFilter,
    order: { key: CompanySortKey; direction: SortOrder },
    page: number,
    perPage: number,
  ): Promise<{ total: number; ids: string[] }> {
    const conditions = [sql`co.account_id = ${accountId}`, ...timeFilterConditions(filter, 'co')];
    if (filter.search) conditions.push(sql`lower(co.name) LIKE ${`%${escapeLike(filter.search.toLowerCase())}%`}`);
    // name: the unique index (account_id, lower(name)); letter and phone: their expression indexes.
    if (filter.name !== undefined) conditions.push(sql`lower(co.name) = ${filter.name.toLowerCase()}`);
    if (filter.letter !== undefined) conditions.push(sql`${LETTER_SQL} = ${filter.letter}`);
    if (filter.phone !== undefined) {
      const digits = filter.phone.replace(/\D/g, '');
      conditions.push(digits ? sql`co.phone <> '' AND ${PHONE_DIGITS_SQL} = ${digits}` : sql`false`);
    }
    const where = sql.and(conditions);
    const dir = orderDirection(order.direction, 'asc');
    const [{ total }, rows] = await Promise.all([
      one<{ total: number }>(db, sql`SELECT count(*)::int AS total FROM crm.companies co WHERE ${where}`),
      many<{ id: string }>(
        db,
        sql`SELECT co.id FROM crm.companies co WHERE ${where} ORDER BY ${SORT_COLUMNS[order.key]} ${dir}, co.id ${dir} ${pageLimit(page, perPage)}`,
      ),
    ]);
    return { total, ids: rows.map((r) => r.id) };
  }

  /** The company's stored state, locked for update; undefined unless it is a company of the account. */
  lock(db: Db, accountId: string, id: string): Promise<CompanyRow | undefined> {
    return maybeOne<CompanyRow>(
      db,
      sql`SELECT ${sql.raw(COMPANY_COLUMNS.join(', '))} FROM crm.companies WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`,
    );
  }

  async update(db: Db, accountId: string, id: string, state: CompanyState): Promise<void> {
    const set = COMPANY_COLUMNS.map((c) => sql`${sql.raw(c)} = ${JSON_COLUMNS.has(c) ? JSON.stringify(state[c]) : state[c]}`);
    await execute(
      db,
      sql`UPDATE crm.companies SET ${sql.join(set, ', ')}, modified_at = now() WHERE id = ${id} AND account_id = ${accountId}`,
    );
  }

  /** Does `id` name a status of the account? */
  async statusExists(db: Db, accountId: string, id: string): Promise<boolean> {
    return (await maybeOne(db, sql`SELECT 1 FROM crm.statuses WHERE id = ${id} AND account_id = ${accountId}`)) !== undefined;
  }

  /** The id of a company of the account (locked with `forUpdate`), or undefined. */
  async findId(db: Db, accountId: string, id: string, forUpdate = false): Promise<string | undefined> {
    const row = await maybeOne<{ id: string }>(
      db,
      sql`SELECT id FROM crm.companies WHERE id = ${id} AND account_id = ${accountId}${forUpdate ? sql` FOR UPDATE` : sql.empty}`,
    );
    return row?.id;
  }

  /** One page of the company's linked contacts (live ones), by name, on the link's primary key. */
  /**
   * One page of the contacts linked to the company, on its link rows (at most MAX_LINKED_CONTACTS):
   * by name, or by `order` (ties by name, then id).
   */
  async linkedPage(
    db: Db,
    accountId: string,
    companyId: string,
    order: { key: ContactSortKey; direction: SortOrder } | undefined,
    page: number,
    perPage: number,
  ): Promise<{ total: number; ids: string[] }> {
    const from = sql`crm.company_linked_contacts l JOIN crm.contacts c ON c.id = l.contact_id AND c.deleted_at IS NULL`;
    const where = sql`l.company_id = ${companyId} AND l.account_id = ${accountId}`;
    const { total } = await one<{ total: number }>(db, sql`SELECT count(*)::int AS total FROM ${from} WHERE ${where}`);
    const rows = await many<{ id: string }>(
      db,
      sql`SELECT c.id FROM ${from} WHERE ${where} ORDER BY ${linkedOrder(order)} ${pageLimit(page, perPage)}`,
    );
    return { total, ids: rows.map((r) => r.id) };
  }

  /** The companies each of `contactIds` is linked with (by company name), on the contact index. */
  async linkedWith(db: Db, contactIds: readonly string[]): Promise<Map<string, string[]>> {
    const out = new Map<string, string[]>();
    if (contactIds.length === 0) return out;
    const rows = await many<{ contact_id: string; company_ids: string[] }>(
      db,
      sql`SELECT l.contact_id, array_agg(l.company_id ORDER BY co.name, l.company_id) AS company_ids
          FROM crm.company_linked_contacts l JOIN crm.companies co ON co.id = l.company_id
          WHERE l.contact_id = ANY(${contactIds}::varchar[]) GROUP BY l.contact_id`,
    );
    for (const row of rows) out.set(row.contact_id, row.company_ids);
    return out;
  }

  /** Links the contact to the company (a link that exists stays); true when it is new. */
  async link(db: Db, accountId: string, companyId: string, contactId: string): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`INSERT INTO crm.company_linked_contacts (account_id, company_id, contact_id) VALUES (${accountId}, ${companyId}, ${contactId})
            ON CONFLICT DO NOTHING`,
      )) > 0
    );
  }

  async unlink(db: Db, companyId: string, contactId: string): Promise<boolean> {
    return (
      (await execute(db, sql`DELETE FROM crm.company_linked_contacts WHERE company_id = ${companyId} AND contact_id = ${contactId}`)) > 0
    );
  }

  /** How many contacts are linked to the company (its link rows, by the primary key). */
  async linkCount(db: Db, companyId: string): Promise<number> {
    return (await one<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM crm.company_linked_contacts WHERE company_id = ${companyId}`))
      .n;
  }
}

function linkedOrder(order: { key: ContactSortKey; direction: SortOrder } | undefined): SqlFragment {
  if (!order) return sql`c.sort_name, c.id`;
  const dir = orderDirection(order.direction, 'asc');
  return order.key === 'name'
    ? sql`c.sort_name ${dir}, c.id ${dir}`
    : sql`${CONTACT_SORT_COLUMNS[order.key]} ${dir}, c.sort_name ${dir}, c.id ${dir}`;
}
