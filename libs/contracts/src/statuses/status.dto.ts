import type { TeamCount } from '../bootstrap/summary.dto';
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

export type ListStatusesReply = PageInfo & { statuses: StatusReply[] };
