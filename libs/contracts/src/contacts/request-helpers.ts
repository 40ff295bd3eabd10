import { registerDecorator, type ValidationArguments, type ValidationOptions } from 'class-validator';

export const ID_PATTERN = /^[0-9a-fA-F]{24}$/;

/** `YYYY-MM-DD` or Unix seconds (decisions.md "Paging and lists"). */
export const TIME_PATTERN = /^(\d{4}-\d{2}-\d{2}|\d{1,12})$/;

export const trim = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim() : value);
export const lower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.trim().toLowerCase() : value);

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

/** A real calendar day or Unix seconds (the pattern alone lets 2026-02-30 through). */
export function IsTimeValue(options?: ValidationOptions): PropertyDecorator {
  return (target: object, propertyName: string | symbol) => {
    registerDecorator({
      name: 'isTimeValue',
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: {
        validate(value: unknown): boolean {
          if (value === undefined || value === null) return true;
          if (typeof value !== 'string' || !TIME_PATTERN.test(value)) return false;
          if (/^\d+$/.test(value)) return true;
          const at = new Date(`${value}T00:00:00Z`);
          return !Number.isNaN(at.getTime()) && at.toISOString().slice(0, 10) === value;
        },
        defaultMessage(args: ValidationArguments): string {
          return `${args.property} must be a date YYYY-MM-DD or Unix seconds`;
        },
      },
    });
  };
}
