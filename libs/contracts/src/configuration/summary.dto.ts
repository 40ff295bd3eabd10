/** Keys of a letter count: `1` (names not starting with a-z), then `a` to `z`. */
export const COUNT_LETTERS = [
  '1',
  'a',
  'b',
  'c',
  'd',
  'e',
  'f',
  'g',
  'h',
  'i',
  'j',
  'k',
  'l',
  'm',
  'n',
  'o',
  'p',
  'q',
  'r',
  's',
  't',
  'u',
  'v',
  'w',
  'x',
  'y',
  'z',
] as const;
export type CountLetter = (typeof COUNT_LETTERS)[number];

/**
 * The one shape of every `counts` (docs/decisions.md "Account configuration"): non-deleted
 * contacts per first letter of their sort name (keys `1`, `a`..`z`, always all 27) plus
 * `total_count`, the sum. Also the entries of `contacts_count.all` and `team_stream.all`.
 */
export type LetterCounts = Record<CountLetter, number> & { total_count: number };

/** One user's share of a group (status, lead source, action stream). */
export type TeamCount = { user_id: string; counts: LetterCounts };

/** The spec's Status (account configuration), with its counts. */
export type StatusDto = {
  id: string;
  /** The status name, e.g. "Lead". */
  status: string;
  /** Short label, e.g. "LD". */
  text: string;
  description: string;
  /** `#RRGGBB`. */
  color: string;
  counts: LetterCounts;
  total_count: number;
  /** Contacts of this status in the caller's action stream. */
  action_stream_count: number;
  team_counts: TeamCount[];
};

export type StatusReply = { status: StatusDto };

/** The spec's Lead source, with its counts. */
export type LeadSourceDto = {
  id: string;
  text: string;
  counts: LetterCounts;
  total_count: number;
  action_stream_count: number;
  team_counts: TeamCount[];
};

export type LeadSourceReply = { lead_source: LeadSourceDto };

/** An entry of `tags.tags` or `tags.system_tags`. */
export type TagSummaryDto = { name: string; counts: LetterCounts; total_count: number; action_stream_count: number };

export type TagsSummaryDto = { tags: TagSummaryDto[]; system_tags: TagSummaryDto[] };

/** The spec's five summary blocks: top-level siblings of `data` after contact changes. */
export type SummaryBlocksDto = {
  lead_sources: LeadSourceReply[];
  statuses: StatusReply[];
  tags: TagsSummaryDto;
  /** `all`: one entry, the whole account; `users`: one per user of the account. */
  contacts_count: { all: LetterCounts[]; users: Array<LetterCounts & { user_id: string }> };
  /** Contacts with a next action: `all` of anyone, `users` per assignee. */
  team_stream: { all: LetterCounts; users: TeamCount[] };
};

/**
 * System tags: groups the service derives from contact data (not assignable). `starred`:
 * starred contacts; `pending_deal`: contacts that are the primary contact of a pending deal.
 */
export const SYSTEM_TAGS = ['starred', 'pending_deal'] as const;
export type SystemTag = (typeof SYSTEM_TAGS)[number];

export function emptyLetterCounts(): LetterCounts {
  const counts = {} as LetterCounts;
  for (const letter of COUNT_LETTERS) counts[letter] = 0;
  counts.total_count = 0;
  return counts;
}
