import { COUNT_LETTERS, emptyLetterCounts, type CountLetter, type LetterCounts, type TeamCount } from '@crm/contracts';
import type { EntityManager } from 'typeorm';

/** Statuses of a next action: a contact with one for a user is in that user's action stream. */
export const NEXT_ACTION_STATUSES_SQL = `('date', 'date_time', 'waiting')`;

/** Counts of one group of contacts (a status, a lead source, a tag, ...). */
export interface GroupCounts {
  counts: LetterCounts;
  /** Those in the caller's action stream. */
  stream: number;
  /** Per owner. */
  team: Map<string, LetterCounts>;
}

export interface AccountCounts {
  byStatus: Map<string, GroupCounts>;
  byLeadSource: Map<string, GroupCounts>;
  /** Every non-deleted contact, per owner in `team`. */
  all: GroupCounts;
  starred: GroupCounts;
  pendingDeal: GroupCounts;
}

export function emptyGroup(): GroupCounts {
  return { counts: emptyLetterCounts(), stream: 0, team: new Map() };
}

function letterOf(value: unknown): CountLetter {
  const letter = typeof value === 'string' ? value.trim().toLowerCase() : '';
  return (COUNT_LETTERS as readonly string[]).includes(letter) ? (letter as CountLetter) : '1';
}

function add(group: GroupCounts, owner: string, letter: CountLetter, n: number, stream: number): void {
  if (n === 0) return;
  group.counts[letter] += n;
  group.counts.total_count += n;
  group.stream += stream;
  let mine = group.team.get(owner);
  if (!mine) group.team.set(owner, (mine = emptyLetterCounts()));
  mine[letter] += n;
  mine.total_count += n;
}

function groupIn(map: Map<string, GroupCounts>, key: string): GroupCounts {
  let group = map.get(key);
  if (!group) map.set(key, (group = emptyGroup()));
  return group;
}

/** The contacts of the caller's action stream, as a CTE named `stream` (params: $1 account, $2 caller). */
const STREAM_CTE = `stream AS (SELECT DISTINCT contact_id FROM crm.actions WHERE account_id = $1 AND assignee_id = $2 AND status IN ${NEXT_ACTION_STATUSES_SQL})`;

interface ContactGroupRow {
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

/**
 * Every count of the account's non-deleted contacts in one scan: per status, per lead source
 * and overall, each per owner and first letter, with the caller's action stream and the system
 * tags (starred, pending deal) folded in as filtered aggregates.
 */
export async function accountCounts(m: EntityManager, accountId: string, callerId: string): Promise<AccountCounts> {
  const rows: ContactGroupRow[] = await m.query(
    `WITH ${STREAM_CTE},
          pending AS (SELECT DISTINCT contact_id FROM crm.deals WHERE account_id = $1 AND status = 'pending')
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
     WHERE c.account_id = $1 AND c.deleted_at IS NULL
     GROUP BY GROUPING SETS ((c.status_id, c.owner_id, c.letter), (c.lead_source_id, c.owner_id, c.letter), (c.owner_id, c.letter))`,
    [accountId, callerId],
  );
  const result: AccountCounts = {
    byStatus: new Map(),
    byLeadSource: new Map(),
    all: emptyGroup(),
    starred: emptyGroup(),
    pendingDeal: emptyGroup(),
  };
  for (const row of rows) {
    const letter = letterOf(row.letter);
    if (row.g_status === 0 && row.status_id) {
      add(groupIn(result.byStatus, row.status_id), row.owner_id, letter, row.n, row.n_stream);
    } else if (row.g_source === 0) {
      if (row.lead_source_id) add(groupIn(result.byLeadSource, row.lead_source_id), row.owner_id, letter, row.n, row.n_stream);
    } else {
      add(result.all, row.owner_id, letter, row.n, row.n_stream);
      add(result.starred, row.owner_id, letter, row.n_starred, row.n_starred_stream);
      add(result.pendingDeal, row.owner_id, letter, row.n_pending, row.n_pending_stream);
    }
  }
  return result;
}

/** Counts per tag id (non-deleted contacts), with the caller's action stream. */
export async function tagCounts(m: EntityManager, accountId: string, callerId: string): Promise<Map<string, GroupCounts>> {
  const rows: Array<{ tag_id: string; letter: string; n: number; n_stream: number }> = await m.query(
    `WITH ${STREAM_CTE}
     SELECT ct.tag_id, c.letter, count(*)::int AS n, count(s.contact_id)::int AS n_stream
     FROM crm.contact_tags ct
     JOIN crm.contacts c ON c.id = ct.contact_id
     LEFT JOIN stream s ON s.contact_id = c.id
     WHERE ct.account_id = $1 AND c.account_id = $1 AND c.deleted_at IS NULL
     GROUP BY ct.tag_id, c.letter`,
    [accountId, callerId],
  );
  const byTag = new Map<string, GroupCounts>();
  for (const row of rows) add(groupIn(byTag, row.tag_id), '', letterOf(row.letter), row.n, row.n_stream);
  return byTag;
}

/** The action streams: contacts with a next action of anyone (`all`) and per assignee. */
export async function streamCounts(m: EntityManager, accountId: string): Promise<{ all: LetterCounts; byUser: Map<string, LetterCounts> }> {
  const rows: Array<{ g_user: number; assignee_id: string | null; letter: string; n: number }> = await m.query(
    `SELECT GROUPING(a.assignee_id) AS g_user, a.assignee_id, c.letter, count(DISTINCT c.id)::int AS n
     FROM crm.actions a
     JOIN crm.contacts c ON c.id = a.contact_id
     WHERE a.account_id = $1 AND a.status IN ${NEXT_ACTION_STATUSES_SQL} AND c.account_id = $1 AND c.deleted_at IS NULL
     GROUP BY GROUPING SETS ((a.assignee_id, c.letter), (c.letter))`,
    [accountId],
  );
  const all = emptyLetterCounts();
  const byUser = new Map<string, LetterCounts>();
  for (const row of rows) {
    const letter = letterOf(row.letter);
    let target = all;
    if (row.g_user === 0) {
      const user = row.assignee_id ?? '';
      target = byUser.get(user) ?? emptyLetterCounts();
      byUser.set(user, target);
    }
    target[letter] += row.n;
    target.total_count += row.n;
  }
  return { all, byUser };
}

/** The account's user ids in the order of GET /users. */
export async function accountUserIds(m: EntityManager, accountId: string): Promise<string[]> {
  const rows: Array<{ id: string }> = await m.query('SELECT id FROM crm.users WHERE account_id = $1 ORDER BY last_name, first_name, id', [
    accountId,
  ]);
  return rows.map((r) => r.id);
}

/** One entry per user of the account (zeros included), in the order of GET /users. */
export function teamCounts(userIds: readonly string[], team: Map<string, LetterCounts>): TeamCount[] {
  return userIds.map((user_id) => ({ user_id, counts: team.get(user_id) ?? emptyLetterCounts() }));
}

/** The record fields every counted configuration item shows. */
export function countFields(
  group: GroupCounts | undefined,
  userIds: readonly string[],
): { counts: LetterCounts; total_count: number; action_stream_count: number; team_counts: TeamCount[] } {
  const g = group ?? emptyGroup();
  return { counts: g.counts, total_count: g.counts.total_count, action_stream_count: g.stream, team_counts: teamCounts(userIds, g.team) };
}
