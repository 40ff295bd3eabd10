import type { PageInfo } from '../paging/paging.request';

/** Results a logged call may have (GET /call_results; a call's `call_result` is one of the ids). */
export const CALL_RESULTS: ReadonlyArray<{ id: string; text: string }> = [
  { id: 'interested', text: 'Interested' },
  { id: 'not_interested', text: 'Not interested' },
  { id: 'left_message', text: 'Left message' },
  { id: 'no_answer', text: 'No answer' },
  { id: 'other', text: 'Other' },
];

export type CallResultReply = { call_result: { id: string; text: string } };

export type ListCallResultsReply = PageInfo & { call_results: CallResultReply[] };
