import type { TeamCount } from '../bootstrap/summary.dto';
import { ONEPAGECRM_LIST_CAP, type OnePageCrmList } from '../paging/list-format';
import type { PageInfo } from '../paging/paging.request';

/** The spec's Status (account configuration), with its counts. */
export type StatusDto = {
  id: string;
  /** The read-only type key, as OnePageCRM's: `lead`, `prospect`, `customer`, `inactive`, `general` or `custom1`, `custom2`, ... */
  status: string;
  /** The display name, e.g. "Lead" (unique in the account regardless of letter case); contacts show it as their `status`. */
  text: string;
  description: string;
  /** `#RRGGBB`. */
  color: string;
  /** The caller's own contacts with it. */
  counts: number;
  total_count: number;
  /** Contacts of this status in the caller's action stream. */
  action_stream_count: number;
  team_counts: TeamCount[];
};

export type StatusReply = { status: StatusDto };

/** GET /statuses in the spec's paged format (the default). */
export type PagedStatusesReply = PageInfo & { statuses: StatusReply[] };

/** GET /statuses: paged, or OnePageCRM's bare array of `{ status }` (list_format `onepagecrm`; list-format.ts). */
export type ListStatusesReply = PagedStatusesReply | StatusReply[];

/** GET /statuses in OnePageCRM's format: the paged entries as they are. */
export const ONEPAGECRM_STATUSES_LIST: OnePageCrmList<PagedStatusesReply, StatusReply> = {
  entries: (page) => page.statuses,
  cap: ONEPAGECRM_LIST_CAP,
};
