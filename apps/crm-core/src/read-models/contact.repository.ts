import type { ClosedSaleDto, ContactDto } from '@crm/contracts';
import { many, maybeOne, sql, type Db, type SqlFragment } from '../common/sql';

/** A contact as the API shows it: crm.contacts with its status, lead source, tags and stored counters. */
export interface ContactRow {
  id: string;
  owner_id: string;
  title: string;
  first_name: string;
  last_name: string;
  job_title: string;
  starred: boolean;
  photo_url: string;
  company_id: string | null;
  company_name: string;
  urls: ContactDto['urls'];
  phones: ContactDto['phones'];
  emails: ContactDto['emails'];
  address_list: ContactDto['address_list'];
  status_id: string;
  status: string;
  lead_source_id: string | null;
  lead_source: string | null;
  background: string;
  custom_fields: Record<string, unknown>;
  closed_sales: ClosedSaleDto[];
  google_contacts_data: ContactDto['google_contacts_data'];
  letter: string;
  tags: string[];
  total_deals_count: number;
  pending_count: number;
  total_pendings: number;
  /** The version its document is rendered from (contact-documents.repository), as text (a bigint). */
  doc_version: string;
  company_size: number;
  created_at: Date;
  modified_at: Date;
}

/**
 * The contacts of the account among `ids` (deleted ones only with `includeDeleted`). The counters
 * are stored (migration 1764200000000, kept by triggers in every writing transaction): the deal
 * counters are columns of the contact, `company_size` sums at most 16 slot rows of its company.
 * A named prepared statement: planning these joins cost more than running them.
 */
export function contactRows(db: Db, accountId: string, ids: readonly string[], includeDeleted: boolean): Promise<ContactRow[]> {
  return many<ContactRow>(db, contactRowsSql(accountId, sql`${[...ids]}::varchar[]`, includeDeleted), { prepare: true });
}

/** A contact's company's size: the sum of its company's at most 16 counter slot rows. */
const COMPANY_SIZE = sql`CASE WHEN c.company_id IS NULL THEN 0
                    ELSE (SELECT coalesce(sum(cc.contacts_count), 0)::int FROM crm.company_counters cc WHERE cc.company_id = c.company_id) END`;

/**
 * {@link contactRows}' statement, for the ids of `ids` (a varchar[] expression), to run alone or
 * inside another. `companySize` false: `company_size` is left 0, for a reader that has the
 * contact's company (its `contacts_count` is the same sum) and fills it from there.
 */
export function contactRowsSql(accountId: string, ids: SqlFragment, includeDeleted: boolean, companySize = true): SqlFragment {
  return sql`SELECT c.id, c.owner_id, c.title, c.first_name, c.last_name, c.job_title, c.starred, c.photo_url, c.company_id, c.company_name,
               c.urls, c.phones, c.emails, c.address_list, c.status_id, s.text AS status, c.lead_source_id, ls.text AS lead_source, c.background,
               c.custom_fields, c.closed_sales, c.google_contacts_data, c.letter, c.created_at, c.modified_at, c.doc_version::text AS doc_version,
               coalesce((SELECT array_agg(t.name ORDER BY lower(t.name)) FROM crm.contact_tags ct JOIN crm.tags t ON t.id = ct.tag_id
                         WHERE ct.contact_id = c.id), '{}') AS tags,
               c.deals_count AS total_deals_count, c.pending_deals_count AS pending_count, c.pending_deals_amount::float8 AS total_pendings,
               ${companySize ? COMPANY_SIZE : sql`0`} AS company_size
        FROM crm.contacts c
        JOIN crm.statuses s ON s.id = c.status_id
        LEFT JOIN crm.lead_sources ls ON ls.id = c.lead_source_id
        WHERE c.account_id = ${accountId} AND c.id = ANY(${ids}) AND (${includeDeleted}::boolean OR c.deleted_at IS NULL)`;
}

/** The owner of a contact of the account (deleted or not). */
export async function contactOwnerId(db: Db, accountId: string, contactId: string): Promise<string | undefined> {
  const row = await maybeOne<{ owner_id: string }>(
    db,
    sql`SELECT owner_id FROM crm.contacts WHERE id = ${contactId} AND account_id = ${accountId}`,
    { prepare: true },
  );
  return row?.owner_id;
}
