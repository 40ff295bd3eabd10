import { ApiError } from '@crm/contracts';

export interface TimeFilterInput {
  date_filter?: string;
  since?: string;
  until?: string;
  modified_since?: string;
  unmodified_since?: string;
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** 9999-12-31T23:59:59Z. */
const MAX_UNIX_SECONDS = 253_402_300_799;

/** The instant a bound names: a UTC day's start (or the next day's start, `endOfDay`), or Unix seconds. */
function instantOf(bound: string, endOfDay: boolean): Date {
  if (DAY.test(bound)) {
    const start = new Date(`${bound}T00:00:00.000Z`);
    return endOfDay ? new Date(Math.min(start.getTime() + 86_400_000, MAX_UNIX_SECONDS * 1000)) : start;
  }
  // Unix seconds past 9999-12-31 are clamped, so every bound stays a valid PostgreSQL timestamp.
  return new Date(Math.min(Number(bound), MAX_UNIX_SECONDS) * 1000);
}

function dayOf(bound: string): string {
  return DAY.test(bound) ? bound : new Date(Math.min(Number(bound), MAX_UNIX_SECONDS) * 1000).toISOString().slice(0, 10);
}

/**
 * SQL conditions of the common time filters (decisions.md "Paging and lists"): `since`/`until` on
 * `date_filter` (default created_at; `until` includes its whole day), `modified_since` and
 * `unmodified_since` on modified_at. Plain-date columns (`dateColumns`) compare days.
 * Parameters are appended to `params`; columns are prefixed with `alias`.
 */
export function timeConditions(input: TimeFilterInput, alias: string, dateColumns: ReadonlySet<string>, params: unknown[]): string[] {
  if (input.date_filter && (input.modified_since || input.unmodified_since)) {
    throw ApiError.invalid({
      date_filter: 'date_filter cannot be combined with modified_since or unmodified_since',
    });
  }
  const out: string[] = [];
  const column = input.date_filter ?? 'created_at';
  const isDate = dateColumns.has(column);
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    out.push(sql(`$${params.length}`));
  };
  if (input.since) {
    if (isDate) add((p) => `${alias}.${column} >= ${p}::date`, dayOf(input.since));
    else add((p) => `${alias}.${column} >= ${p}::timestamptz`, instantOf(input.since, false).toISOString());
  }
  if (input.until) {
    if (isDate) add((p) => `${alias}.${column} <= ${p}::date`, dayOf(input.until));
    else if (DAY.test(input.until)) add((p) => `${alias}.${column} < ${p}::timestamptz`, instantOf(input.until, true).toISOString());
    else add((p) => `${alias}.${column} <= ${p}::timestamptz`, instantOf(input.until, false).toISOString());
  }
  if (input.modified_since) add((p) => `${alias}.modified_at >= ${p}::timestamptz`, instantOf(input.modified_since, false).toISOString());
  if (input.unmodified_since) add((p) => `${alias}.modified_at < ${p}::timestamptz`, instantOf(input.unmodified_since, false).toISOString());
  return out;
}

/** SQL direction of `order`, or `fallback` when none was sent. */
export function orderSql(order: 'asc' | 'desc' | undefined, fallback: 'asc' | 'desc'): 'ASC' | 'DESC' {
  return (order ?? fallback) === 'desc' ? 'DESC' : 'ASC';
}
