import type { LeadSourceDto } from '../lead-sources/lead-source.dto';
import type { StatusReply } from '../statuses/status.dto';
import type { TagsSummaryDto } from '../tags/tag.dto';

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

/** One user's share of a group (status, lead source, action stream): a number of contacts, as OnePageCRM has it. */
export type TeamCount = { user_id: string; counts: number };

/** The spec's five summary blocks: top-level siblings of `data` after contact changes. */
export type SummaryBlocksDto = {
  /** Flat, as the spec and OnePageCRM have them. */
  lead_sources: LeadSourceDto[];
  statuses: StatusReply[];
  tags: TagsSummaryDto;
  /** `all`: one entry, the whole account; `users`: one per user of the account. */
  contacts_count: { all: LetterCounts[]; users: Array<LetterCounts & { user_id: string }> };
  /** Contacts with a next action: `all` of anyone, `users` per assignee. */
  team_stream: { all: number; users: TeamCount[] };
};

export function emptyLetterCounts(): LetterCounts {
  const counts = {} as LetterCounts;
  for (const letter of COUNT_LETTERS) counts[letter] = 0;
  counts.total_count = 0;
  return counts;
}
