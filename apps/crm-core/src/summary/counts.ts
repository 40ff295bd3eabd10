import { COUNT_LETTERS, emptyLetterCounts, type CountLetter, type LetterCounts, type TeamCount } from '@crm/contracts';
import type { ContactGroupRow, StreamGroupRow, TagGroupRow } from './summary.repository';

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

export interface StreamCounts {
  all: LetterCounts;
  byUser: Map<string, LetterCounts>;
}

export function emptyGroup(): GroupCounts {
  return { counts: emptyLetterCounts(), stream: 0, team: new Map() };
}

/** The count letter of a stored `letter` column: a to z, anything else counts under '1'. */
export function letterOf(value: unknown): CountLetter {
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

/** Folds the grouping-set rows of one contacts scan into the per-status, per-source and overall counts. */
export function accountCountsOf(rows: readonly ContactGroupRow[]): AccountCounts {
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

/** Counts per tag id. */
export function tagCountsOf(rows: readonly TagGroupRow[]): Map<string, GroupCounts> {
  const byTag = new Map<string, GroupCounts>();
  for (const row of rows) add(groupIn(byTag, row.tag_id), '', letterOf(row.letter), row.n, row.n_stream);
  return byTag;
}

/** The action streams of everyone (`all`) and per assignee. */
export function streamCountsOf(rows: readonly StreamGroupRow[]): StreamCounts {
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

/** One entry per user of the account (zeros included), in the order of GET /users: letter counts (contacts_count). */
export function teamLetterCounts(
  userIds: readonly string[],
  team: Map<string, LetterCounts>,
): Array<{ user_id: string; counts: LetterCounts }> {
  return userIds.map((user_id) => ({ user_id, counts: team.get(user_id) ?? emptyLetterCounts() }));
}

/** One entry per user of the account (zeros included), in the order of GET /users: the user's number of contacts. */
export function teamCounts(userIds: readonly string[], team: Map<string, LetterCounts>): TeamCount[] {
  return userIds.map((user_id) => ({ user_id, counts: team.get(user_id)?.total_count ?? 0 }));
}

/**
 * The record fields every counted configuration item shows, integers as OnePageCRM has them:
 * `counts` the caller's own contacts in the group, `total_count` the account's, `team_counts`
 * each user's.
 */
export function countFields(
  group: GroupCounts | undefined,
  userIds: readonly string[],
  callerId: string,
): { counts: number; total_count: number; action_stream_count: number; team_counts: TeamCount[] } {
  const g = group ?? emptyGroup();
  return {
    counts: g.team.get(callerId)?.total_count ?? 0,
    total_count: g.counts.total_count,
    action_stream_count: g.stream,
    team_counts: teamCounts(userIds, g.team),
  };
}
