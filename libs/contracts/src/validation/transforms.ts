import { Transform } from 'class-transformer';

/** Trims a string input; anything else passes through to be refused by its validator. */
export const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);

/** Trims each string of an array input. */
export const trimEach = ({ value }: { value: unknown }): unknown =>
  Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim() : v)) : value;

/** Trimmed and lower-cased (enumerations whose letter case does not matter). */
export const lower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/**
 * A column key (`sort_by`, `date_filter`): trimmed, lower-cased, and OnePageCRM's `updated_at`
 * read as our `modified_at` (its documented name for the same column).
 */
export const lowerKey = ({ value }: { value: unknown }): unknown => {
  const key = lower({ value });
  return key === 'updated_at' ? 'modified_at' : key;
};

/** Boolean query values: true/false in any letter case and 1/0 (decisions.md "Requests"). */
export function toBoolean({ value }: { value: unknown }): unknown {
  if (typeof value !== 'string') return value;
  const v = value.trim().toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return value;
}

export function toInteger({ value }: { value: unknown }): unknown {
  if (typeof value === 'string' && /^-?\d+$/.test(value.trim())) return Number(value.trim());
  return value;
}

/** A number sent as JSON or as a numeric query string stays a number; Unix seconds arrive as either. */
export function toTimeString({ value }: { value: unknown }): unknown {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) return String(value);
  return typeof value === 'string' ? value.trim() : value;
}

/** Boolean query values: true/false in any letter case and 1/0 (decisions.md "Requests"). */
export const ToBoolean = (): PropertyDecorator => Transform(toBoolean);

/** Integers in a query string arrive as text. */
export const ToInteger = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : value,
  );

export const Trim = (): PropertyDecorator => Transform(trim);

export const Lower = (): PropertyDecorator => Transform(lower);

export const LowerKey = (): PropertyDecorator => Transform(lowerKey);

/** '' is taken as null (none): fields that answer '' when unset accept it back. */
export const emptyAsNull = ({ value }: { value: unknown }): unknown => (value === '' ? null : value);

export const EmptyAsNull = (): PropertyDecorator => Transform(emptyAsNull);
