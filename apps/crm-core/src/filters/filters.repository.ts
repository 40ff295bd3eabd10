import { Injectable } from '@nestjs/common';
import { isId } from '@crm/common';
import { ApiError, FILTER_TEXT_FIELDS, type FieldType, type FilterConditionDto } from '@crm/contracts';
import {
  escapeLike,
  accountPage,
  boundInstant,
  execute,
  many,
  maybeOne,
  sql,
  type AccountList,
  type Db,
  type SqlFragment,
  type TimeFilterInput,
} from '../common/sql';
import { NEXT_STATUSES_SQL } from '../actions/actions.repository';
import type { CustomFieldInfo, FilterReferences } from './filter.rules';

/** crm.filters as the service reads it. */
export interface FilterRow {
  id: string;
  name: string;
  conditions: FilterConditionDto[];
  created_at: Date;
  modified_at: Date;
}

const COLUMNS = sql.raw('f.id, f.name, f.conditions, f.created_at, f.modified_at');

/** Tables of the ids a condition may name (identifiers chosen here, never from input). */
const REFERENCE_TABLES: Record<keyof FilterReferences, SqlFragment> = {
  status_id: sql.raw('crm.statuses'),
  owner_id: sql.raw('crm.users'),
  lead_source_id: sql.raw('crm.lead_sources'),
  company_id: sql.raw('crm.companies'),
};

/** Saved filters, and the SQL condition a saved filter stands for. */
const LIST: AccountList = {
  from: sql.raw('crm.filters f'),
  alias: 'f',
  columns: COLUMNS,
  orderBy: sql.raw('lower(f.name), f.id'),
};

@Injectable()
export class FiltersRepository {
  /** One page by name (case-insensitive), then id. */
  page(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    return accountPage<FilterRow>(db, LIST, accountId, time, page, perPage);
  }

  /** Every filter of the account by name. */
  all(db: Db, accountId: string): Promise<FilterRow[]> {
    return many(db, sql`SELECT ${COLUMNS} FROM crm.filters f WHERE f.account_id = ${accountId} ORDER BY lower(f.name), f.id`, {
      prepare: true,
    });
  }

  find(db: Db, accountId: string, id: string, lock = false): Promise<FilterRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${COLUMNS} FROM crm.filters f WHERE f.id = ${id} AND f.account_id = ${accountId} ${lock ? sql`FOR UPDATE` : sql.empty}`,
    );
  }

  async insert(db: Db, accountId: string, id: string, name: string, conditions: FilterConditionDto[]): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.filters (id, account_id, name, conditions) VALUES (${id}, ${accountId}, ${name}, ${JSON.stringify(conditions)})`,
    );
  }

  async update(db: Db, id: string, name: string, conditions: FilterConditionDto[]): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.filters SET name = ${name}, conditions = ${JSON.stringify(conditions)}, modified_at = now() WHERE id = ${id}`,
    );
  }

  /** False when the account has no such filter. */
  async delete(db: Db, accountId: string, id: string): Promise<boolean> {
    return (await execute(db, sql`DELETE FROM crm.filters WHERE id = ${id} AND account_id = ${accountId}`)) > 0;
  }

  /** Type and choices of the account's custom fields among `ids`. */
  async customFields(db: Db, accountId: string, ids: readonly string[]): Promise<Map<string, CustomFieldInfo>> {
    const rows =
      ids.length === 0
        ? []
        : await many<{ id: string; type: FieldType; choices: string[] | null }>(
            db,
            sql`SELECT id, type, choices FROM crm.fields WHERE account_id = ${accountId} AND field_set = 'custom_fields' AND id = ANY(${ids}::varchar[])`,
          );
    return new Map(rows.map((row) => [row.id, { type: row.type, choices: row.choices }]));
  }

  /** Those of `ids` that name a record of `kind` of the account. */
  async existingIds(db: Db, accountId: string, kind: keyof FilterReferences, ids: readonly string[]): Promise<Set<string>> {
    const rows = await many<{ id: string }>(
      db,
      sql`SELECT id FROM ${REFERENCE_TABLES[kind]} WHERE account_id = ${accountId} AND id = ANY(${ids}::varchar[])`,
    );
    return new Set(rows.map((row) => row.id));
  }

  /** See {@link savedFilterSql}. */
  savedFilter(db: Db, accountId: string, filterId: string): Promise<SqlFragment> {
    return savedFilterSql(db, accountId, filterId);
  }
}

/**
 * The condition of a saved filter (`filter_id` on GET /contacts and GET /deals) over contacts
 * aliased `c`; 404 resource_not_found when the filter is not the account's.
 */
export async function savedFilterSql(db: Db, accountId: string, filterId: string): Promise<SqlFragment> {
  const id = filterId.toLowerCase();
  const row = isId(id)
    ? await maybeOne<{ conditions: FilterConditionDto[] }>(
        db,
        sql`SELECT conditions FROM crm.filters WHERE id = ${id} AND account_id = ${accountId}`,
      )
    : undefined;
  if (!row) throw ApiError.notFound('Filter not found');
  const customIds = [
    ...new Set(row.conditions.filter((c) => c.field === 'custom_field' && c.custom_field_id).map((c) => c.custom_field_id!)),
  ];
  const types = new Map<string, FieldType>();
  if (customIds.length > 0) {
    const fields = await many<{ id: string; type: FieldType }>(
      db,
      sql`SELECT id, type FROM crm.fields WHERE account_id = ${accountId} AND field_set = 'custom_fields' AND id = ANY(${customIds}::varchar[])`,
    );
    for (const field of fields) types.set(field.id, field.type);
  }
  return conditionsSql(row.conditions, types);
}

/**
 * Exclusive upper bound (`until` of a day includes that day) or inclusive one (Unix seconds),
 * clamped to the years 0001-9999 like the list filters (boundInstant).
 */
function timeBound(value: string | number, operator: 'since' | 'until'): { op: SqlFragment; at: string } {
  if (typeof value === 'number') return { op: sql.raw(operator === 'since' ? '>=' : '<='), at: boundInstant(value) };
  if (operator === 'since') return { op: sql.raw('>='), at: boundInstant(value) };
  return { op: sql.raw('<'), at: boundInstant(value, true) };
}

const TRUE = sql.raw('TRUE');
const FALSE = sql.raw('FALSE');

/**
 * The SQL of normalized conditions (all must hold) over contacts `c`. `customTypes` holds the
 * types of the custom fields that still exist: a condition on a deleted field sees every contact
 * as having no value for it. Column names come from whitelists only; every value is a parameter.
 */
export function conditionsSql(conditions: readonly FilterConditionDto[], customTypes: ReadonlyMap<string, FieldType>): SqlFragment {
  if (conditions.length === 0) return TRUE;
  return sql.join(
    conditions.map((condition) => sql`(${conditionSql(condition, customTypes)})`),
    ' AND ',
  );
}

function conditionSql(c: FilterConditionDto, customTypes: ReadonlyMap<string, FieldType>): SqlFragment {
  const { field, operator, value } = c;
  if ((FILTER_TEXT_FIELDS as readonly string[]).includes(field)) return textSql(sql.raw(`c.${field}`), operator, value as string);
  switch (field) {
    case 'email':
    case 'url':
    case 'phone': {
      const column = sql.raw(field === 'email' ? 'c.emails' : field === 'url' ? 'c.urls' : 'c.phones');
      const elements = sql`jsonb_array_elements(CASE WHEN jsonb_typeof(${column}) = 'array' THEN ${column} ELSE '[]'::jsonb END) e`;
      const item =
        field === 'phone' ? sql`regexp_replace(coalesce(e->>'value', ''), '\\D', '', 'g')` : sql`lower(coalesce(e->>'value', ''))`;
      if (operator === 'is_empty' || operator === 'is_not_empty')
        return sql`${operator === 'is_empty' ? sql`NOT ` : sql.empty}EXISTS (SELECT 1 FROM ${elements} WHERE ${item} <> '')`;
      const needle = field === 'phone' ? String(value) : String(value).toLowerCase();
      if (operator === 'equals') return sql`EXISTS (SELECT 1 FROM ${elements} WHERE ${item} = ${needle})`;
      return sql`EXISTS (SELECT 1 FROM ${elements} WHERE ${item} LIKE ${`%${escapeLike(needle)}%`})`;
    }
    case 'status_id':
    case 'owner_id':
    case 'lead_source_id':
    case 'company_id': {
      const column = sql.raw(`c.${field}`);
      if (operator === 'is_empty') return sql`${column} IS NULL`;
      if (operator === 'is_not_empty') return sql`${column} IS NOT NULL`;
      return operator === 'in'
        ? sql`${column} = ANY(${value}::varchar[])`
        : sql`(${column} IS NULL OR NOT (${column} = ANY(${value}::varchar[])))`;
    }
    case 'tag': {
      const names = (value as string[]).map((n) => n.toLowerCase());
      const tagged = sql`FROM crm.contact_tags ct JOIN crm.tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id AND lower(t.name) = ANY(${names}::text[])`;
      if (operator === 'has_any') return sql`EXISTS (SELECT 1 ${tagged})`;
      if (operator === 'has_none') return sql`NOT EXISTS (SELECT 1 ${tagged})`;
      return sql`(SELECT count(DISTINCT lower(t.name)) ${tagged}) = ${names.length}::int`;
    }
    case 'starred':
      return value ? sql`c.starred` : sql`NOT c.starred`;
    case 'pending_deal':
      return sql`${value ? sql.empty : sql`NOT `}EXISTS (SELECT 1 FROM crm.deals d WHERE d.contact_id = c.id AND d.status = 'pending')`;
    case 'has_next_action':
      return sql`${value ? sql.empty : sql`NOT `}EXISTS (SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.status IN ${NEXT_STATUSES_SQL})`;
    case 'created_at':
    case 'modified_at': {
      const bound = timeBound(value as string | number, operator as 'since' | 'until');
      return sql`${sql.raw(`c.${field}`)} ${bound.op} ${bound.at}::timestamptz`;
    }
    case 'custom_field':
      return customSql(c, customTypes.get(c.custom_field_id ?? ''));
    default:
      return FALSE;
  }
}

function textSql(expr: SqlFragment, operator: string, value: string): SqlFragment {
  const lowered = sql`lower(coalesce(${expr}, ''))`;
  switch (operator) {
    case 'is_empty':
      return sql`coalesce(${expr}, '') = ''`;
    case 'is_not_empty':
      return sql`coalesce(${expr}, '') <> ''`;
    case 'equals':
      return sql`${lowered} = ${value.toLowerCase()}`;
    case 'not_equals':
      return sql`${lowered} <> ${value.toLowerCase()}`;
    case 'contains':
      return sql`${lowered} LIKE ${`%${escapeLike(value.toLowerCase())}%`}`;
    case 'not_contains':
      return sql`${lowered} NOT LIKE ${`%${escapeLike(value.toLowerCase())}%`}`;
    default:
      return sql`${lowered} LIKE ${`${escapeLike(value.toLowerCase())}%`}`;
  }
}

function customSql(c: FilterConditionDto, type: FieldType | undefined): SqlFragment {
  const { operator, value } = c;
  if (type === undefined) {
    // A deleted field: every contact has no value for it.
    const holds =
      ['is_empty', 'not_equals', 'not_contains', 'not_in', 'has_none'].includes(operator) || (operator === 'is' && value === false);
    return holds ? TRUE : FALSE;
  }
  const json = sql`(c.custom_fields -> ${c.custom_field_id}::text)`;
  const scalar = sql`(CASE WHEN jsonb_typeof(${json}) IN ('string', 'number', 'boolean') THEN ${json} #>> '{}' END)`;
  switch (type) {
    case 'text':
      return textSql(scalar, operator, value as string);
    case 'number': {
      const num = sql`(CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json} #>> '{}')::numeric END)`;
      if (operator === 'is_empty') return sql`${num} IS NULL`;
      if (operator === 'is_not_empty') return sql`${num} IS NOT NULL`;
      const op = sql.raw(operator === 'equals' ? '=' : operator === 'greater_than' ? '>' : '<');
      return sql`coalesce(${num} ${op} ${value}::numeric, false)`;
    }
    case 'date': {
      const day = sql`(CASE WHEN ${scalar} ~ '^\\d{4}-\\d{2}-\\d{2}$' THEN ${scalar} END)`;
      if (operator === 'is_empty') return sql`${day} IS NULL`;
      if (operator === 'is_not_empty') return sql`${day} IS NOT NULL`;
      const op = sql.raw(operator === 'equals' ? '=' : operator === 'since' ? '>=' : '<=');
      return sql`coalesce(${day} ${op} ${value}::text, false)`;
    }
    case 'checkbox':
      return value ? sql`${json} = 'true'::jsonb` : sql`${json} IS DISTINCT FROM 'true'::jsonb`;
    case 'select_box':
      if (operator === 'is_empty') return sql`coalesce(${scalar}, '') = ''`;
      if (operator === 'is_not_empty') return sql`coalesce(${scalar}, '') <> ''`;
      return operator === 'in'
        ? sql`coalesce(${scalar} = ANY(${value}::text[]), false)`
        : sql`NOT coalesce(${scalar} = ANY(${value}::text[]), false)`;
    case 'multiple_choice': {
      const array = sql`(CASE WHEN jsonb_typeof(${json}) = 'array' THEN ${json} ELSE '[]'::jsonb END)`;
      if (operator === 'is_empty') return sql`jsonb_array_length(${array}) = 0`;
      if (operator === 'is_not_empty') return sql`jsonb_array_length(${array}) > 0`;
      if (operator === 'has_all') return sql`${array} ?& ${value}::text[]`;
      const any = sql`${array} ?| ${value}::text[]`;
      return operator === 'has_any' ? any : sql`NOT (${any})`;
    }
  }
}
