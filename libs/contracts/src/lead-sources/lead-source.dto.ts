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

/** One lead source: flat in `data`, as the spec and OnePageCRM have it (not wrapped). */
export type LeadSourceReply = LeadSourceDto;

/** A list nests each record under its entity key (spec conventions). */
export type ListLeadSourcesReply = PageInfo & { lead_sources: Array<{ lead_source: LeadSourceDto }> };
