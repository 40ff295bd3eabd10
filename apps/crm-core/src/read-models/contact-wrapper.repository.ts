import { maybeOne, sql, type Db, type QueryOptions, type SqlFragment } from '../common/sql';
import { companyRowsSql, firstMembersSql, type CompanyRow } from './company.repository';
import { currentDocumentsSql, currentDocumentsTextSql, DOCUMENT_ROW_COLUMNS, DOCUMENT_ROW_NAMES } from './contact-documents.repository';
import { fieldDefinitionsSql, type FieldDefinitionRow } from './fields.repository';
import type { OpenActionRow } from './records.repository';
import { openActionRowsSql } from './records.repository';

/**
 * Everything contact wrappers show, as `viewerId` sees them, read in ONE statement: the contacts'
 * current documents (and the ids of those without one: `stale`), the first `mateLimit` contacts
 * of each of their companies, the open actions of both, the companies (all but
 * `knownCompanyIds`) and the account's company field definitions. Each part is its own module's
 * statement (firstMembersSql, openActionRowsSql, companyRowsSql, fieldDefinitionsSql), aggregated
 * to JSON, so the rows are the same as the parts read alone; timestamps arrive as ISO 8601
 * strings, which the views read as they read Dates.
 *
 * A contact without a current document (written in the last moments, or during a sweep) is read
 * as a row by a second statement (contact.read-model loadContactDtos), only then. Inside this one,
 * that part cost 40-75 µs of PostgreSQL's 160-200 µs on every read, needed or not: PostgreSQL sets
 * up every node of a plan before it runs it.
 *
 * Why one: on this kind of machine a statement's round trip (a socket write and a wake-up of the
 * PostgreSQL backend and of crm-core) costs more than the statement's work; a single-contact
 * read went from six statements to one (bench/results, issue 17).
 */
export interface ContactWrapperParts {
  /** A page's contacts in its order (read with `page`; absent with `ids`). */
  ids?: string[];
  /** A page's list total (read with `page`; absent with `ids`). */
  total?: number;
  /** The current documents (contact-documents.repository currentDocumentsTextSql) of the contacts that have one; null: none. */
  documents: string | null;
  /** The contacts (wanted, or their companies' first ones) without a current document: to read as rows. */
  stale: string[];
  mates: Array<{ id: string; company_id: string }>;
  actions: OpenActionRow[];
  companies: CompanyRow[];
  company_fields: FieldDefinitionRow[];
}

/**
 * One page of a contact list, read inside the wrappers' statement (a list page is then one round
 * trip, not three: the total, the page's ids, the wrappers).
 */
export interface ContactPageSql {
  /** Common table expressions `rows` and `total` refer to (none named `base`, `mates`, `wrapped`, `docs` or `stale`). */
  ctes: readonly SqlFragment[];
  /**
   * `SELECT c.id, c.company_id, ${DOCUMENT_ROW_COLUMNS}, <place> AS n FROM crm.contacts c ...`: the
   * page's non-deleted contacts, with the columns their documents are joined on, `n` their place in it.
   */
  rows: SqlFragment;
  /** A query of one row and column: the list's total. */
  total: SqlFragment;
  /** How the statement runs: prepared when its text is the same for every input, else planned with its values. */
  options: QueryOptions;
}

/** Whose wrappers (these ids, or a page of a list), as whom, and how much of each part (see {@link contactWrapperParts}). */
export type ContactWrapperQuery = {
  accountId: string;
  viewerId: string;
  mateLimit: number;
  actionLimit: number;
  knownCompanyIds: readonly string[];
} & ({ ids: readonly string[]; page?: undefined } | { page: ContactPageSql; ids?: undefined });

export async function contactWrapperParts(db: Db, query: ContactWrapperQuery): Promise<ContactWrapperParts> {
  return (await maybeOne<ContactWrapperParts>(db, contactWrapperPartsSql(query), query.page?.options ?? { prepare: true }))!;
}

/** {@link contactWrapperParts}' statement. */
export function contactWrapperPartsSql({
  accountId,
  ids,
  page,
  viewerId,
  mateLimit,
  actionLimit,
  knownCompanyIds,
}: ContactWrapperQuery): SqlFragment {
  const base = page
    ? sql`${sql.join([...page.ctes, sql`base AS MATERIALIZED (${page.rows})`], ', ')}`
    : sql`base AS MATERIALIZED (
          SELECT c.id, c.company_id, ${DOCUMENT_ROW_COLUMNS} FROM crm.contacts c
          WHERE c.account_id = ${accountId} AND c.id = ANY(${[...ids]}::varchar[]) AND c.deleted_at IS NULL
        )`;
  const pageParts = page
    ? sql`,
               coalesce((SELECT json_agg(b.id ORDER BY b.n) FROM base b), '[]') AS ids,
               (${page.total}) AS total`
    : sql.empty;
  const companies = sql`(SELECT DISTINCT b.company_id, b.company_id AS n FROM base b WHERE b.company_id IS NOT NULL) k`;
  const list = (part: SqlFragment) => sql`coalesce((SELECT json_agg(x) FROM (${part}) x), '[]')`;
  // wrapped: every contact the wrappers show (theirs and their companies' first ones); docs: their
  // current documents; stale: the others, read as rows by the reader.
  return sql`WITH ${base}, mates AS MATERIALIZED (${firstMembersSql(accountId, companies, mateLimit, true)}),
             wrapped AS MATERIALIZED (SELECT ${DOCUMENT_ROW_NAMES} FROM base UNION SELECT ${DOCUMENT_ROW_NAMES} FROM mates),
             docs AS MATERIALIZED (${currentDocumentsSql(accountId, sql`wrapped`)}),
             stale AS MATERIALIZED (SELECT id FROM wrapped EXCEPT SELECT id FROM docs)
        SELECT ${currentDocumentsTextSql(sql`docs`)} AS documents,
               coalesce((SELECT json_agg(s.id) FROM stale s), '[]') AS stale,
               ${list(sql`SELECT id, company_id FROM mates`)} AS mates,
               ${list(openActionRowsSql(accountId, viewerId, sql`ARRAY(SELECT id FROM wrapped)`, actionLimit))} AS actions,
               ${list(
                 companyRowsSql(
                   accountId,
                   sql`ARRAY(SELECT DISTINCT b.company_id FROM base b WHERE b.company_id IS NOT NULL AND b.company_id <> ALL(${[...knownCompanyIds]}::varchar[]))`,
                 ),
               )} AS companies,
               ${list(fieldDefinitionsSql(accountId, 'company_fields'))} AS company_fields${pageParts}`;
}
