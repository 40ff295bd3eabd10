import type { Caller, ContactFilterRequest, ContactSortKey, SortOrder } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { savedFilterCondition } from '../filters/filter-sql';
import { digitsOf, escapeLike, fold, searchTermOf } from './contact-columns';

/** Conditions over `crm.contacts c` with their numbered parameters ($1 is always the account). */
export class SqlWhere {
  readonly parts: string[] = [];
  readonly params: unknown[];
  /** Common table expressions the conditions refer to (`name AS (...)`). */
  readonly ctes: string[] = [];

  constructor(accountId: string) {
    this.params = [accountId];
  }

  /** Adds a parameter and returns its placeholder. */
  param(value: unknown): string {
    this.params.push(value);
    return `$${this.params.length}`;
  }

  add(sql: string): void {
    this.parts.push(sql);
  }

  get sql(): string {
    return this.parts.length > 0 ? this.parts.join(' AND ') : 'true';
  }

  /** `WITH ... ` to put before the statement that uses {@link sql} ('' when none). */
  get withSql(): string {
    return this.ctes.length > 0 ? `WITH ${this.ctes.join(', ')} ` : '';
  }
}

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** 9999-12-31T23:59:59Z: larger Unix seconds are clamped to stay a valid timestamp. */
const MAX_UNIX_SECONDS = 253_402_300_799;

/** A time bound: a UTC day's start (`nextDay`: the following day's start) or Unix seconds. */
export function instantOf(bound: string, nextDay = false): string {
  if (DAY.test(bound)) return new Date(Date.parse(`${bound}T00:00:00.000Z`) + (nextDay ? 86_400_000 : 0)).toISOString();
  return new Date(Math.min(Number(bound), MAX_UNIX_SECONDS) * 1000).toISOString();
}

interface TimeInput {
  date_filter?: 'created_at' | 'modified_at';
  since?: string;
  until?: string;
  modified_since?: string;
  unmodified_since?: string;
}

/**
 * The common time filters on alias `a`: since/until on date_filter (default created_at; a day
 * `until` includes that day, Unix seconds are inclusive), modified_since and unmodified_since on
 * modified_at. Returns the column a range was applied to (for the newest-first rule), or null.
 */
export function addTimeConditions(where: SqlWhere, input: TimeInput, alias: string): 'created_at' | 'modified_at' | null {
  let ranged: 'created_at' | 'modified_at' | null = null;
  const column = input.date_filter ?? 'created_at';
  if (input.since) {
    where.add(`${alias}.${column} >= ${where.param(instantOf(input.since))}::timestamptz`);
    ranged = column;
  }
  if (input.until) {
    where.add(
      DAY.test(input.until)
        ? `${alias}.${column} < ${where.param(instantOf(input.until, true))}::timestamptz`
        : `${alias}.${column} <= ${where.param(instantOf(input.until))}::timestamptz`,
    );
    ranged = column;
  }
  if (input.modified_since) {
    where.add(`${alias}.modified_at >= ${where.param(instantOf(input.modified_since))}::timestamptz`);
    ranged = 'modified_at';
  }
  if (input.unmodified_since) {
    where.add(`${alias}.modified_at < ${where.param(instantOf(input.unmodified_since))}::timestamptz`);
    ranged = 'modified_at';
  }
  return ranged;
}

const NEXT = `('date', 'date_time', 'waiting')`;

/** `EXISTS (...)` or `NOT EXISTS (...)` as the boolean filter asks. */
function exists(flag: boolean, sql: string): string {
  return `${flag ? '' : 'NOT '}EXISTS (${sql})`;
}

/**
 * Every filter of GET /contacts (and the cascade) as SQL over the account's non-deleted contacts
 * `c`. Owner scope: `owner_id` when sent, else the caller's contacts unless `team=true`; the
 * `has_actions*` filters are about contacts the caller owns.
 */
export async function contactConditions(
  m: EntityManager,
  caller: Caller,
  f: ContactFilterRequest,
): Promise<{ where: SqlWhere; ranged: 'created_at' | 'modified_at' | null }> {
  const where = new SqlWhere(caller.account_id);
  where.add('c.account_id = $1');
  where.add('c.deleted_at IS NULL');
  const me = () => where.param(caller.user_id);
  if (f.owner_id) where.add(`c.owner_id = ${where.param(f.owner_id.toLowerCase())}`);
  else if (f.team !== true) where.add(`c.owner_id = ${me()}`);

  if (f.search) {
    const term = searchTermOf(f.search);
    if (term.length >= 3) {
      // The trigram index finds the matches first (a fence the planner cannot flatten): walking
      // the name index and filtering could read most of the account for a rare term.
      where.ctes.push(
        `search_hits AS MATERIALIZED (SELECT s.id FROM crm.contacts s WHERE s.account_id = $1 AND s.search_text LIKE ${where.param(`%${escapeLike(term)}%`)})`,
      );
      where.add('c.id IN (SELECT id FROM search_hits)');
    } else if (term) {
      // One or two characters have no trigram: a filter over the name order.
      where.add(`c.search_text LIKE ${where.param(`%${escapeLike(term)}%`)}`);
    }
  }
  if (f.phone != null) {
    const digits = digitsOf(f.phone);
    if (!digits) where.add('false');
    else {
      const p = where.param(digits);
      where.add(`c.search_text LIKE ${where.param(`%${digits}%`)}`);
      where.add(`EXISTS (SELECT 1 FROM jsonb_array_elements(c.phones) e WHERE regexp_replace(e->>'value', '\\D', '', 'g') = ${p})`);
    }
  }
  for (const key of ['email', 'url'] as const) {
    const value = f[key];
    if (value == null) continue;
    const folded = fold(value);
    const p = where.param(folded);
    where.add(`c.search_text LIKE ${where.param(`%${escapeLike(folded)}%`)}`);
    where.add(`EXISTS (SELECT 1 FROM jsonb_array_elements(c.${key}s) e WHERE lower(e->>'value') = ${p})`);
  }
  if (f.action_stream != null)
    where.add(
      exists(f.action_stream, `SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.assignee_id = ${me()} AND a.status IN ${NEXT}`),
    );
  if (f.has_actions != null) {
    where.add(`c.owner_id = ${me()}`);
    where.add(exists(f.has_actions, `SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.status <> 'done'`));
  }
  if (f.has_actions_for_me != null) {
    where.add(`c.owner_id = ${me()}`);
    where.add(
      exists(
        f.has_actions_for_me,
        `SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.assignee_id = ${me()} AND a.status <> 'done'`,
      ),
    );
  }
  if (f.has_actions_today != null) {
    where.add(`c.owner_id = ${me()}`);
    where.add(
      exists(
        f.has_actions_today,
        `SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.assignee_id = ${me()} AND a.status <> 'done' AND a.date = (now() AT TIME ZONE 'UTC')::date`,
      ),
    );
  }
  if (f.waiting != null)
    where.add(
      exists(f.waiting, `SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.assignee_id = ${me()} AND a.status = 'waiting'`),
    );
  if (f.pending_deal != null)
    where.add(exists(f.pending_deal, `SELECT 1 FROM crm.deals d WHERE d.contact_id = c.id AND d.status = 'pending'`));
  if (f.starred != null) where.add(`c.starred = ${where.param(f.starred)}`);
  if (f.letter) where.add(`c.letter = ${where.param(f.letter)}`);
  if (f.custom_field_id && f.custom_field_value != null) {
    const id = where.param(f.custom_field_id.toLowerCase());
    const value = where.param(f.custom_field_value.toLowerCase());
    where.add(
      `(lower(c.custom_fields->>${id}) = ${value} OR (jsonb_typeof(c.custom_fields->${id}) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(c.custom_fields->${id}) v WHERE lower(v) = ${value})))`,
    );
  }
  if (f.lead_source != null)
    where.add(
      `c.lead_source_id IN (SELECT ls.id FROM crm.lead_sources ls WHERE ls.account_id = $1 AND lower(ls.text) = lower(${where.param(f.lead_source)}))`,
    );
  if (f.lead_source_id) where.add(`c.lead_source_id = ${where.param(f.lead_source_id.toLowerCase())}`);
  if (f.status_id) where.add(`c.status_id = ${where.param(f.status_id.toLowerCase())}`);
  if (f.not_linked_with) where.add(`c.company_id IS DISTINCT FROM ${where.param(f.not_linked_with.toLowerCase())}`);
  if (f.company_id) where.add(`c.company_id = ${where.param(f.company_id.toLowerCase())}`);
  if (f.tag != null)
    where.add(
      `EXISTS (SELECT 1 FROM crm.contact_tags ct JOIN crm.tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id AND t.account_id = $1 AND lower(t.name) = lower(${where.param(f.tag)}))`,
    );
  if (f.filter_id) {
    const condition = await savedFilterCondition(m, caller.account_id, f.filter_id, where.params.length + 1);
    where.params.push(...condition.params);
    where.add(`(${condition.sql})`);
  }
  const ranged = addTimeConditions(where, f, 'c');
  return { where, ranged };
}

const SORT_COLUMNS: Record<ContactSortKey, string> = {
  name: 'c.sort_name',
  first_name: 'lower(c.first_name)',
  last_name: 'lower(c.last_name)',
  company_name: 'lower(c.company_name)',
  created_at: 'c.created_at',
  modified_at: 'c.modified_at',
};

/**
 * ORDER BY of GET /contacts: by name unless `sort_by`; a created_at or modified_at range without
 * sort_by orders by that field, newest first (or as `order` says); ties by id in the same direction.
 */
export function contactOrderBy(
  sortBy: ContactSortKey | undefined,
  order: SortOrder | undefined,
  ranged: 'created_at' | 'modified_at' | null,
): string {
  let column = SORT_COLUMNS[sortBy ?? 'name'];
  let direction = order ?? 'asc';
  if (!sortBy && ranged) {
    column = SORT_COLUMNS[ranged];
    direction = order ?? 'desc';
  }
  const dir = direction === 'desc' ? 'DESC' : 'ASC';
  return column === 'c.sort_name' ? `c.sort_name ${dir}, c.id ${dir}` : `${column} ${dir}, c.sort_name ${dir}, c.id ${dir}`;
}

/** How far into the name order the cascade counts `items_left` from the front. */
export const CASCADE_COUNT_REACH = 20_000;

/**
 * `items_left` of a cascade batch ending at `end`: the contacts matching `where` after it, counted
 * from the nearer end so no batch pays for counting the whole account. Up to `reach` contacts up to
 * the end, on the name index, subtracted from the total (index-only on the narrow count index);
 * further in, the contacts after the end, read in name order from the bound.
 */
export async function countItemsLeft(
  m: EntityManager,
  where: SqlWhere,
  end: { sort_name: string; id: string },
  reach = CASCADE_COUNT_REACH,
): Promise<number> {
  const params = [...where.params, end.sort_name, end.id];
  const bound = `($${params.length - 1}, $${params.length})`;
  const [{ n: before }] = await m.query(
    `${where.withSql}SELECT count(*)::int AS n FROM (SELECT 1 FROM crm.contacts c WHERE ${where.sql} AND (c.sort_name, c.id) <= ${bound} ORDER BY c.sort_name, c.id LIMIT ${Number(reach)}) s`,
    params,
  );
  if (before < reach) {
    const [{ total }] = await m.query(`${where.withSql}SELECT count(*)::int AS total FROM crm.contacts c WHERE ${where.sql}`, where.params);
    return Math.max(0, total - before);
  }
  // In name order, so the planner reads the name index from the bound rather than the table.
  const [{ n }] = await m.query(
    `${where.withSql}SELECT count(*)::int AS n FROM (SELECT 1 FROM crm.contacts c WHERE ${where.sql} AND (c.sort_name, c.id) > ${bound} ORDER BY c.sort_name, c.id) s`,
    params,
  );
  return n;
}
