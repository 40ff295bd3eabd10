import { Transform } from 'class-transformer';
import { registerDecorator, type ValidationOptions } from 'class-validator';

const PLAIN_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar day written `YYYY-MM-DD` (2026-02-30 is not). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  const m = PLAIN_DATE.exec(value);
  if (!m) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (year < 1) return false;
  const at = new Date(0);
  at.setUTCFullYear(year, month - 1, day);
  return at.getUTCFullYear() === year && at.getUTCMonth() === month - 1 && at.getUTCDate() === day;
}

/** `YYYY-MM-DD` (a real day). */
export function IsPlainDate(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isPlainDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `${String(propertyName)} must be a date YYYY-MM-DD`,
        ...options,
      },
      validator: { validate: (value: unknown) => isCalendarDate(value) },
    });
}

/** A time filter bound: `YYYY-MM-DD` (a UTC day) or Unix seconds (decisions.md "Paging and lists"). */
export function isTimeBound(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (/^\d{1,12}$/.test(value)) return true;
  return isCalendarDate(value);
}

export function IsTimeBound(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isTimeBound',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `${String(propertyName)} must be a date YYYY-MM-DD or Unix seconds`,
        ...options,
      },
      validator: { validate: (value: unknown) => isTimeBound(value) },
    });
}

/** Boolean query values: true/false in any letter case and 1/0 (decisions.md "Requests"). */
export const ToBoolean = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => {
    if (typeof value !== 'string') return value;
    const v = value.trim().toLowerCase();
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    return value;
  });

/** Integers in a query string arrive as text. */
export const ToInteger = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) =>
    typeof value === 'string' && /^-?\d{1,15}$/.test(value.trim()) ? Number(value.trim()) : value,
  );

export const Trim = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

export const Lower = (): PropertyDecorator =>
  Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value));

/** Largest money value accepted (numeric(18, 2) holds 16 integer digits). */
export const MAX_MONEY = 1e13;

/** Longest free text (deal text, notes, calls, meetings, actions). */
export const MAX_TEXT = 100_000;
