import type { TeamCount } from '../bootstrap/summary.dto';
import { ONEPAGECRM_LIST_CAP, type OnePageCrmList } from '../paging/list-format';
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

/** GET /lead_sources in the spec's paged format (the default): each record nested under its entity key (spec conventions). */
export type PagedLeadSourcesReply = PageInfo & { lead_sources: Array<{ lead_source: LeadSourceDto }> };

/**
 * GET /lead_sources: paged, or OnePageCRM's bare array (list_format `onepagecrm`; list-format.ts),
 * whose lead sources are flat, as OnePageCRM's document has them.
 */
export type ListLeadSourcesReply = PagedLeadSourcesReply | LeadSourceDto[];

/** GET /lead_sources in OnePageCRM's format: each lead source flat, as one lead source is in `data`. */
export const ONEPAGECRM_LEAD_SOURCES_LIST: OnePageCrmList<PagedLeadSourcesReply, LeadSourceDto> = {
  entries: (page) => page.lead_sources.map((entry) => entry.lead_source),
  cap: ONEPAGECRM_LIST_CAP,
};
