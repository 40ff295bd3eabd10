import { ACTION_COLUMNS, NEXT_STATUSES_SQL, urgencyRank, type ActionRow } from '../actions/actions.repository';
import { CALL_SELECT, type CallRow } from '../calls/calls.repository';
import { many, sql, type Db, type SqlFragment } from '../common/sql';
import { DEAL_SELECT, type DealRow } from '../deals/deals.repository';
import { MEETING_SELECT, type MeetingRow } from '../meetings/meetings.repository';
import { NOTE_SELECT, type NoteRow } from '../notes/notes.repository';
import { attachmentsJsonSql } from '../records/attachments.repository';

/**
 * The records that contact and company responses embed, read per contact (or company) with a
 * LIMIT inside a LATERAL join: each array costs at most `limit` rows, whatever the contact holds.
 * The SELECT lists are the records modules' own (their serializers), spliced as trusted text.
 */

const deals = sql.raw(DEAL_SELECT);

/** The rows of each record type a contact embeds. */
export interface RecordRows {
  deals: DealRow;
  notes: NoteRow;
  calls: CallRow;
  meetings: MeetingRow;
}

/** Each type's SELECT (ending in FROM/JOINs), its table alias, and its order (newest first). */
const PER_CONTACT: Record<keyof RecordRows, { select: SqlFragment; alias: string; order: SqlFragment }> = {
  deals: { select: deals, alias: 'd', order: sql`d.date DESC, d.created_at DESC, d.id DESC` },
  notes: { select: sql.raw(NOTE_SELECT), alias: 'n', order: sql`n.date DESC, n.created_at DESC, n.id DESC` },
  calls: { select: sql.raw(CALL_SELECT), alias: 'l', order: sql`l.call_time_int DESC, l.id DESC` },
  meetings: { select: sql.raw(MEETING_SELECT), alias: 'g', order: sql`g.meeting_time_int DESC, g.id DESC` },
};

/** Records of `type` of each of `contactIds`, newest first, at most `limit` each, in the order of the ids. */
export function recordRowsOfContacts<K extends keyof RecordRows>(
  db: Db,
  type: K,
  accountId: string,
  contactIds: readonly string[],
  limit: number,
): Promise<Array<RecordRows[K]>> {
  const { select, alias, order } = PER_CONTACT[type];
  const t = sql.raw(alias);
  return many<RecordRows[K]>(
    db,
    sql`SELECT x.* FROM unnest(${[...contactIds]}::varchar[]) WITH ORDINALITY AS k(contact_id, n)
        CROSS JOIN LATERAL (${select} WHERE ${t}.account_id = ${accountId} AND ${t}.contact_id = k.contact_id ORDER BY ${order} LIMIT ${limit}) x
        ORDER BY k.n`,
    { prepare: true },
  );
}

/**
 * Pending deals of each company (deals whose primary contact, not deleted, belongs to it: their
 * stored company_id), newest date first, at most `limit` each: a range of deals_company_idx.
 */
export function pendingDealRowsOfCompanies(
  db: Db,
  accountId: string,
  companyIds: readonly string[],
  limit: number,
): Promise<Array<DealRow & { k_company_id: string }>> {
  return many<DealRow & { k_company_id: string }>(
    db,
    sql`SELECT x.*, k.company_id AS k_company_id FROM unnest(${[...companyIds]}::varchar[]) WITH ORDINALITY AS k(company_id, n)
        CROSS JOIN LATERAL (${deals}
          WHERE d.account_id = ${accountId} AND d.company_id = k.company_id AND d.status = 'pending'
          ORDER BY d.date DESC, d.created_at DESC, d.id DESC LIMIT ${limit}) x
        ORDER BY k.n`,
    { prepare: true },
  );
}

/** The attachments (JSON) of each record of the contacts that has a pinned one. */
export function pinnedAttachmentRows(
  db: Db,
  accountId: string,
  contactIds: readonly string[],
): Promise<Array<{ contact_id: string; attachment: unknown }>> {
  return many<{ contact_id: string; attachment: unknown }>(
    db,
    sql`SELECT p.contact_id, ${attachmentsJsonSql('p.record_id')} AS attachment
        FROM (SELECT DISTINCT contact_id, record_id FROM crm.attachments
              WHERE account_id = ${accountId} AND contact_id = ANY(${[...contactIds]}::varchar[]) AND pinned) p`,
    { prepare: true },
  );
}

const actionColumns = (alias: string) => sql.raw(ACTION_COLUMNS.map((c) => `${alias}.${c}`).join(', '));

/** An open action; queued ones carry their rank in the viewer's queue. */
export type OpenActionRow = ActionRow & { queue_rank: string | number | null };

/**
 * The open actions a wrapper shows as `userId` sees them: every assignee's next action, and the
 * user's queued actions that are among the first `limit` of the queue (by position) or among the
 * first `limit` dated before the user's next action. Ordered: the user's first, then by position.
 */
export function openActionRows(
  db: Db,
  accountId: string,
  userId: string,
  contactIds: readonly string[],
  limit: number,
): Promise<OpenActionRow[]> {
  return many<OpenActionRow>(db, openActionRowsSql(accountId, userId, sql`${[...contactIds]}::varchar[]`, limit), { prepare: true });
}

/** {@link openActionRows}' statement, for the contacts of `contactIds` (a varchar[] expression), to run alone or inside another. */
export function openActionRowsSql(accountId: string, userId: string, contactIds: SqlFragment, limit: number): SqlFragment {
  return sql`WITH open AS (
          SELECT ${actionColumns('a')} FROM crm.actions a
          WHERE a.account_id = ${accountId} AND a.contact_id = ANY(${contactIds}) AND a.status <> 'done'
            AND (a.status IN ${NEXT_STATUSES_SQL} OR a.assignee_id = ${userId})
        ), nx AS (
          -- the user's next action on each contact (at most one: actions_next_uq), joined by hash, not looked up per queued row
          SELECT DISTINCT ON (n.contact_id) n.contact_id, n.date FROM open n
          WHERE n.assignee_id = ${userId} AND n.status IN ${NEXT_STATUSES_SQL}
          ORDER BY n.contact_id, n.position DESC, n.id DESC
        ), queued AS (
          SELECT o.*, row_number() OVER (PARTITION BY o.contact_id ORDER BY o.position, o.date NULLS LAST, o.exact_time NULLS LAST, o.id) AS queue_rank,
                 coalesce(o.date < nx.date, false) AS conflicts
          FROM open o
          LEFT JOIN nx ON nx.contact_id = o.contact_id
          WHERE o.status NOT IN ${NEXT_STATUSES_SQL}
        ), ranked AS (
          SELECT q.*, row_number() OVER (PARTITION BY q.contact_id, q.conflicts ORDER BY q.queue_rank) AS conflict_rank FROM queued q
        )
        SELECT * FROM (
          SELECT ${actionColumns('o')}, NULL::bigint AS queue_rank FROM open o WHERE o.status IN ${NEXT_STATUSES_SQL}
          UNION ALL
          SELECT ${actionColumns('r')}, r.queue_rank FROM ranked r WHERE r.queue_rank <= ${limit} OR (r.conflicts AND r.conflict_rank <= ${limit})
        ) x
        ORDER BY (x.assignee_id = ${userId}) DESC, x.position, ${urgencyRank('x')}, x.date NULLS LAST, x.exact_time NULLS LAST, x.id`;
}
