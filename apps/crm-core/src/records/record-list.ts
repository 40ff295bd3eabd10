import { pageInfo, type PageInfo } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { findContact } from './record-common';
import { orderSql, timeConditions, type TimeFilterInput } from './time-filters';

export interface ListInput extends TimeFilterInput {
  page: number;
  per_page: number;
  contact_id?: string;
  sort_by?: string;
  order?: 'asc' | 'desc';
}

/**
 * One page of a record list over `table` aliased `alias` (joined to its contact `c`, deleted
 * contacts hidden): account, contact (404 when it names no contact), time filters, order, paging.
 * `defaultOrder` applies without sort_by; sort_by orders by that column (asc unless `order`).
 */
export async function listPage<Row>(
  m: EntityManager,
  accountId: string,
  input: ListInput,
  spec: {
    select: string;
    table: string;
    alias: string;
    defaultOrder: string;
    dateColumns?: ReadonlySet<string>;
    extra?: (params: unknown[]) => string[];
  },
): Promise<{ rows: Row[]; page: PageInfo }> {
  const params: unknown[] = [accountId];
  const where = [`${spec.alias}.account_id = $1`, 'c.deleted_at IS NULL'];
  if (input.contact_id !== undefined) {
    const contact = await findContact(m, accountId, input.contact_id, {
      field: 'contact_id',
    });
    params.push(contact.id);
    where.push(`${spec.alias}.contact_id = $${params.length}`);
  }
  if (spec.extra) where.push(...spec.extra(params));
  where.push(...timeConditions(input, spec.alias, spec.dateColumns ?? new Set(), params));
  const condition = where.join(' AND ');
  const [{ total }] = await m.query(
    `SELECT count(*)::int AS total FROM ${spec.table} ${spec.alias} JOIN crm.contacts c ON c.id = ${spec.alias}.contact_id WHERE ${condition}`,
    params,
  );
  const direction = orderSql(input.order, 'asc');
  const order = input.sort_by ? `${spec.alias}.${input.sort_by} ${direction} NULLS LAST, ${spec.alias}.id ${direction}` : spec.defaultOrder;
  const rows: Row[] = await m.query(
    `${spec.select} WHERE ${condition} ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
    [...params, input.per_page, (input.page - 1) * input.per_page],
  );
  return { rows, page: pageInfo(total, input.page, input.per_page) };
}

/** The contact's last activity moves to now when a note, call or meeting is logged. */
export async function touchLastActivity(m: EntityManager, contactId: string): Promise<void> {
  await m.query(
    'UPDATE crm.contacts SET last_activity_at = now() WHERE id = $1 AND (last_activity_at IS NULL OR last_activity_at < now())',
    [contactId],
  );
}
