import { isId } from '@crm/common';

/** Today's date in UTC, `YYYY-MM-DD`. */
export function todayUtc(now: Date = new Date()): string {
  return now.toISOString().slice(0, 10);
}

/** `date` columns come back as 'YYYY-MM-DD' strings (libs/database type parser) or Date. */
export function plainDateOf(value: string | Date | null | undefined): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value.slice(0, 10);
  return value.toISOString().slice(0, 10);
}

/** A UTC timestamp as PostgreSQL's JSON writes it (the pool's time zone is UTC): `2026-11-27T05:03:12.123456+00:00`. */
const PG_JSON_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.(\d{1,6}))?\+00:00$/;

/**
 * A timestamp as the API writes it, `Date#toISOString()`: milliseconds, `Z`. Timestamps read
 * inside JSON (the wrapper and list statements) arrive as PostgreSQL's text; those in UTC are
 * rewritten as text (the fraction cut to milliseconds, as Date does) instead of parsed into a
 * Date and printed again, which cost ten times as much, twice per record of a list page.
 */
export function isoOf(value: string | Date): string {
  if (typeof value === 'string') {
    const utc = PG_JSON_UTC.exec(value);
    if (utc) return `${value.slice(0, 19)}.${(utc[1] ?? '').padEnd(3, '0').slice(0, 3)}Z`;
  }
  return new Date(value).toISOString();
}

/** "First Last", trimmed; what `author`, `owner.name` and `contact_name` show. */
export function fullName(first: string | null | undefined, last: string | null | undefined): string {
  return `${first ?? ''} ${last ?? ''}`.trim();
}

/** A 24-hex id in lower case, or null when the value cannot name a record. */
export function normalizeId(value: string | null | undefined): string | null {
  if (typeof value !== 'string') return null;
  const id = value.trim().toLowerCase();
  return isId(id) ? id : null;
}

/**
 * The value of a field on PUT/PATCH: the one sent (null = its default), else the current one
 * (partial) or its default (replace).
 */
export function pick<T>(partial: boolean, sent: T | null | undefined, current: T, fallback: T): T {
  return sent === undefined ? (partial ? current : fallback) : sent === null ? fallback : sent;
}

/** What a PUT/PATCH does to a list it may carry: the list sent (null = empty), none on a partial change without it, else empty. */
export function replacedList<T>(partial: boolean, sent: readonly T[] | null | undefined): readonly T[] | null {
  return sent !== undefined ? (sent ?? []) : partial ? null : [];
}

/** The 1-based place of the `i`th row of a page in the whole result set (calls' and meetings' `index`). */
export function resultIndex(page: { page: number; per_page: number }, i: number): number {
  return (page.page - 1) * page.per_page + i + 1;
}
