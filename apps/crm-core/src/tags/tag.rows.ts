import { SYSTEM_TAGS, type SystemTag, type TagSummaryDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { emptyGroup, type AccountCounts, type GroupCounts } from '../summary/contact-counts';
import { accountTimeWhere, type TimeFilterInput } from '../records/time-filters';

export interface TagRow {
  id: string;
  name: string;
}

/** The account's tags by name (case-insensitive), then id. */
export function tagRows(m: EntityManager, accountId: string, limit?: number, offset = 0, time: TimeFilterInput = {}): Promise<TagRow[]> {
  const page = limit === undefined ? '' : ` LIMIT ${Number(limit)} OFFSET ${Number(offset)}`;
  const { where, params } = accountTimeWhere(accountId, time, 't');
  return m.query(`SELECT id, name FROM crm.tags t WHERE ${where} ORDER BY lower(name), id${page}`, params);
}

/** How many rows tagRows would list without paging. */
export async function tagCount(m: EntityManager, accountId: string, time: TimeFilterInput = {}): Promise<number> {
  const { where, params } = accountTimeWhere(accountId, time, 't');
  const [{ total }] = await m.query(`SELECT count(*)::int AS total FROM crm.tags t WHERE ${where}`, params);
  return total;
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
