import type { CompanyAddressDto } from '@crm/contracts';
import { many, sql, type Db, type SqlFragment } from '../common/sql';
import { DOCUMENT_ROW_COLUMNS, documentRowColumns } from './contact-documents.repository';

/** A company as the API shows it: crm.companies with its stored counters. */
export interface CompanyRow {
  id: string;
  name: string;
  description: string;
  phone: string;
  url: string;
  photo_url: string;
  image: string;
  address: Partial<CompanyAddressDto>;
  company_fields: Record<string, unknown>;
  syncing_status: boolean;
  synced_status_id: string | null;
  syncing_tags: boolean;
  synced_tags: string[];
  contacts_count: number;
  won_deals_count: number;
  pending_deals_count: number;
  total_won_amount: number;
  total_pending_amount: number;
  created_at: Date;
  modified_at: Date;
}

/**
 * Companies of the account among `ids`. The counters (over the company's non-deleted contacts and
 * their deals) are stored in at most 16 slot rows of crm.company_counters, kept by triggers in
 * every writing transaction: a read sums them by primary key, whatever the company's size.
 */
export function companyRows(db: Db, accountId: string, ids: readonly string[]): Promise<CompanyRow[]> {
  return many<CompanyRow>(db, companyRowsSql(accountId, sql`${[...ids]}::varchar[]`), { prepare: true });
}

/** {@link companyRows}' statement, for the ids of `ids` (a varchar[] expression), to run alone or inside another. */
export function companyRowsSql(accountId: string, ids: SqlFragment): SqlFragment {
  return sql`SELECT co.id, co.name, co.description, co.phone, co.url, co.photo_url, co.image, co.address, co.company_fields,
               co.syncing_status, co.synced_status_id, co.syncing_tags, co.synced_tags, co.created_at, co.modified_at,
               coalesce(cc.contacts_count, 0)::int AS contacts_count, coalesce(cc.won_deals_count, 0)::int AS won_deals_count,
               coalesce(cc.pending_deals_count, 0)::int AS pending_deals_count,
               coalesce(cc.total_won_amount, 0)::float8 AS total_won_amount, coalesce(cc.total_pending_amount, 0)::float8 AS total_pending_amount
        FROM crm.companies co
        LEFT JOIN LATERAL (
          SELECT sum(k.contacts_count) AS contacts_count, sum(k.won_deals_count) AS won_deals_count, sum(k.pending_deals_count) AS pending_deals_count,
                 sum(k.total_won_amount) AS total_won_amount, sum(k.total_pending_amount) AS total_pending_amount
          FROM crm.company_counters k WHERE k.company_id = co.id
        ) cc ON true
        WHERE co.account_id = ${accountId} AND co.id = ANY(${ids})`;
}

/**
 * `(id, company_id)` of the first `limit` non-deleted contacts by name (sort_name, id) of each
 * company of `companies` (a relation `k` with `company_id` and the order key `n`), in that order:
 * an index range per company (contacts_company_name_idx), so a company of 20,000 contacts reads
 * `limit` of them.
 */
function firstMembers(
  db: Db,
  accountId: string,
  companies: SqlFragment,
  limit: number,
): Promise<Array<{ id: string; company_id: string }>> {
  return many<{ id: string; company_id: string }>(db, firstMembersSql(accountId, companies, limit), { prepare: true });
}

/**
 * {@link firstMembers}' statement, to run alone or inside another; `documentColumns`: each member
 * with the columns its document is joined on (contact-documents.repository DOCUMENT_ROW_COLUMNS).
 */
export function firstMembersSql(accountId: string, companies: SqlFragment, limit: number, documentColumns = false): SqlFragment {
  const [inner, outer] = documentColumns ? [sql`, ${DOCUMENT_ROW_COLUMNS}`, sql`, ${documentRowColumns('m')}`] : [sql.empty, sql.empty];
  return sql`SELECT m.id, k.company_id${outer}
        FROM ${companies}
        CROSS JOIN LATERAL (
          SELECT c.id, c.sort_name${inner} FROM crm.contacts c
          WHERE c.company_id = k.company_id AND c.account_id = ${accountId} AND c.deleted_at IS NULL
          ORDER BY c.sort_name, c.id LIMIT ${limit}
        ) m
        ORDER BY k.n, m.sort_name, m.id`;
}

/** The first `limit` non-deleted contacts of each company, by name (see {@link firstMembers}). */
export function companyMemberIds(
  db: Db,
  accountId: string,
  companyIds: readonly string[],
  limit: number,
): Promise<Array<{ id: string; company_id: string }>> {
  return firstMembers(db, accountId, sql`unnest(${[...companyIds]}::varchar[]) WITH ORDINALITY AS k(company_id, n)`, limit);
}

/**
 * The first `limit` non-deleted contacts by name of each company that one of `contactIds` belongs
 * to, in one statement: the contacts by primary key, then {@link firstMembers}.
 */
export function companyMatesOf(
  db: Db,
  accountId: string,
  contactIds: readonly string[],
  limit: number,
): Promise<Array<{ id: string; company_id: string }>> {
  const companies = sql`(SELECT DISTINCT c.company_id, c.company_id AS n FROM crm.contacts c
                         WHERE c.account_id = ${accountId} AND c.id = ANY(${[...contactIds]}::varchar[]) AND c.company_id IS NOT NULL) k`;
  return firstMembers(db, accountId, companies, limit);
}
