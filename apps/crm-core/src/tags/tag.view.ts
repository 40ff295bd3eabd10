import { SYSTEM_TAGS, type SystemTag, type TagSummaryDto } from '@crm/contracts';
import { emptyGroup, type AccountCounts, type GroupCounts } from '../summary/counts';

export function toTagDto(name: string, group: GroupCounts | undefined): TagSummaryDto {
  const g = group ?? emptyGroup();
  return { name, counts: g.counts.total_count, total_count: g.counts.total_count, action_stream_count: g.stream };
}

/** The system tags (derived groups, see SYSTEM_TAGS) from the account's counts. */
export function systemTags(counts: AccountCounts): TagSummaryDto[] {
  const groups: Record<SystemTag, GroupCounts> = { starred: counts.starred, pending_deal: counts.pendingDeal };
  return SYSTEM_TAGS.map((name) => toTagDto(name, groups[name]));
}
