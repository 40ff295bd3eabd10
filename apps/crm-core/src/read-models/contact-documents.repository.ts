import { execute, many, one, sql, type Db, type SqlFragment } from '../common/sql';
import { renderContactDocument, type CurrentDocumentRow } from './contact.document';
import { contactRowsSql, type ContactRow } from './contact.repository';
import { toContactDto } from './contact.view';
import { fieldDefinitions } from './fields.repository';

/**
 * crm.contact_documents (migration 1764800800000): each contact's rendered `contact` object,
 * current when it was rendered from the contact's `doc_version` and its account's epoch (both kept
 * by triggers). Reads use a document only when it is current; the projector
 * (contact-documents.projector.ts) renders what the triggers queue.
 */

/** The account's document epoch (0 until its first bump), as an SQL expression. */
export function documentEpochSql(accountId: string): SqlFragment {
  return sql`coalesce((SELECT e.epoch FROM crm.document_epochs e WHERE e.account_id = ${accountId}), 0)`;
}

/**
 * The columns of crm.contacts that {@link currentDocumentsSql} needs of each contact besides `id`
 * and `company_id`: a reader selects them where it finds the contacts anyway (a page's rows, the
 * contacts by id, a company's first contacts), so that the documents are joined to those rows
 * instead of looking every contact up again.
 */
const DOCUMENT_ROW_FIELDS = ['owner_id', 'modified_at', 'doc_version', 'deals_count', 'pending_deals_count', 'pending_deals_amount'];

/** {@link DOCUMENT_ROW_FIELDS} of the contacts as `alias`. */
export function documentRowColumns(alias: string): SqlFragment {
  return sql.raw(DOCUMENT_ROW_FIELDS.map((field) => `${alias}.${field}`).join(', '));
}

/** {@link DOCUMENT_ROW_FIELDS} of crm.contacts as `c`. */
export const DOCUMENT_ROW_COLUMNS = documentRowColumns('c');

/** `id`, `company_id` and {@link DOCUMENT_ROW_FIELDS}, as a reader's CTE has them (unqualified). */
export const DOCUMENT_ROW_NAMES = sql.raw(['id', 'company_id', ...DOCUMENT_ROW_FIELDS].join(', '));

/**
 * The current documents of the contacts of `rows` (a relation of non-deleted contacts of the
 * account with {@link DOCUMENT_ROW_NAMES}): one row per contact that has one, with what a reader
 * needs beside the text (the live counters; `modified_at` as JSON gives it).
 */
export function currentDocumentsSql(accountId: string, rows: SqlFragment): SqlFragment {
  return sql`SELECT r.id, r.owner_id, coalesce(r.company_id, '') AS company_id, to_json(r.modified_at) #>> '{}' AS modified_at,
               r.deals_count, r.pending_deals_count, r.pending_deals_amount::float8 AS pending_deals_amount, d.head, d.tail
        FROM ${rows} r
        -- by primary key, contact by contact (LIMIT 1 keeps the planner from hashing the whole table:
        -- it cannot tell how few rows \`rows\` has)
        CROSS JOIN LATERAL (SELECT d.head, d.tail FROM crm.contact_documents d
                            WHERE d.contact_id = r.id AND d.account_id = ${accountId} AND d.doc_version = r.doc_version
                              AND d.epoch = ${documentEpochSql(accountId)} LIMIT 1) d`;
}

/**
 * Rows of {@link currentDocumentsSql} as one text value (`string_agg` of the columns joined by
 * U+0001, rows by U+0002): the documents arrive as they are stored, not as JSON strings to
 * unescape. Neither character can occur in the columns: JSON text escapes control characters, and
 * ids, timestamps and numbers have none. Every column is NOT NULL (concat_ws would skip a null and
 * shift the fields after it).
 */
export function currentDocumentsTextSql(documents: SqlFragment): SqlFragment {
  return sql`(SELECT string_agg(concat_ws(E'\\x01', d.id, d.owner_id, d.company_id, d.modified_at, d.deals_count, d.pending_deals_count,
                                          d.pending_deals_amount, d.head, d.tail), E'\\x02')
          FROM ${documents} d)`;
}

/** {@link currentDocumentsTextSql}'s text as rows (none for null). */
export function currentDocumentRows(text: string | null): CurrentDocumentRow[] {
  if (!text) return [];
  return text.split('\u0002').map((line) => {
    const [id, owner_id, company_id, modified_at, deals, pending, amount, head, tail] = line.split('\u0001');
    return {
      id,
      owner_id,
      company_id,
      modified_at,
      deals_count: Number(deals),
      pending_deals_count: Number(pending),
      pending_deals_amount: Number(amount),
      head,
      tail,
    };
  });
}

/**
 * Renders and stores the documents of the account's non-deleted contacts among `ids` whose stored
 * document is not current; returns how many it stored. The rows, their versions and the epoch
 * are read in one statement (one snapshot), so a document is never stored under a version it was
 * not rendered from. A document rendered from an older snapshot than the one stored does not
 * replace it. Run it on committed data only (the projector): a document rendered inside a
 * transaction that rolls back would carry a version a later change reuses.
 */
export async function refreshContactDocuments(db: Db, accountId: string, ids: readonly string[]): Promise<number> {
  if (ids.length === 0) return 0;
  const rows = await many<ContactRow & { epoch: string }>(
    db,
    sql`SELECT r.*, e.epoch::text AS epoch
        FROM (${contactRowsSql(accountId, sql`${[...ids]}::varchar[]`, false, false)}) r
        CROSS JOIN (SELECT ${documentEpochSql(accountId)} AS epoch) e
        WHERE NOT EXISTS (SELECT 1 FROM crm.contact_documents d
                          WHERE d.contact_id = r.id AND d.doc_version = r.doc_version::bigint AND d.epoch = e.epoch)`,
    { prepare: true },
  );
  if (rows.length === 0) return 0;
  const needsFields = rows.some((row) => row.custom_fields && Object.keys(row.custom_fields).length > 0);
  const definitions = needsFields ? await fieldDefinitions(db, accountId, 'custom_fields') : [];
  const rendered = rows.map((row) => renderContactDocument(toContactDto(row, definitions)));
  return execute(
    db,
    sql`INSERT INTO crm.contact_documents AS d (contact_id, account_id, doc_version, epoch, head, tail)
        SELECT u.contact_id, ${accountId}, u.doc_version, u.epoch, u.head, u.tail FROM unnest(${rows.map((r) => r.id)}::varchar[], ${rows.map((r) => r.doc_version)}::bigint[],
                               ${rows.map((r) => r.epoch)}::bigint[], ${rendered.map((r) => r.head)}::text[],
                               ${rendered.map((r) => r.tail)}::text[]) AS u(contact_id, doc_version, epoch, head, tail)
        -- a contact deleted for good since it was read has no document (a delete that commits
        -- between this check and this transaction's commit leaves one nobody reads)
        WHERE EXISTS (SELECT 1 FROM crm.contacts c WHERE c.id = u.contact_id)
        ON CONFLICT (contact_id) DO UPDATE SET doc_version = excluded.doc_version, epoch = excluded.epoch, head = excluded.head, tail = excluded.tail
        WHERE (excluded.epoch, excluded.doc_version) > (d.epoch, d.doc_version)`,
    { prepare: true },
  );
}

/**
 * Takes up to `limit` entries off the queue, oldest first (rows other replicas hold are skipped);
 * a contact queued twice comes once. Run in a transaction with their rendering, so that a failure
 * puts them back.
 */
export async function takeQueuedContacts(db: Db, limit: number): Promise<Array<{ contact_id: string; account_id: string }>> {
  const rows = await many<{ contact_id: string; account_id: string }>(
    db,
    sql`DELETE FROM crm.contact_document_queue q
        WHERE q.id IN (SELECT id FROM crm.contact_document_queue ORDER BY id LIMIT ${limit} FOR UPDATE SKIP LOCKED)
        RETURNING q.contact_id, q.account_id`,
    { prepare: true },
  );
  return [...new Map(rows.map((row) => [row.contact_id, row])).values()];
}

/**
 * A sweep of an account's documents: its epoch and its place in (created_at, id) order. The place's
 * time is PostgreSQL's text of it: a Date would cut microseconds, and contacts written in one
 * statement share one time.
 */
export interface SweepRow {
  account_id: string;
  epoch: string;
  after_created: string | null;
  after_id: string;
}

/** One pending sweep, locked (another replica's is skipped); run in a transaction with its step. */
export async function lockSweep(db: Db): Promise<SweepRow | undefined> {
  const [row] = await many<SweepRow>(
    db,
    sql`SELECT account_id, epoch::text AS epoch, after_created::text AS after_created, after_id FROM crm.contact_document_sweeps
        LIMIT 1 FOR UPDATE SKIP LOCKED`,
    { prepare: true },
  );
  return row;
}

/** A contact's place in a sweep. */
export interface SweepPlace {
  id: string;
  created_at: string;
}

/** The next `limit` non-deleted contacts of the sweep's account after its place, by (created_at, id) (contacts_created_idx). */
export function sweepBatch(db: Db, sweep: SweepRow, limit: number): Promise<SweepPlace[]> {
  const after =
    sweep.after_created === null ? sql.empty : sql`AND (created_at, id) > (${sweep.after_created}::timestamptz, ${sweep.after_id})`;
  return many(
    db,
    sql`SELECT id, created_at::text AS created_at FROM crm.contacts
        WHERE account_id = ${sweep.account_id} AND deleted_at IS NULL ${after}
        ORDER BY created_at, id LIMIT ${limit}`,
    { prepare: true },
  );
}

/** Moves the sweep's place on, or ends it (`after` undefined: no contact left). */
export async function advanceSweep(db: Db, sweep: SweepRow, after: SweepPlace | undefined): Promise<void> {
  if (after === undefined)
    await execute(db, sql`DELETE FROM crm.contact_document_sweeps WHERE account_id = ${sweep.account_id}`, { prepare: true });
  else
    await execute(
      db,
      sql`UPDATE crm.contact_document_sweeps SET after_created = ${after.created_at}::timestamptz, after_id = ${after.id}
          WHERE account_id = ${sweep.account_id}`,
      { prepare: true },
    );
}

/** What the projector has left: queue entries and account sweeps (read at a metrics scrape). */
export function contactDocumentBacklog(db: Db): Promise<{ queued: number; sweeps: number }> {
  return one(
    db,
    sql`SELECT (SELECT count(*)::int FROM crm.contact_document_queue) AS queued,
               (SELECT count(*)::int FROM crm.contact_document_sweeps) AS sweeps`,
  );
}
