import { isId } from '@crm/common';
import { ApiError, FILTER_TEXT_FIELDS, type FieldType, type FilterConditionDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { NEXT_ACTION_STATUSES_SQL } from '../summary/contact-counts';

/** A SQL condition over `crm.contacts` aliased `c`, with its parameters numbered from `firstParam`. */
export interface SqlCondition {
  sql: string;
  params: unknown[];
}

/**
 * The condition of a saved filter (`filter_id` on GET /contacts and GET /deals) over contacts
 * aliased `c`; 404 resource_not_found when the filter is not the account's.
 */
export async function savedFilterCondition(
  m: EntityManager,
  accountId: string,
  filterId: string,
  firstParam: number,
): Promise<SqlCondition> {
  const id = filterId.toLowerCase();
  const [row]: Array<{ conditions: FilterConditionDto[] }> = isId(id)
    ? await m.query('SELECT conditions FROM crm.filters WHERE id = $1 AND account_id = $2', [id, accountId])
    : [];
  if (!row) throw ApiError.notFound('Filter not found');
  const customIds = [
    ...new Set(row.conditions.filter((c) => c.field === 'custom_field' && c.custom_field_id).map((c) => c.custom_field_id!)),
  ];
  const types = new Map<string, FieldType>();
  if (customIds.length > 0) {
    const fields: Array<{ id: string; type: FieldType }> = await m.query(
      "SELECT id, type FROM crm.fields WHERE account_id = $1 AND field_set = 'custom_fields' AND id = ANY($2::varchar[])",
      [accountId, customIds],
    );
    for (const field of fields) types.set(field.id, field.type);
  }
  return conditionsSql(row.conditions, firstParam, types);
}

/** `%`, `_` and `\` stand for themselves in a LIKE pattern built from user text. */
function likeEscape(value: string): string {
  return value.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** Exclusive upper bound (`until` of a day includes that day) or inclusive one (Unix seconds). */
function timeBound(value: string | number, operator: 'since' | 'until'): { op: string; at: string } {
  if (typeof value === 'number') return { op: operator === 'since' ? '>=' : '<=', at: new Date(value * 1000).toISOString() };
  const day = new Date(`${value}T00:00:00.000Z`);
  if (operator === 'since') return { op: '>=', at: day.toISOString() };
  return { op: '<', at: new Date(day.getTime() + 86_400_000).toISOString() };
}

/**
 * Builds the SQL of normalized conditions (all must hold). `customTypes` holds the types of the
 * custom fields that still exist: a condition on a deleted field sees every contact as having no
 * value for it. Column names come from whitelists only; every value is a parameter.
 */
export function conditionsSql(
  conditions: readonly FilterConditionDto[],
  firstParam: number,
  customTypes: ReadonlyMap<string, FieldType>,
): SqlCondition {
  const params: unknown[] = [];
  const p = (value: unknown, cast = ''): string => {
    params.push(value);
    return `$${firstParam + params.length - 1}${cast}`;
  };
  const parts = conditions.map((condition) => `(${one(condition)})`);

  function one(c: FilterConditionDto): string {
    const { field, operator, value } = c;
    if ((FILTER_TEXT_FIELDS as readonly string[]).includes(field)) return textSql(`c.${field}`, operator, value as string);
    switch (field) {
      case 'email':
      case 'url':
      case 'phone': {
        const column = field === 'email' ? 'c.emails' : field === 'url' ? 'c.urls' : 'c.phones';
        const elements = `jsonb_array_elements(CASE WHEN jsonb_typeof(${column}) = 'array' THEN ${column} ELSE '[]'::jsonb END) e`;
        const item = field === 'phone' ? `regexp_replace(coalesce(e->>'value', ''), '\\D', '', 'g')` : `lower(coalesce(e->>'value', ''))`;
        if (operator === 'is_empty' || operator === 'is_not_empty')
          return `${operator === 'is_empty' ? 'NOT ' : ''}EXISTS (SELECT 1 FROM ${elements} WHERE ${item} <> '')`;
        const needle = field === 'phone' ? String(value) : String(value).toLowerCase();
        if (operator === 'equals') return `EXISTS (SELECT 1 FROM ${elements} WHERE ${item} = ${p(needle)})`;
        return `EXISTS (SELECT 1 FROM ${elements} WHERE ${item} LIKE ${p(`%${likeEscape(needle)}%`)})`;
      }
      case 'status_id':
      case 'owner_id':
      case 'lead_source_id':
      case 'company_id': {
        const column = `c.${field}`;
        if (operator === 'is_empty') return `${column} IS NULL`;
        if (operator === 'is_not_empty') return `${column} IS NOT NULL`;
        const list = p(value, '::varchar[]');
        return operator === 'in' ? `${column} = ANY(${list})` : `(${column} IS NULL OR NOT (${column} = ANY(${list})))`;
      }
      case 'tag': {
        const names = (value as string[]).map((n) => n.toLowerCase());
        const list = p(names, '::text[]');
        const tagged = `FROM crm.contact_tags ct JOIN crm.tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id AND lower(t.name) = ANY(${list})`;
        if (operator === 'has_any') return `EXISTS (SELECT 1 ${tagged})`;
        if (operator === 'has_none') return `NOT EXISTS (SELECT 1 ${tagged})`;
        return `(SELECT count(DISTINCT lower(t.name)) ${tagged}) = cardinality(${list})`;
      }
      case 'starred':
        return value ? 'c.starred' : 'NOT c.starred';
      case 'pending_deal':
        return `${value ? '' : 'NOT '}EXISTS (SELECT 1 FROM crm.deals d WHERE d.contact_id = c.id AND d.status = 'pending')`;
      case 'has_next_action':
        return `${value ? '' : 'NOT '}EXISTS (SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.status IN ${NEXT_ACTION_STATUSES_SQL})`;
      case 'created_at':
      case 'modified_at': {
        const bound = timeBound(value as string | number, operator as 'since' | 'until');
        return `c.${field} ${bound.op} ${p(bound.at, '::timestamptz')}`;
      }
      case 'custom_field':
        return customSql(c);
      default:
        return 'FALSE';
    }
  }

  function textSql(expr: string, operator: string, value: string): string {
    const lowered = `lower(coalesce(${expr}, ''))`;
    switch (operator) {
      case 'is_empty':
        return `coalesce(${expr}, '') = ''`;
      case 'is_not_empty':
        return `coalesce(${expr}, '') <> ''`;
      case 'equals':
        return `${lowered} = ${p(value.toLowerCase())}`;
      case 'not_equals':
        return `${lowered} <> ${p(value.toLowerCase())}`;
      case 'contains':
        return `${lowered} LIKE ${p(`%${likeEscape(value.toLowerCase())}%`)}`;
      case 'not_contains':
        return `${lowered} NOT LIKE ${p(`%${likeEscape(value.toLowerCase())}%`)}`;
      default:
        return `${lowered} LIKE ${p(`${likeEscape(value.toLowerCase())}%`)}`;
    }
  }

  function customSql(c: FilterConditionDto): string {
    const type = customTypes.get(c.custom_field_id ?? '');
    // A deleted field: every contact has no value for it.
    const json = type ? `(c.custom_fields -> ${p(c.custom_field_id, '::text')})` : 'NULL::jsonb';
    const scalar = `(CASE WHEN jsonb_typeof(${json}) IN ('string', 'number', 'boolean') THEN ${json} #>> '{}' END)`;
    const { operator, value } = c;
    switch (type) {
      case undefined:
        return ['is_empty', 'not_equals', 'not_contains', 'not_in', 'has_none'].includes(operator) || (operator === 'is' && value === false)
          ? 'TRUE'
          : 'FALSE';
      case 'text':
        return textSql(scalar, operator, value as string);
      case 'number': {
        const num = `(CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json} #>> '{}')::numeric END)`;
        if (operator === 'is_empty') return `${num} IS NULL`;
        if (operator === 'is_not_empty') return `${num} IS NOT NULL`;
        const op = operator === 'equals' ? '=' : operator === 'greater_than' ? '>' : '<';
        return `coalesce(${num} ${op} ${p(value, '::numeric')}, false)`;
      }
      case 'date': {
        const day = `(CASE WHEN ${scalar} ~ '^\\d{4}-\\d{2}-\\d{2}$' THEN ${scalar} END)`;
        if (operator === 'is_empty') return `${day} IS NULL`;
        if (operator === 'is_not_empty') return `${day} IS NOT NULL`;
        const op = operator === 'equals' ? '=' : operator === 'since' ? '>=' : '<=';
        return `coalesce(${day} ${op} ${p(value, '::text')}, false)`;
      }
      case 'checkbox':
        return value ? `${json} = 'true'::jsonb` : `${json} IS DISTINCT FROM 'true'::jsonb`;
      case 'select_box':
        if (operator === 'is_empty') return `coalesce(${scalar}, '') = ''`;
        if (operator === 'is_not_empty') return `coalesce(${scalar}, '') <> ''`;
        return operator === 'in'
          ? `coalesce(${scalar} = ANY(${p(value, '::text[]')}), false)`
          : `NOT coalesce(${scalar} = ANY(${p(value, '::text[]')}), false)`;
      case 'multiple_choice': {
        const array = `(CASE WHEN jsonb_typeof(${json}) = 'array' THEN ${json} ELSE '[]'::jsonb END)`;
        if (operator === 'is_empty') return `jsonb_array_length(${array}) = 0`;
        if (operator === 'is_not_empty') return `jsonb_array_length(${array}) > 0`;
        if (operator === 'has_all') return `${array} ?& ${p(value, '::text[]')}`;
        const any = `${array} ?| ${p(value, '::text[]')}`;
        return operator === 'has_any' ? any : `NOT (${any})`;
      }
    }
  }

  return { sql: parts.length > 0 ? parts.join(' AND ') : 'TRUE', params };
}
