import type { LeadSourceDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { countFields, type GroupCounts } from '../summary/contact-counts';
import { accountTimeWhere, type TimeFilterInput } from '../records/time-filters';

export interface LeadSourceRow {
  id: string;
  text: string;
}

/** Lead sources in their display order: position, then creation. */
export function leadSourceRows(
  m: EntityManager,
  accountId: string,
  limit?: number,
  offset = 0,
  time: TimeFilterInput = {},
): Promise<LeadSourceRow[]> {
  const page = limit === undefined ? '' : ` LIMIT ${Number(limit)} OFFSET ${Number(offset)}`;
  const { where, params } = accountTimeWhere(accountId, time, 'l');
  return m.query(`SELECT id, text FROM crm.lead_sources l WHERE ${where} ORDER BY position, created_at, id${page}`, params);
}

/** How many rows leadSourceRows would list without paging. */
export async function leadSourceCount(m: EntityManager, accountId: string, time: TimeFilterInput = {}): Promise<number> {
  const { where, params } = accountTimeWhere(accountId, time, 'l');
  const [{ total }] = await m.query(`SELECT count(*)::int AS total FROM crm.lead_sources l WHERE ${where}`, params);
  return total;
}

export async function leadSourceRow(m: EntityManager, accountId: string, id: string, lock = false): Promise<LeadSourceRow | undefined> {
  const [row] = await m.query(`SELECT id, text FROM crm.lead_sources WHERE account_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [
    accountId,
    id,
  ]);
  return row;
}

export function toLeadSourceDto(row: LeadSourceRow, group: GroupCounts | undefined, userIds: readonly string[]): LeadSourceDto {
  return { id: row.id, text: row.text, ...countFields(group, userIds) };
}
