import { Injectable } from '@nestjs/common';
import {
  accountTimeWhere,
  countAndPage,
  escapeLike,
  execute,
  many,
  maybeOne,
  one,
  pageLimit,
  sql,
  type Db,
  type TimeFilterInput,
} from '../common/sql';
import type { ItemFields } from './predefined-item.rules';

/** crm.predefined_items as the service reads it (money as numeric text). */
export interface PredefinedItemRow {
  id: string;
  name: string;
  description: string;
  cost: string;
  price: string;
  position: number;
  group_id: string | null;
  created_at: Date;
  modified_at: Date;
}

/** crm.predefined_item_groups with its members' ids (group order) and their sums. */
export interface PredefinedItemGroupRow {
  id: string;
  name: string;
  position: number;
  item_ids: string[];
  cost: string;
  price: string;
  created_at: Date;
  modified_at: Date;
}

const ITEM_COLUMNS = sql.raw('i.id, i.name, i.description, i.cost, i.price, i.position, i.group_id, i.created_at, i.modified_at');
const GROUP_COLUMNS = sql.raw(`g.id, g.name, g.position, g.created_at, g.modified_at,
  coalesce(m.item_ids, '{}') AS item_ids, coalesce(m.cost, 0) AS cost, coalesce(m.price, 0) AS price`);
/** The members of group `g`, by the (group_id, group_position) index. */
const GROUP_MEMBERS = sql.raw(`LEFT JOIN LATERAL (SELECT array_agg(x.id ORDER BY x.group_position, x.id) AS item_ids,
  sum(x.cost) AS cost, sum(x.price) AS price FROM crm.predefined_items x WHERE x.group_id = g.id) m ON true`);

@Injectable()
export class PredefinedItemsRepository {
  /** One page of items by position; `search`: the name contains it, in any letter case. */
  page(db: Db, accountId: string, time: TimeFilterInput, search: string | undefined, page: number, perPage: number) {
    const conditions = [accountTimeWhere(accountId, time, 'i')];
    if (search) conditions.push(sql`lower(i.name) LIKE ${`%${escapeLike(search.toLowerCase())}%`}`);
    const where = sql.and(conditions);
    return countAndPage<PredefinedItemRow>(db, {
      from: sql`crm.predefined_items i`,
      where,
      rows: sql`SELECT ${ITEM_COLUMNS} FROM crm.predefined_items i WHERE ${where} ORDER BY i.position, i.id ${pageLimit(page, perPage)}`,
    });
  }

  find(db: Db, accountId: string, id: string, lock = false): Promise<PredefinedItemRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${ITEM_COLUMNS} FROM crm.predefined_items i WHERE i.id = ${id} AND i.account_id = ${accountId} ${lock ? sql`FOR UPDATE` : sql.empty}`,
    );
  }

  /** The items of the given groups, in group order. */
  members(db: Db, groupIds: readonly string[]): Promise<PredefinedItemRow[]> {
    if (groupIds.length === 0) return Promise.resolve([]);
    return many(
      db,
      sql`SELECT ${ITEM_COLUMNS} FROM crm.predefined_items i WHERE i.group_id = ANY(${groupIds}::varchar[]) ORDER BY i.group_id, i.group_position, i.id`,
    );
  }

  /**
   * Serializes the account's item (or group) creations, so the count and the next position are
   * read by one writer at a time.
   */
  async lockAccount(db: Db, accountId: string, what: 'items' | 'groups'): Promise<void> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(hashtext(${`crm.predefined_${what}:${accountId}`}))`);
  }

  async countItems(db: Db, accountId: string): Promise<number> {
    return (await one<{ n: number }>(db, sql`SELECT count(*)::int AS n FROM crm.predefined_items WHERE account_id = ${accountId}`)).n;
  }

  async insert(db: Db, accountId: string, id: string, fields: ItemFields): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.predefined_items (id, account_id, name, description, cost, price, position)
          VALUES (${id}, ${accountId}, ${fields.name}, ${fields.description}, ${fields.cost}, ${fields.price},
                  (SELECT coalesce(max(position), 0) + 1 FROM crm.predefined_items WHERE account_id = ${accountId}))`,
    );
  }

  async update(db: Db, id: string, fields: ItemFields): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.predefined_items SET name = ${fields.name}, description = ${fields.description}, cost = ${fields.cost},
          price = ${fields.price}, modified_at = now() WHERE id = ${id}`,
    );
  }

  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM crm.predefined_items WHERE id = ${id}`);
  }

  /** The items among `ids` of the account, locked while they are grouped. */
  lockForGrouping(db: Db, accountId: string, ids: readonly string[]): Promise<Array<{ id: string; group_id: string | null }>> {
    return many(
      db,
      sql`SELECT id, group_id FROM crm.predefined_items WHERE account_id = ${accountId} AND id = ANY(${ids}::varchar[]) FOR UPDATE`,
    );
  }

  pageGroups(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    const where = accountTimeWhere(accountId, time, 'g');
    return countAndPage<PredefinedItemGroupRow>(db, {
      from: sql`crm.predefined_item_groups g`,
      where,
      rows: sql`SELECT ${GROUP_COLUMNS} FROM crm.predefined_item_groups g ${GROUP_MEMBERS} WHERE ${where} ORDER BY g.position, g.id ${pageLimit(page, perPage)}`,
    });
  }

  findGroup(db: Db, accountId: string, id: string): Promise<PredefinedItemGroupRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${GROUP_COLUMNS} FROM crm.predefined_item_groups g ${GROUP_MEMBERS} WHERE g.id = ${id} AND g.account_id = ${accountId}`,
    );
  }

  /** A new group (last in the account's order) of `memberIds`, in that order. */
  async insertGroup(db: Db, accountId: string, id: string, name: string, memberIds: readonly string[]): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.predefined_item_groups (id, account_id, name, position)
          VALUES (${id}, ${accountId}, ${name}, (SELECT coalesce(max(position), 0) + 1 FROM crm.predefined_item_groups WHERE account_id = ${accountId}))`,
    );
    await execute(
      db,
      sql`UPDATE crm.predefined_items i SET group_id = ${id}, group_position = m.position - 1, modified_at = now()
          FROM unnest(${memberIds}::varchar[]) WITH ORDINALITY AS m(id, position) WHERE i.id = m.id`,
    );
  }

  /** Deletes a group; its items stay, ungrouped. */
  async deleteGroup(db: Db, groupId: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.predefined_items SET group_id = NULL, group_position = NULL, modified_at = now() WHERE group_id = ${groupId}`,
    );
    await execute(db, sql`DELETE FROM crm.predefined_item_groups WHERE id = ${groupId}`);
  }
}
