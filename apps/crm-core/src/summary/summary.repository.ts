import { Injectable } from '@nestjs/common';
import { NEXT_STATUSES_SQL } from '../actions/actions.repository';
import { many, sql, type Db } from '../common/sql';
import type { LeadSourceRow } from '../lead-sources/lead-sources.repository';
import type { StatusRow } from '../statuses/statuses.repository';
import type { TagRow } from '../tags/tags.repository';

/** One grouping-set row of {@link SummaryRepository.contactGroups}. */
export interface ContactGroupRow {
  g_status: number;
  g_source: number;
  status_id: string | null;
  lead_source_id: string | null;
  owner_id: string;
  letter: string;
  n: number;
  n_stream: number;
  n_starred: number;
  n_starred_stream: number;
  n_pending: number;
  n_pending_stream: number;
}

export interface TagGroupRow {
  tag_id: string;
  letter: string;
  n: number;
  n_stream: number;
}

export interface StreamGroupRow {
  g_user: number;
  assignee_id: string | null;
  letter: string;
  n: number;
}

/** The contacts of `callerId`'s action stream, as a CTE named `stream`. */
function streamCte(accountId: string, callerId: string) {
  return sql`stream AS (SELECT DISTINCT contact_id FROM crm.actions WHERE account_id = ${accountId} AND assignee_id = ${callerId} AND status IN ${NEXT_STATUSES_SQL})`;
}

/**
 * The counts of the summary blocks (the contacts' from stored group counters, the tags' and the
 * action streams' by grouped scans), and the small configuration lists they are shown beside.
 */
@Injectable()
export class SummaryRepository {
  /**
   * Every count of the account's non-deleted contacts: per status, per lead source and overall,
   * each per owner and first letter, with the system tags (starred, pending deal) and the caller's
   * action stream folded in. The counts come from crm.contact_group_counters (migration
   * 1764801000000: at most four rows per group the account uses, kept by triggers), so they cost
   * the same at 500 or 500,000 contacts; the action stream's counts join the caller's next
   * actions to their contacts (the caller's stream, not the account).
   */
  contactGroups(db: Db, accountId: string, callerId: string): Promise<ContactGroupRow[]> {
    return many(
      db,
      sql`WITH ${streamCte(accountId, callerId)},
               parts AS (
                 SELECT k.status_id, nullif(k.lead_source_id, '') AS lead_source_id, k.owner_id, k.letter, k.contacts_count AS n, 0 AS n_stream,
                        CASE WHEN k.starred THEN k.contacts_count ELSE 0 END AS n_starred, 0 AS n_starred_stream,
                        CASE WHEN k.pending THEN k.contacts_count ELSE 0 END AS n_pending, 0 AS n_pending_stream
                 FROM crm.contact_group_counters k WHERE k.account_id = ${accountId} AND k.contacts_count <> 0
                 UNION ALL
                 SELECT c.status_id, c.lead_source_id, c.owner_id, c.letter, 0, 1, 0, c.starred::int, 0, (c.pending_deals_count > 0)::int
                 FROM stream s JOIN crm.contacts c ON c.id = s.contact_id
                 WHERE c.account_id = ${accountId} AND c.deleted_at IS NULL
               )
          SELECT GROUPING(p.status_id) AS g_status, GROUPING(p.lead_source_id) AS g_source, p.status_id, p.lead_source_id, p.owner_id, p.letter,
                 sum(p.n)::int AS n, sum(p.n_stream)::int AS n_stream, sum(p.n_starred)::int AS n_starred,
                 sum(p.n_starred_stream)::int AS n_starred_stream, sum(p.n_pending)::int AS n_pending,
                 sum(p.n_pending_stream)::int AS n_pending_stream
          FROM parts p
          GROUP BY GROUPING SETS ((p.status_id, p.owner_id, p.letter), (p.lead_source_id, p.owner_id, p.letter), (p.owner_id, p.letter))`,
      { prepare: true },
    );
  }

  /** Counts per tag id and letter (non-deleted contacts), with the caller's action stream. */
  tagGroups(db: Db, accountId: string, callerId: string): Promise<TagGroupRow[]> {
    return many(
      db,
      sql`WITH ${streamCte(accountId, callerId)}
          SELECT ct.tag_id, c.letter, count(*)::int AS n, count(s.contact_id)::int AS n_stream
          FROM crm.contact_tags ct
          JOIN crm.contacts c ON c.id = ct.contact_id
          LEFT JOIN stream s ON s.contact_id = c.id
          WHERE ct.account_id = ${accountId} AND c.account_id = ${accountId} AND c.deleted_at IS NULL
          GROUP BY ct.tag_id, c.letter`,
      { prepare: true },
    );
  }

  /** The action streams: contacts with a next action of anyone and per assignee, per letter. */
  streamGroups(db: Db, accountId: string): Promise<StreamGroupRow[]> {
    return many(
      db,
      sql`SELECT GROUPING(a.assignee_id) AS g_user, a.assignee_id, c.letter, count(DISTINCT c.id)::int AS n
          FROM crm.actions a
          JOIN crm.contacts c ON c.id = a.contact_id
          WHERE a.account_id = ${accountId} AND a.status IN ${NEXT_STATUSES_SQL} AND c.account_id = ${accountId} AND c.deleted_at IS NULL
          GROUP BY GROUPING SETS ((a.assignee_id, c.letter), (c.letter))`,
      { prepare: true },
    );
  }

  /** The account's user ids in the order of GET /users. */
  async userIds(db: Db, accountId: string): Promise<string[]> {
    const rows = await many<{ id: string }>(
      db,
      sql`SELECT id FROM crm.users WHERE account_id = ${accountId} ORDER BY last_name, first_name, id`,
      { prepare: true },
    );
    return rows.map((r) => r.id);
  }

  /** Statuses in their display order: position (the lead status first), then creation. */
  statuses(db: Db, accountId: string): Promise<StatusRow[]> {
    return many(
      db,
      sql`SELECT id, status, text, description, color, is_lead FROM crm.statuses WHERE account_id = ${accountId} ORDER BY position, created_at, id`,
      { prepare: true },
    );
  }

  /** Lead sources in their display order: position, then creation. */
  leadSources(db: Db, accountId: string): Promise<LeadSourceRow[]> {
    return many(db, sql`SELECT id, text FROM crm.lead_sources WHERE account_id = ${accountId} ORDER BY position, created_at, id`, {
      prepare: true,
    });
  }

  /** The account's tags by name (case-insensitive), then id. */
  tags(db: Db, accountId: string): Promise<TagRow[]> {
    return many(db, sql`SELECT id, name FROM crm.tags WHERE account_id = ${accountId} ORDER BY lower(name), id`, { prepare: true });
  }
}
