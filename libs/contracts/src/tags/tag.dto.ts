import type { PageInfo } from '../paging/paging.request';

/** An entry of `tags.tags` or `tags.system_tags`. */
export type TagSummaryDto = { name: string; counts: number; total_count: number; action_stream_count: number };

export type TagsSummaryDto = { tags: TagSummaryDto[]; system_tags: TagSummaryDto[] };

/**
 * System tags: groups the service derives from contact data (not assignable). `starred`:
 * starred contacts; `pending_deal`: contacts that are the primary contact of a pending deal.
 */
export const SYSTEM_TAGS = ['starred', 'pending_deal'] as const;

export type SystemTag = (typeof SYSTEM_TAGS)[number];

export type ListTagsReply = PageInfo & { tags: TagSummaryDto[]; system_tags: TagSummaryDto[] };
