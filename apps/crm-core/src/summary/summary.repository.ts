import { Injectable } from '@nestjs/common';
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

/**
 * The counts of the summary blocks, from stored counters kept by triggers (migrations
 * 1764801000000 and 1764801100000): a few rows per group the account uses, however many contacts,
 * next actions and tagged contacts it has. And the small configuration lists they are shown beside.
 */
@Injectable()
export class SummaryRepository {
  /**
   * Every count of the account's non-deleted contacts: per status, per lead source and overall,
   * each per owner and first letter, with the system tags (starred, pending deal) and the caller's
   * action stream folded in: crm.contact_group_counters for all contacts, and
   * crm.contact_stream_counters (the same groups) for those in the caller's stream.
   */
  contactGroups(db: Db, accountId: string, callerId: string): Promise<ContactGroupRow[]> {
    return many(
      db,
      sql`WITH parts AS (
                 SELECT k.status_id, nullif(k.lead_source_id, '') AS lead_source_id, k.owner_id, k.letter, k.contacts_count AS n, 0 AS n_stream,
                        CASE WHEN k.starred THEN k.contacts_count ELSE 0 END AS n_starred, 0 AS n_starred_stream,
                        CASE WHEN k.pending THEN k.contacts_count ELSE 0 END AS n_pending, 0 AS n_pending_stream
                 FROM crm.contact_group_counters k WHERE k.account_id = ${accountId} AND k.contacts_count <> 0
                 UNION ALL
                 SELECT k.status_id, nullif(k.lead_source_id, ''), k.owner_id, k.letter, 0, k.contacts_count,
                        0, CASE WHEN k.starred THEN k.contacts_count ELSE 0 END, 0, CASE WHEN k.pending THEN k.contacts_count ELSE 0 END
                 FROM crm.contact_stream_counters k WHERE k.account_id = ${accountId} AND k.assignee_id = ${callerId} AND k.contacts_count <> 0
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

  /** Counts per tag id and letter (non-deleted contacts), with the caller's action stream: crm.tag_counters. */
  tagGroups(db: Db, accountId: string, callerId: string): Promise<TagGroupRow[]> {
    return many(
      db,
      sql`SELECT k.tag_id, k.letter, (sum(k.contacts_count) FILTER (WHERE k.stream_of = ''))::int AS n,
                 coalesce(sum(k.contacts_count) FILTER (WHERE k.stream_of = ${callerId}), 0)::int AS n_stream
          FROM crm.tag_counters k
          WHERE k.account_id = ${accountId} AND k.stream_of IN ('', ${callerId}) AND k.contacts_count <> 0
          GROUP BY k.tag_id, k.letter
          HAVING sum(k.contacts_count) FILTER (WHERE k.stream_of = '') <> 0`,
      { prepare: true },
    );
  }

  /** The action streams: contacts with a next action of anyone (`g_user` 1) and per assignee, per letter: crm.stream_counters. */
  streamGroups(db: Db, accountId: string): Promise<StreamGroupRow[]> {
    return many(
      db,
      sql`SELECT (k.assignee_id = '*')::int AS g_user, nullif(k.assignee_id, '*') AS assignee_id, k.letter, sum(k.contacts_count)::int AS n
          FROM crm.stream_counters k WHERE k.account_id = ${accountId}
          GROUP BY k.assignee_id, k.letter HAVING sum(k.contacts_count) <> 0`,
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
