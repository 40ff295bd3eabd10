import { many, one, type Db, type QueryOptions } from './db';
import { sql, type SqlFragment } from './sql';
import { accountTimeWhere, pageLimit, type TimeFilterInput } from './time-filters';

/** One list page: the rows it counts, and the statement of the page's rows. */
export interface PageStatements {
  /** `<table> <alias>` (with its joins, or a subquery and its alias) the list reads from. */
  from: SqlFragment;
  /** The list's conditions over `from`; none counts every row of `from`. */
  where?: SqlFragment;
  /** The page's rows: the same rows, ordered and limited (see pageLimit). */
  rows: SqlFragment;
}

/** How many rows match the list's conditions, and the rows of the page asked for. */
export interface CountedPage<T> {
  total: number;
  rows: T[];
}

/** `SELECT count(*)::int AS total FROM <from> [WHERE <where>]`. */
export function countOf(from: SqlFragment, where?: SqlFragment): SqlFragment {
  return sql`SELECT count(*)::int AS total FROM ${from}${where === undefined ? sql.empty : sql` WHERE ${where}`}`;
}

/**
 * Counts the rows of `from` matching `where`, then reads the page's `rows`, on `db`, in this
 * order (a caller that reads both in one REPEATABLE READ transaction sees one snapshot).
 */
export async function countAndPage<T>(db: Db, { from, where, rows }: PageStatements, options?: QueryOptions): Promise<CountedPage<T>> {
  const { total } = await one<{ total: number }>(db, countOf(from, where), options);
  return { total, rows: await many<T>(db, rows, options) };
}

/** An account's list of one table under the common time filters (statuses, tags, users, ...). */
export interface AccountList {
  /** `<table> <alias>`, e.g. `crm.tags t`. */
  from: SqlFragment;
  alias: string;
  /** The columns of a page row, over `alias`. */
  columns: SqlFragment;
  /** The ORDER BY expressions, ending with a unique one (the id). */
  orderBy: SqlFragment;
}

/** The count and one page of `list`: the account's rows matching the time filters, in `list.orderBy`. */
export function accountPage<T>(db: Db, list: AccountList, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
  const where = accountTimeWhere(accountId, time, list.alias);
  return countAndPage<T>(db, {
    from: list.from,
    where,
    rows: sql`SELECT ${list.columns} FROM ${list.from} WHERE ${where} ORDER BY ${list.orderBy} ${pageLimit(page, perPage)}`,
  });
}
