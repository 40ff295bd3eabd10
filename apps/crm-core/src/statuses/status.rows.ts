import type { StatusDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { countFields, type GroupCounts } from '../summary/contact-counts';
import { accountTimeWhere, type TimeFilterInput } from '../records/time-filters';

export interface StatusRow {
  id: string;
  status: string;
  text: string;
  description: string;
  color: string;
  is_lead: boolean;
}

const COLUMNS = 'id, status, text, description, color, is_lead';

/** Statuses in their display order: position (the lead status first), then creation. */
export function statusRows(
  m: EntityManager,
  accountId: string,
  limit?: number,
  offset = 0,
  time: TimeFilterInput = {},
): Promise<StatusRow[]> {
  const page = limit === undefined ? '' : ` LIMIT ${Number(limit)} OFFSET ${Number(offset)}`;
  const { where, params } = accountTimeWhere(accountId, time, 's');
  return m.query(`SELECT ${COLUMNS} FROM crm.statuses s WHERE ${where} ORDER BY position, created_at, id${page}`, params);
}

/** How many rows statusRows would list without paging. */
export async function statusCount(m: EntityManager, accountId: string, time: TimeFilterInput = {}): Promise<number> {
  const { where, params } = accountTimeWhere(accountId, time, 's');
  const [{ total }] = await m.query(`SELECT count(*)::int AS total FROM crm.statuses s WHERE ${where}`, params);
  return total;
}

export async function statusRow(m: EntityManager, accountId: string, id: string, lock = false): Promise<StatusRow | undefined> {
  const [row] = await m.query(`SELECT ${COLUMNS} FROM crm.statuses WHERE account_id = $1 AND id = $2${lock ? ' FOR UPDATE' : ''}`, [
    accountId,
    id,
  ]);
  return row;
}

export function toStatusDto(row: StatusRow, group: GroupCounts | undefined, userIds: readonly string[]): StatusDto {
  return { id: row.id, status: row.status, text: row.text, description: row.description, color: row.color, ...countFields(group, userIds) };
}
