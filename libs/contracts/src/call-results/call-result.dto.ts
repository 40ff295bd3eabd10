import type { TeamCount } from '../bootstrap/summary.dto';
import { ONEPAGECRM_LIST_CAP, type OnePageCrmList } from '../paging/list-format';
import type { PageInfo } from '../paging/paging.request';

/** Results a logged call may have (GET /call_results; a call's `call_result` is one of the ids). */
export const CALL_RESULTS: ReadonlyArray<{ id: string; text: string }> = [
  { id: 'interested', text: 'Interested' },
  { id: 'not_interested', text: 'Not interested' },
  { id: 'left_message', text: 'Left message' },
  { id: 'no_answer', text: 'No answer' },
  { id: 'other', text: 'Other' },
];

/**
 * One call result as OnePageCRM's GET /call_results has it: `result` is its id (kept as `id` too,
 * as every entry of ours has one), `counts` the caller's calls with it, `total_counts` the
 * account's, `team_counts` each user's (every user of the account, zeros included, in the order of
 * GET /users).
 */
export type CallResultDto = {
  id: string;
  result: string;
  text: string;
  counts: number;
  total_counts: number;
  team_counts: TeamCount[];
};

export type CallResultReply = { call_result: CallResultDto };

/** GET /call_results in the spec's paged format (the default). */
export type PagedCallResultsReply = PageInfo & { call_results: CallResultReply[] };

/** GET /call_results: paged, or OnePageCRM's bare array of `{ call_result }` (list_format `onepagecrm`; list-format.ts). */
export type ListCallResultsReply = PagedCallResultsReply | CallResultReply[];

/** GET /call_results in OnePageCRM's format: the paged entries as they are. */
export const ONEPAGECRM_CALL_RESULTS_LIST: OnePageCrmList<PagedCallResultsReply, CallResultReply> = {
  entries: (page) => page.call_results,
  cap: ONEPAGECRM_LIST_CAP,
};
