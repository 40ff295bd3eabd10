import type { TeamCount } from '../bootstrap/summary.dto';
import type { PageInfo } from '../paging/paging.request';

/** The spec's Lead source, with its counts. */
export type LeadSourceDto = {
  id: string;
  text: string;
  /** The caller's own contacts with it. */
  counts: number;
  total_count: number;
  action_stream_count: number;
  team_counts: TeamCount[];
};

export type LeadSourceReply = { lead_source: LeadSourceDto };

export type ListLeadSourcesReply = PageInfo & { lead_sources: LeadSourceReply[] };
