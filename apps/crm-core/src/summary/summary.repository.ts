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
 * The counts of the summary blocks: grouped scans of an account's contacts whatever its size
 * (one per block kind), and the small configuration lists they are shown beside.
 */
@Injectable()
export class SummaryRepository {
  /**
   * Every count of the account's non-deleted contacts in one scan: per status, per lead source
   * and overall, each per owner and first letter, with the caller's action stream and the system
   * tags (starred, pending deal) folded in as filtered aggregates.
   */
  contactGroups(db: Db, accountId: string, callerId: string): Promise<ContactGroupRow[]> {
    return many(
      db,
      sql`WITH ${streamCte(accountId, callerId)},
               pending AS (SELECT DISTINCT contact_id FROM crm.deals WHERE account_id = ${accountId} AND status = 'pending')
          SELECT GROUPING(c.status_id) AS g_status, GROUPING(c.lead_source_id) AS g_source, c.status_id, c.lead_source_id, c.owner_id, c.letter,
                 count(*)::int AS n,
                 count(s.contact_id)::int AS n_stream,
                 (count(*) FILTER (WHERE c.starred))::int AS n_starred,
                 (count(s.contact_id) FILTER (WHERE c.starred))::int AS n_starred_stream,
                 count(p.contact_id)::int AS n_pending,
                 (count(p.contact_id) FILTER (WHERE s.contact_id IS NOT NULL))::int AS n_pending_stream
          FROM crm.contacts c
          LEFT JOIN stream s ON s.contact_id = c.id
          LEFT JOIN pending p ON p.contact_id = c.id
          WHERE c.account_id = ${accountId} AND c.deleted_at IS NULL
          GROUP BY GROUPING SETS ((c.status_id, c.owner_id, c.letter), (c.lead_source_id, c.owner_id, c.letter), (c.owner_id, c.letter))`,
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
