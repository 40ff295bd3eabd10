import { ApiError } from '@crm/contracts';
import { sql, type SqlFragment } from './sql';

/** The common time filters of every list (decisions.md "Paging and lists"). */
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
/** 0001-01-01T00:00:00Z: PostgreSQL has no year 0. */
const MIN_MS = new Date('0001-01-01T00:00:00.000Z').getTime();
const MAX_MS = MAX_UNIX_SECONDS * 1000;
const NO_DATE_COLUMNS: ReadonlySet<string> = new Set();
const IDENTIFIER = /^[a-z_][a-z0-9_]*$/;

/**
 * The instant a time bound names, as an ISO timestamp PostgreSQL accepts: a UTC day's start (or
 * the next day's start, `endOfDay`), or Unix seconds. Bounds past 9999-12-31T23:59:59Z or before
 * 0001-01-01 are clamped to them, so no bound overflows (decisions.md "Event pipeline and fan-out
 * bounds"): the one place every time bound (list filters, saved filters) becomes a timestamp.
 */
export function boundInstant(bound: string | number, endOfDay = false): string {
  let ms: number;
  if (typeof bound === 'string' && DAY.test(bound)) {
    ms = new Date(`${bound}T00:00:00.000Z`).getTime() + (endOfDay ? 86_400_000 : 0);
  } else {
    ms = Math.min(Number(bound), MAX_UNIX_SECONDS) * 1000;
  }
  // The contracts let only days and digits through (isTimeBound); anything else is a caller's bug.
  if (Number.isNaN(ms)) throw new Error(`boundInstant: ${String(bound)} is not a time bound`);
  return new Date(Math.max(MIN_MS, Math.min(ms, MAX_MS))).toISOString();
}

function dayOf(bound: string): string {
  return DAY.test(bound) ? bound : new Date(Math.min(Number(bound), MAX_UNIX_SECONDS) * 1000).toISOString().slice(0, 10);
}

/** `alias.column` from identifiers chosen in code (the contracts restrict date_filter to column names). */
function column(alias: string, name: string): SqlFragment {
  if (!IDENTIFIER.test(alias) || !IDENTIFIER.test(name)) throw ApiError.invalid({ date_filter: 'date_filter names no column' });
  return sql.raw(`${alias}.${name}`);
}

/**
 * The conditions of the common time filters: `since`/`until` on `date_filter` (default created_at;
 * `until` includes its whole day), `modified_since` and `unmodified_since` on modified_at.
 * Plain-date columns (`dateColumns`) compare days. The one helper of every list's time filters.
 */
export function timeFilterConditions(
  input: TimeFilterInput,
  alias: string,
  dateColumns: ReadonlySet<string> = NO_DATE_COLUMNS,
  secondsColumns: ReadonlySet<string> = NO_DATE_COLUMNS,
): SqlFragment[] {
  if (input.date_filter && (input.modified_since || input.unmodified_since)) {
    // The contracts refuse this first (TimeFilterRequest); callers outside the gateway get the same answer.
    const clash = (['modified_since', 'unmodified_since'] as const).filter((k) => input[k]);
    throw ApiError.invalid({
      date_filter: `date_filter cannot be combined with ${clash.join(', ')}`,
      ...Object.fromEntries(clash.map((k) => [k, `${k} cannot be combined with date_filter`])),
    });
  }
  const out: SqlFragment[] = [];
  const name = input.date_filter ?? 'created_at';
  const col = column(alias, name);
  const isDate = dateColumns.has(name);
  // Unix-seconds columns compare with the bound's seconds (whole seconds: the column's index applies).
  const instant = (bound: string, endOfDay: boolean) =>
    secondsColumns.has(name)
      ? sql`extract(epoch from ${boundInstant(bound, endOfDay)}::timestamptz)::bigint`
      : sql`${boundInstant(bound, endOfDay)}::timestamptz`;
  if (input.since) out.push(isDate ? sql`${col} >= ${dayOf(input.since)}::date` : sql`${col} >= ${instant(input.since, false)}`);
  if (input.until) {
    if (isDate) out.push(sql`${col} <= ${dayOf(input.until)}::date`);
    else if (DAY.test(input.until)) out.push(sql`${col} < ${instant(input.until, true)}`);
    else out.push(sql`${col} <= ${instant(input.until, false)}`);
  }
  const modified = column(alias, 'modified_at');
  if (input.modified_since) out.push(sql`${modified} >= ${boundInstant(input.modified_since, false)}::timestamptz`);
  if (input.unmodified_since) out.push(sql`${modified} < ${boundInstant(input.unmodified_since, false)}::timestamptz`);
  return out;
}

/** `<alias>.account_id = <account>` AND the time filters: the WHERE of the simple account-scoped lists. */
export function accountTimeWhere(accountId: string, input: TimeFilterInput, alias: string): SqlFragment {
  return sql.and([sql`${column(alias, 'account_id')} = ${accountId}`, ...timeFilterConditions(input, alias)]);
}

/** SQL direction of `order`, or `fallback` when none was sent. */
export function orderDirection(order: 'asc' | 'desc' | undefined, fallback: 'asc' | 'desc'): SqlFragment {
  return sql.raw((order ?? fallback) === 'desc' ? 'DESC' : 'ASC');
}

/**
 * LIMIT and OFFSET of page `page` (1-based) of `perPage`: parameters, or with `literal` the two
 * integers written into the text (for a statement planned with them: a generic plan cannot know
 * how far into a list a page is).
 */
export function pageLimit(page: number, perPage: number, { literal = false }: { literal?: boolean } = {}): SqlFragment {
  const offset = (page - 1) * perPage;
  if (!literal) return sql`LIMIT ${perPage} OFFSET ${offset}`;
  if (!Number.isSafeInteger(perPage) || !Number.isSafeInteger(offset) || perPage < 1 || offset < 0)
    throw new Error(`pageLimit: page ${page}, per_page ${perPage}`);
  return sql.raw(`LIMIT ${perPage} OFFSET ${offset}`);
}
