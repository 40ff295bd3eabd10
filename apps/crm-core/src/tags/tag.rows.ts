import { SYSTEM_TAGS, type SystemTag, type TagSummaryDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { emptyGroup, type AccountCounts, type GroupCounts } from '../summary/contact-counts';

export interface TagRow {
  id: string;
  name: string;
}

/** The account's tags by name (case-insensitive), then id. */
export function tagRows(m: EntityManager, accountId: string, limit?: number, offset = 0): Promise<TagRow[]> {
  const page = limit === undefined ? '' : ` LIMIT ${Number(limit)} OFFSET ${Number(offset)}`;
  return m.query(`SELECT id, name FROM crm.tags WHERE account_id = $1 ORDER BY lower(name), id${page}`, [accountId]);
}

export function toTagDto(name: string, group: GroupCounts | undefined): TagSummaryDto {
  const g = group ?? emptyGroup();
  return { name, counts: g.counts, total_count: g.counts.total_count, action_stream_count: g.stream };
}

/** The system tags (derived groups, see SYSTEM_TAGS) from the account's counts. */
export function systemTags(counts: AccountCounts): TagSummaryDto[] {
  const groups: Record<SystemTag, GroupCounts> = { starred: counts.starred, pending_deal: counts.pendingDeal };
  return SYSTEM_TAGS.map((name) => toTagDto(name, groups[name]));
}
