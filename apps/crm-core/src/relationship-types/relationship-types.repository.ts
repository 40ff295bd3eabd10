import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  accountTimeWhere,
  countAndPage,
  escapeLike,
  execute,
  maybeOne,
  orderDirection,
  pageLimit,
  sql,
  type AccountList,
  type Db,
  type TimeFilterInput,
} from '../common/sql';
import type { Variant } from './relationship-type.rules';

/** crm.relationship_types with its variants (crm.relationship_variants) in position order. */
export interface RelationshipTypeRow {
  id: string;
  symmetrical: boolean;
  created_at: Date;
  modified_at: Date;
  variants: Variant[];
}

const TYPE_COLUMNS = sql.raw(`t.id, t.symmetrical, t.created_at, t.modified_at,
  coalesce((SELECT json_agg(json_build_object('id', v.id, 'name', v.name) ORDER BY v.position)
            FROM crm.relationship_variants v WHERE v.relationship_type_id = t.id), '[]'::json) AS variants`);

export interface RelationshipTypeListFilter extends TimeFilterInput {
  search?: string;
  symmetrical?: boolean;
  sort_by?: 'created_at' | 'modified_at';
  order?: 'asc' | 'desc';
}

const LIST: AccountList = {
  from: sql.raw('crm.relationship_types t'),
  alias: 't',
  columns: TYPE_COLUMNS,
  orderBy: sql.raw('t.created_at, t.id'),
};

@Injectable()
export class RelationshipTypesRepository {
  /**
   * The count and one page, by creation unless `filter.order` says otherwise. `search` matches a
   * variant's name, `symmetrical` the type's kind; both read only the account's types (its
   * configuration: a few dozen at most), on relationship_types_order_idx and each type's variants.
   */
  page(db: Db, accountId: string, filter: RelationshipTypeListFilter, page: number, perPage: number) {
    const conditions = [accountTimeWhere(accountId, filter, 't')];
    if (filter.symmetrical !== undefined) conditions.push(sql`t.symmetrical = ${filter.symmetrical}`);
    if (filter.search)
      conditions.push(
        sql`EXISTS (SELECT 1 FROM crm.relationship_variants v WHERE v.relationship_type_id = t.id AND lower(v.name) LIKE ${`%${escapeLike(filter.search.toLowerCase())}%`})`,
      );
    const where = sql.and(conditions);
    const dir = orderDirection(filter.order, 'asc');
    const orderBy = filter.sort_by === 'modified_at' ? sql`t.modified_at ${dir}, t.id ${dir}` : sql`t.created_at ${dir}, t.id ${dir}`;
    return countAndPage<RelationshipTypeRow>(db, {
      from: LIST.from,
      where,
      rows: sql`SELECT ${LIST.columns} FROM ${LIST.from} WHERE ${where} ORDER BY ${orderBy} ${pageLimit(page, perPage)}`,
    });
  }

  /** The type, locked FOR UPDATE first when `lock` (its variants are about to be renamed). */
  async find(db: Db, accountId: string, id: string, lock = false): Promise<RelationshipTypeRow | undefined> {
    if (lock) await execute(db, sql`SELECT 1 FROM crm.relationship_types WHERE id = ${id} AND account_id = ${accountId} FOR UPDATE`);
    return maybeOne(db, sql`SELECT ${TYPE_COLUMNS} FROM crm.relationship_types t WHERE t.id = ${id} AND t.account_id = ${accountId}`);
  }

  /** A new type with its variants in the order given (one variant: symmetrical). */
  async insert(db: Db, accountId: string, id: string, names: readonly string[]): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.relationship_types (id, account_id, symmetrical) VALUES (${id}, ${accountId}, ${names.length === 1})`,
    );
    const rows = names.map((name, position) => sql`(${newId()}, ${accountId}, ${id}, ${position}::int, ${name})`);
    await execute(
      db,
      sql`INSERT INTO crm.relationship_variants (id, account_id, relationship_type_id, position, name) VALUES ${sql.join(rows, ', ')}`,
    );
  }

  /** Gives the type's variants their new labels (two may swap) and moves its modified_at. */
  async renameVariants(db: Db, typeId: string, variants: readonly Variant[]): Promise<void> {
    // Free the old names first, so two variants can swap labels under the unique index.
    await execute(db, sql`UPDATE crm.relationship_variants SET name = id WHERE relationship_type_id = ${typeId}`);
    for (const variant of variants)
      await execute(
        db,
        sql`UPDATE crm.relationship_variants SET name = ${variant.name} WHERE id = ${variant.id} AND relationship_type_id = ${typeId}`,
      );
    await execute(db, sql`UPDATE crm.relationship_types SET modified_at = now() WHERE id = ${typeId}`);
  }

  /** Deletes the type and, through the foreign keys, every relationship using it; false when there is none. */
  async delete(db: Db, accountId: string, id: string): Promise<boolean> {
    return (await execute(db, sql`DELETE FROM crm.relationship_types WHERE id = ${id} AND account_id = ${accountId}`)) > 0;
  }
}
