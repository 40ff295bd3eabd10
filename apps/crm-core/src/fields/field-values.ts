import { ApiError, type FieldType } from '@crm/contracts';

/** What a value check needs to know of a field: its type and, for choice types, its choices. */
export interface FieldDefinition {
  type: FieldType;
  choices?: readonly string[] | null;
}

/** A stored field value: null means "no value". */
export type FieldValue = string | number | boolean | string[] | null;

export type FieldValueCheck = { ok: true; value: FieldValue } | { ok: false; message: string };

/** Longest text value (the spec shows no limit; this keeps records bounded). */
export const MAX_TEXT_VALUE_LENGTH = 10_000;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day written YYYY-MM-DD (2026-02-30 is not). */
export function isPlainDate(value: string): boolean {
  const m = DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}

/**
 * Checks a value sent for a custom, company or deal field against the field's type and choices,
 * for contacts, companies and deals to use on write:
 *
 * - null (or undefined) is always accepted and means "no value";
 * - text: a string of at most {@link MAX_TEXT_VALUE_LENGTH} characters;
 * - number: a finite number (not a numeric string);
 * - date: a calendar day `YYYY-MM-DD`;
 * - checkbox: a boolean;
 * - select_box: one of the field's choices (exact spelling);
 * - multiple_choice: an array of the field's choices; repeats are dropped, order kept.
 *
 * Returns the value to store, or a message naming what is wrong.
 */
export function validateFieldValue(field: FieldDefinition, value: unknown): FieldValueCheck {
  if (value === null || value === undefined) return { ok: true, value: null };
  const choices = field.choices ?? [];
  switch (field.type) {
    case 'text':
      if (typeof value !== 'string') return { ok: false, message: 'must be a string' };
      if (value.length > MAX_TEXT_VALUE_LENGTH) return { ok: false, message: `must be at most ${MAX_TEXT_VALUE_LENGTH} characters` };
      return { ok: true, value };
    case 'number':
      if (typeof value !== 'number' || !Number.isFinite(value)) return { ok: false, message: 'must be a finite number' };
      return { ok: true, value };
    case 'date':
      if (typeof value !== 'string' || !isPlainDate(value)) return { ok: false, message: 'must be a date YYYY-MM-DD' };
      return { ok: true, value };
    case 'checkbox':
      if (typeof value !== 'boolean') return { ok: false, message: 'must be true or false' };
      return { ok: true, value };
    case 'select_box':
      if (typeof value !== 'string' || !choices.includes(value))
        return { ok: false, message: `must be one of the field's choices: ${choices.join(', ')}` };
      return { ok: true, value };
    case 'multiple_choice': {
      if (!Array.isArray(value)) return { ok: false, message: "must be an array of the field's choices" };
      const picked: string[] = [];
      for (const item of value as unknown[]) {
        if (typeof item !== 'string' || !choices.includes(item))
          return { ok: false, message: `must be an array of the field's choices: ${choices.join(', ')}` };
        if (!picked.includes(item)) picked.push(item);
      }
      return { ok: true, value: picked };
    }
    default:
      return { ok: false, message: `has an unknown field type ${String(field.type)}` };
  }
}

/**
 * {@link validateFieldValue} that throws 400 invalid_request_data with the message under `key`
 * (e.g. `custom_fields.0.value`), for callers that stop at the first bad value.
 */
export function assertFieldValue(field: FieldDefinition, value: unknown, key: string): FieldValue {
  const check = validateFieldValue(field, value);
  if (!check.ok) throw ApiError.invalid({ [key]: `${key} ${check.message}` });
  return check.value;
}
