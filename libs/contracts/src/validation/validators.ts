import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

export const ID_PATTERN = /^[0-9a-fA-F]{24}$/;

function given(value: unknown): boolean {
  return value !== undefined && value !== null;
}

/**
 * The parameter may not be sent together with any of `others`. Put it on every member of the
 * group, so a forbidden combination names each parameter involved.
 */
export function NotWith(others: readonly string[], options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'notWith',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate(value: unknown, args: ValidationArguments): boolean {
          if (!given(value)) return true;
          const object = args.object as Record<string, unknown>;
          return others.every((other) => !given(object[other]));
        },
        defaultMessage(args: ValidationArguments): string {
          const object = args.object as Record<string, unknown>;
          const clash = others.filter((other) => given(object[other]));
          return `${args.property} cannot be combined with ${clash.join(', ')}`;
        },
      },
    });
  };
}

/** A field the server sets: refused whenever it is sent (null too). */
export function ReadOnlyField(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'readOnlyField',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate: (value: unknown) => value === undefined,
        defaultMessage: (args: ValidationArguments) => `${args.property} is read-only`,
      },
    });
  };
}

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

/**
 * A rule on the value alone, as a decorator factory: `name` is its key in CUSTOM_RULE_SCHEMAS, and
 * its message says the field "must be `mustBe`" (an `options.message` replaces it).
 */
export function valueRule(name: string, mustBe: string, validate: (value: unknown) => boolean) {
  return (options?: ValidationOptions): PropertyDecorator =>
    (target, propertyName) =>
      registerDecorator({
        name,
        target: target.constructor,
        propertyName: propertyName as string,
        options: { message: `${String(propertyName)} must be ${mustBe}`, ...options },
        validator: { validate },
      });
}

/** `YYYY-MM-DD` (a real day). */
export const IsPlainDate = valueRule('isPlainDate', 'a date YYYY-MM-DD', isCalendarDate);

/** A time filter bound: `YYYY-MM-DD` (a UTC day) or Unix seconds (decisions.md "Paging and lists"). */
export function isTimeBound(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  if (/^\d{1,12}$/.test(value)) return true;
  return isCalendarDate(value);
}

export const IsTimeBound = valueRule('isTimeBound', 'a date YYYY-MM-DD or Unix seconds', isTimeBound);

/** Validates a field only when it is sent and not null (`ValidateIf(present('x'))`). */
export const present = (key: string) => (o: Record<string, unknown>) => o[key] !== undefined && o[key] !== null;

/** Largest money value accepted (numeric(18, 2) holds 16 integer digits). */
export const MAX_MONEY = 1e13;

/** Longest free text (deal text, notes, calls, meetings, actions). */
export const MAX_TEXT = 100_000;

/**
 * The JSON schema each custom rule above stands for, by rule name, for the OpenAPI document and
 * the MCP tool schemas (class-validator-jsonschema knows only the built-in rules). A rule that a
 * schema cannot express (`notWith`: a relation between parameters) is `{}` and said in prose.
 */
export const CUSTOM_RULE_SCHEMAS: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  isPlainDate: { type: 'string', format: 'date' },
  isTimeBound: {
    type: 'string',
    pattern: '^([0-9]{1,12}|[0-9]{4}-[0-9]{2}-[0-9]{2})$',
    description: '`YYYY-MM-DD` (a UTC day) or Unix seconds',
  },
  notWith: {},
  isTimeZone: { type: 'string', description: 'an IANA time zone name such as Europe/Dublin' },
  isCurrencyCode: { type: 'string', pattern: '^[A-Z]{3}$', description: 'an ISO 4217 currency code' },
  readOnlyField: { readOnly: true, description: 'set by the server; refused when sent' },
};
