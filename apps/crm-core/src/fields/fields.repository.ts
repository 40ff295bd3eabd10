import { Injectable } from '@nestjs/common';
import type { FieldSet, FieldSortKey, FieldSortOrder, FieldType } from '@crm/contracts';
import {
  countAndPage,
  execute,
  many,
  maybeOne,
  one,
  orderDirection,
  pageLimit,
  sql,
  timeFilterConditions,
  type Db,
  type SqlFragment,
  type TimeFilterInput,
} from '../common/sql';

/** The unique index that makes names case-insensitively unique per account and set. */
export const FIELD_NAME_UNIQUE_INDEX = 'fields_name_uq';

/**
 * crm.fields: one field definition of an account. Contact custom fields, company fields and deal
 * fields live in one table, told apart by `field_set`; names are unique per account and set
 * regardless of letter case (`fields_name_uq`).
 */
export interface FieldRow {
  id: string;
  account_id: string;
  field_set: FieldSet;
  name: string;
  type: FieldType;
  position: number;
  /** Only for select_box and multiple_choice; null otherwise. */
  choices: string[] | null;
  /** Set by the service (not the database) so the answer shows exactly what was stored. */
  created_at: Date;
  modified_at: Date;
}

export interface FieldListQuery {
  type?: FieldType;
  sortBy: FieldSortKey;
  order: FieldSortOrder;
  page: number;
  perPage: number;
  /** The common time filters (date_filter, since, until, modified_since, unmodified_since). */
  time?: TimeFilterInput;
}

const COLUMNS = sql.raw('f.id, f.account_id, f.field_set, f.name, f.type, f.position, f.choices, f.created_at, f.modified_at');

/** The sort columns of each key; ties fall back to created_at and id in the same direction. */
const SORT_COLUMNS: Record<FieldSortKey, readonly string[]> = {
  position: ['f.position', 'f.created_at', 'f.id'],
  created_at: ['f.created_at', 'f.id'],
  modified_at: ['f.modified_at', 'f.id'],
};

function listWhere(accountId: string, fieldSet: FieldSet, query: Pick<FieldListQuery, 'type' | 'time'>): SqlFragment {
  return sql.and([
    sql`f.account_id = ${accountId}`,
    sql`f.field_set = ${fieldSet}`,
    ...(query.type ? [sql`f.type = ${query.type}`] : []),
    ...timeFilterConditions(query.time ?? {}, 'f'),
  ]);
}

/** One page of the set's fields in the requested order. */
function pageRows(accountId: string, fieldSet: FieldSet, query: FieldListQuery): SqlFragment {
  const direction = orderDirection(query.order, 'asc');
  const order = sql.join(
    SORT_COLUMNS[query.sortBy].map((column) => sql`${sql.raw(column)} ${direction}`),
    ', ',
  );
  return sql`SELECT ${COLUMNS} FROM crm.fields f WHERE ${listWhere(accountId, fieldSet, query)} ORDER BY ${order} ${pageLimit(query.page, query.perPage)}`;
}

/** Every query is scoped by account and set: another account's field is simply not found. */
@Injectable()
export class FieldsRepository {
  find(db: Db, accountId: string, fieldSet: FieldSet, id: string): Promise<FieldRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${COLUMNS} FROM crm.fields f WHERE f.account_id = ${accountId} AND f.field_set = ${fieldSet} AND f.id = ${id}`,
      {
        prepare: true,
      },
    );
  }

  /** The count and one page in the requested order. */
  page(db: Db, accountId: string, fieldSet: FieldSet, query: FieldListQuery) {
    return countAndPage<FieldRow>(db, {
      from: sql`crm.fields f`,
      where: listWhere(accountId, fieldSet, query),
      rows: pageRows(accountId, fieldSet, query),
    });
  }

  /** One page in the requested order, uncounted (a whole set read in batches). */
  rows(db: Db, accountId: string, fieldSet: FieldSet, query: FieldListQuery): Promise<FieldRow[]> {
    return many(db, pageRows(accountId, fieldSet, query));
  }

  /** One more than the highest position of the set; 1 for an empty set. */
  async nextPosition(db: Db, accountId: string, fieldSet: FieldSet): Promise<number> {
    const row = await one<{ next: number }>(
      db,
      sql`SELECT (coalesce(max(position), 0) + 1)::int AS next FROM crm.fields WHERE account_id = ${accountId} AND field_set = ${fieldSet}`,
    );
    return row.next;
  }

  /** Throws the driver's unique violation on a duplicate name (see FIELD_NAME_UNIQUE_INDEX). */
  async insert(db: Db, field: FieldRow): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.fields (id, account_id, field_set, name, type, position, choices, created_at, modified_at)
          VALUES (${field.id}, ${field.account_id}, ${field.field_set}, ${field.name}, ${field.type}, ${field.position}, ${field.choices}::text[],
                  ${field.created_at}, ${field.modified_at})`,
    );
  }

  /** Writes the changeable columns; false when the field no longer exists. */
  async update(db: Db, field: FieldRow): Promise<boolean> {
    const n = await execute(
      db,
      sql`UPDATE crm.fields SET name = ${field.name}, position = ${field.position}, choices = ${field.choices}::text[], modified_at = ${field.modified_at}
          WHERE account_id = ${field.account_id} AND field_set = ${field.field_set} AND id = ${field.id}`,
    );
    return n > 0;
  }

  async delete(db: Db, accountId: string, fieldSet: FieldSet, id: string): Promise<boolean> {
    return (await execute(db, sql`DELETE FROM crm.fields WHERE account_id = ${accountId} AND field_set = ${fieldSet} AND id = ${id}`)) > 0;
  }
}
