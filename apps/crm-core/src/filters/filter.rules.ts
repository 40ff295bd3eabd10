import { isId } from '@crm/common';
import {
  ApiError,
  ErrorName,
  FILTER_CHANNEL_FIELDS,
  FILTER_FIELDS,
  FILTER_FLAG_FIELDS,
  FILTER_LIMITS,
  FILTER_REFERENCE_FIELDS,
  FILTER_TEXT_FIELDS,
  FILTER_TIME_FIELDS,
  type FieldType,
  type FieldErrors,
  type FilterConditionDto,
  type FilterField,
  type FilterOperator,
} from '@crm/contracts';
import { isPlainDate } from '../fields/field-values';

/** What a custom field condition needs to know of its field. */
export interface CustomFieldInfo {
  type: FieldType;
  choices: readonly string[] | null;
}

/** Ids a filter's conditions name, to be checked against the account (404 when unknown). */
export type FilterReferences = Record<(typeof FILTER_REFERENCE_FIELDS)[number], Array<{ id: string; key: string }>>;

const TEXT_OPERATORS: readonly FilterOperator[] = [
  'equals',
  'not_equals',
  'contains',
  'not_contains',
  'starts_with',
  'is_empty',
  'is_not_empty',
];
const CHANNEL_OPERATORS: readonly FilterOperator[] = ['equals', 'contains', 'is_empty', 'is_not_empty'];
const EMPTY_OPERATORS: readonly FilterOperator[] = ['is_empty', 'is_not_empty'];
const CUSTOM_OPERATORS: Readonly<Record<FieldType, readonly FilterOperator[]>> = {
  text: ['equals', 'not_equals', 'contains', 'not_contains', 'starts_with', 'is_empty', 'is_not_empty'],
  number: ['equals', 'greater_than', 'less_than', 'is_empty', 'is_not_empty'],
  date: ['equals', 'since', 'until', 'is_empty', 'is_not_empty'],
  checkbox: ['is'],
  select_box: ['in', 'not_in', 'is_empty', 'is_not_empty'],
  multiple_choice: ['has_any', 'has_all', 'has_none', 'is_empty', 'is_not_empty'],
};

/** Operators each field takes (custom fields: by the field's type, see CUSTOM_OPERATORS). */
export function operatorsOf(field: FilterField, customType?: FieldType): readonly FilterOperator[] {
  if ((FILTER_TEXT_FIELDS as readonly string[]).includes(field)) return TEXT_OPERATORS;
  if ((FILTER_CHANNEL_FIELDS as readonly string[]).includes(field)) return CHANNEL_OPERATORS;
  if (field === 'status_id' || field === 'owner_id') return ['in', 'not_in'];
  if (field === 'lead_source_id' || field === 'company_id') return ['in', 'not_in', 'is_empty', 'is_not_empty'];
  if (field === 'tag') return ['has_any', 'has_all', 'has_none'];
  if ((FILTER_FLAG_FIELDS as readonly string[]).includes(field)) return ['is'];
  if ((FILTER_TIME_FIELDS as readonly string[]).includes(field)) return ['since', 'until'];
  return customType ? CUSTOM_OPERATORS[customType] : [];
}

class ConditionError extends Error {
  constructor(
    readonly key: string,
    message: string,
  ) {
    super(message);
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function text(value: unknown, key = 'value'): string {
  if (typeof value !== 'string') throw new ConditionError(key, `must be a string of 1 to ${FILTER_LIMITS.textValue} characters`);
  const trimmed = value.trim();
  if (trimmed.length < 1 || trimmed.length > FILTER_LIMITS.textValue)
    throw new ConditionError(key, `must be a string of 1 to ${FILTER_LIMITS.textValue} characters`);
  return trimmed;
}

function textList(value: unknown, what: string): string[] {
  const message = `must be an array of 1 to ${FILTER_LIMITS.listValues} ${what}`;
  if (!Array.isArray(value) || value.length < 1 || value.length > FILTER_LIMITS.listValues) throw new ConditionError('value', message);
  const out: string[] = [];
  for (const item of value as unknown[]) {
    if (typeof item !== 'string' || item.trim().length < 1 || item.trim().length > FILTER_LIMITS.textValue)
      throw new ConditionError('value', message);
    if (!out.some((o) => o.toLowerCase() === item.trim().toLowerCase())) out.push(item.trim());
  }
  return out;
}

function idList(value: unknown): string[] {
  const ids = textList(value, 'ids').map((id) => id.toLowerCase());
  const bad = ids.find((id) => !isId(id));
  if (bad !== undefined) throw new ConditionError('value', `must be an array of ids; ${bad} is not an id`);
  return ids;
}

function choiceList(value: unknown, choices: readonly string[]): string[] {
  const picked = textList(value, "of the field's choices");
  const outside = picked.find((p) => !choices.includes(p));
  if (outside !== undefined) throw new ConditionError('value', `${outside} is not one of the field's choices: ${choices.join(', ')}`);
  return picked;
}

function bool(value: unknown): boolean {
  if (typeof value !== 'boolean') throw new ConditionError('value', 'must be true or false');
  return value;
}

/** `YYYY-MM-DD` (a UTC day) or Unix seconds (a number or a string of digits), as list time filters take. */
function timeBound(value: unknown): string | number {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 253402300799) return value;
  if (typeof value === 'string' && /^\d{1,12}$/.test(value.trim()) && Number(value.trim()) <= 253402300799) return Number(value.trim());
  if (typeof value === 'string' && isPlainDate(value.trim())) return value.trim();
  throw new ConditionError('value', 'must be a date YYYY-MM-DD or Unix seconds');
}

function date(value: unknown): string {
  if (typeof value !== 'string' || !isPlainDate(value.trim())) throw new ConditionError('value', 'must be a date YYYY-MM-DD');
  return value.trim();
}

function number(value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ConditionError('value', 'must be a finite number');
  return value;
}

function phoneDigits(value: unknown): string {
  const digits = text(value).replace(/\D/g, '');
  if (digits.length === 0) throw new ConditionError('value', 'must contain digits');
  return digits;
}

/** The value of one condition, checked against its field and operator; undefined for is_empty/is_not_empty. */
function valueOf(field: FilterField, operator: FilterOperator, raw: unknown, custom?: CustomFieldInfo): FilterConditionDto['value'] {
  if (EMPTY_OPERATORS.includes(operator)) {
    if (raw !== undefined && raw !== null) throw new ConditionError('value', `takes no value with operator ${operator}`);
    return undefined;
  }
  if (raw === undefined || raw === null) throw new ConditionError('value', `is required with operator ${operator}`);
  if ((FILTER_TEXT_FIELDS as readonly string[]).includes(field) || field === 'email' || field === 'url') return text(raw);
  if (field === 'phone') return phoneDigits(raw);
  if ((FILTER_REFERENCE_FIELDS as readonly string[]).includes(field)) return idList(raw);
  if (field === 'tag') return textList(raw, 'tag names');
  if ((FILTER_FLAG_FIELDS as readonly string[]).includes(field)) return bool(raw);
  if ((FILTER_TIME_FIELDS as readonly string[]).includes(field)) return timeBound(raw);
  switch (custom!.type) {
    case 'text':
      return text(raw);
    case 'number':
      return number(raw);
    case 'date':
      return date(raw);
    case 'checkbox':
      return bool(raw);
    case 'select_box':
    case 'multiple_choice':
      return choiceList(raw, custom!.choices ?? []);
  }
}

/** Custom field ids the raw conditions name (to look their types up before {@link parseConditions}). */
export function customFieldIdsOf(raw: readonly unknown[]): string[] {
  const ids = new Set<string>();
  for (const c of raw) {
    if (isPlainObject(c) && c.field === 'custom_field' && typeof c.custom_field_id === 'string' && isId(c.custom_field_id.toLowerCase()))
      ids.add(c.custom_field_id.toLowerCase());
  }
  return [...ids];
}

/**
 * Checks raw conditions against the condition language and normalizes them (trimmed text,
 * lower-case ids, repeats dropped, phone values reduced to digits). Shape errors: 400 keyed
 * `conditions.<index>.<key>`; a custom field that is not the account's: 404 keyed the same way.
 * Returns the conditions to store and the ids to check against the account.
 */
export function parseConditions(
  raw: readonly unknown[],
  customFields: ReadonlyMap<string, CustomFieldInfo>,
): { conditions: FilterConditionDto[]; references: FilterReferences } {
  const conditions: FilterConditionDto[] = [];
  const references: FilterReferences = { status_id: [], owner_id: [], lead_source_id: [], company_id: [] };
  const errors: FieldErrors = {};
  const missing: FieldErrors = {};
  raw.forEach((input, index) => {
    const at = `conditions.${index}`;
    try {
      if (!isPlainObject(input)) throw new ConditionError('', 'must be an object { field, operator, value }');
      const field = input.field as FilterField;
      if (typeof field !== 'string' || !(FILTER_FIELDS as readonly string[]).includes(field))
        throw new ConditionError('field', `must be one of: ${FILTER_FIELDS.join(', ')}`);
      let custom: CustomFieldInfo | undefined;
      let customId: string | undefined;
      if (field === 'custom_field') {
        customId = typeof input.custom_field_id === 'string' ? input.custom_field_id.toLowerCase() : '';
        if (!isId(customId)) throw new ConditionError('custom_field_id', 'must be the id of a contact custom field');
        custom = customFields.get(customId);
        if (!custom) {
          missing[`${at}.custom_field_id`] = 'names no contact custom field of this account';
          return;
        }
      } else if (input.custom_field_id !== undefined) {
        throw new ConditionError('custom_field_id', 'is only for conditions on field custom_field');
      }
      const allowed = operatorsOf(field, custom?.type);
      const operator = input.operator as FilterOperator;
      if (typeof operator !== 'string' || !allowed.includes(operator))
        throw new ConditionError('operator', `must be one of: ${allowed.join(', ')}${custom ? ` (for a ${custom.type} field)` : ''}`);
      const value = valueOf(field, operator, input.value, custom);
      const condition: FilterConditionDto = { field, operator };
      if (customId) condition.custom_field_id = customId;
      if (value !== undefined) condition.value = value;
      conditions.push(condition);
      if ((FILTER_REFERENCE_FIELDS as readonly string[]).includes(field) && Array.isArray(value)) {
        for (const id of value) references[field as keyof FilterReferences].push({ id, key: `${at}.value` });
      }
    } catch (error) {
      if (!(error instanceof ConditionError)) throw error;
      errors[error.key ? `${at}.${error.key}` : at] = error.message;
    }
  });
  if (Object.keys(errors).length > 0) throw ApiError.invalid(errors, 'A condition of the filter is invalid');
  if (Object.keys(missing).length > 0)
    throw new ApiError(ErrorName.ResourceNotFound, 'A condition names a custom field that does not exist', missing);
  return { conditions, references };
}
