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
 * `unmodified_since` on modified_at. Plain-date columns (`dateColumns`) compare days. Columns are
 * prefixed with `alias`; `bind(value)` returns the placeholder of a parameter. The one SQL helper
 * of every list's time filters (records, fields, relationship types, predefined actions,
 * configuration lists, users).
 */
export function timeFilterSql(
  input: TimeFilterInput,
  alias: string,
  dateColumns: ReadonlySet<string>,
  bind: (value: unknown) => string,
): string[] {
  if (input.date_filter && (input.modified_since || input.unmodified_since)) {
    // The contracts refuse this first (TimeFilterRequest); callers outside the gateway get the same answer.
    const clash = (['modified_since', 'unmodified_since'] as const).filter((k) => input[k]);
    throw ApiError.invalid({
      date_filter: `date_filter cannot be combined with ${clash.join(', ')}`,
      ...Object.fromEntries(clash.map((k) => [k, `${k} cannot be combined with date_filter`])),
    });
  }
  const out: string[] = [];
  const column = input.date_filter ?? 'created_at';
  const isDate = dateColumns.has(column);
  const add = (sql: (p: string) => string, value: unknown) => out.push(sql(bind(value)));
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
  if (input.unmodified_since)
    add((p) => `${alias}.modified_at < ${p}::timestamptz`, instantOf(input.unmodified_since, false).toISOString());
  return out;
}

/** {@link timeFilterSql} with positional parameters (`$n`) appended to `params`. */
export function timeConditions(input: TimeFilterInput, alias: string, dateColumns: ReadonlySet<string>, params: unknown[]): string[] {
  return timeFilterSql(input, alias, dateColumns, (value) => {
    params.push(value);
    return `$${params.length}`;
  });
}

const NO_DATE_COLUMNS: ReadonlySet<string> = new Set();

/**
 * `<alias>.account_id = $1` and the time filter conditions, joined with AND, with their
 * parameters: the WHERE of the simple account-scoped lists (count and page share it).
 */
export function accountTimeWhere(accountId: string, input: TimeFilterInput, alias: string): { where: string; params: unknown[] } {
  const params: unknown[] = [accountId];
  const where = [`${alias}.account_id = $1`, ...timeConditions(input, alias, NO_DATE_COLUMNS, params)].join(' AND ');
  return { where, params };
}

/** {@link timeFilterSql} for a TypeORM query builder (named parameters `:tf<n>`). */
export function timeConditionsNamed(input: TimeFilterInput, alias: string): { conditions: string[]; parameters: Record<string, unknown> } {
  const parameters: Record<string, unknown> = {};
  const conditions = timeFilterSql(input, alias, NO_DATE_COLUMNS, (value) => {
    const name = `tf${Object.keys(parameters).length}`;
    parameters[name] = value;
    return `:${name}`;
  });
  return { conditions, parameters };
}

/** SQL direction of `order`, or `fallback` when none was sent. */
export function orderSql(order: 'asc' | 'desc' | undefined, fallback: 'asc' | 'desc'): 'ASC' | 'DESC' {
  return (order ?? fallback) === 'desc' ? 'DESC' : 'ASC';
}
