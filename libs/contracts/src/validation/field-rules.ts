import { type ClassConstructor, Transform, Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { emptyAsNull, lower, toBoolean, ToBoolean, trim } from './transforms';
import { ID_PATTERN, present } from './validators';

/**
 * Composite field rules: one decorator for a stack of decorators that repeats across requests.
 * Messages name the decorated property, exactly as the stacks they replace did.
 */

/**
 * The condition of a field a subclass makes required: `ValidateIf(ALWAYS_VALIDATE)` replaces an
 * inherited "only when sent" (class-validator keeps an inherited conditional unless the subclass
 * declares its own), and the OpenAPI builder reads the field as required.
 */
export const ALWAYS_VALIDATE = (): boolean => true;

/** Applies `decorators` as if written one above the other (TypeScript applies the lowest first). */
export function stack(...decorators: PropertyDecorator[]): PropertyDecorator {
  return (target, key) => {
    for (const decorate of [...decorators].reverse()) decorate(target, key);
  };
}

/** Decorators built from the property's name. */
function named(build: (name: string) => PropertyDecorator[]): PropertyDecorator {
  return (target, key) => stack(...build(String(key)))(target, key);
}

/** Optional text, trimmed, at most `max` characters. */
export function OptionalTrimmedString(max: number): PropertyDecorator {
  return named((name) => [
    IsOptional(),
    Transform(trim),
    IsString({ message: `${name} must be a string` }),
    MaxLength(max, { message: `${name} must be at most ${max} characters` }),
  ]);
}

/** Optional 24-hex id of a record of the account. */
export function OptionalId(): PropertyDecorator {
  return named((name) => [IsOptional(), Matches(ID_PATTERN, { message: `${name} must be a 24-character hexadecimal id` })]);
}

/**
 * An optional reference that answers show as '' when none (decisions.md "OnePageCRM shapes and
 * the conformance fixture"): '' is taken as null (none), so a client can send back what it read.
 */
export function OptionalIdOrEmpty(): PropertyDecorator {
  return named((name) => [
    Transform(emptyAsNull),
    IsOptional(),
    Matches(ID_PATTERN, { message: `${name} must be a 24-character hexadecimal id` }),
  ]);
}

/** Optional boolean; in a query string true/false in any letter case or 1/0. */
export function OptionalFlag(): PropertyDecorator {
  return named((name) => [IsOptional(), Transform(toBoolean), IsBoolean({ message: `${name} must be true or false (or 1 or 0)` })]);
}

/** Unix seconds, checked when sent and not null. */
export function UnixSeconds(): PropertyDecorator {
  return named((name) => {
    const message = `${name} must be Unix seconds`;
    return [ValidateIf(present(name)), IsInt({ message }), Min(0, { message }), Max(99_999_999_999, { message })];
  });
}

/** `contact_id` of a record created for a contact: required, any string up to 64 characters (an unknown id is 404). */
export function RequiredContactId(): PropertyDecorator {
  return stack(
    IsString({ message: 'contact_id is required' }),
    IsNotEmpty({ message: 'contact_id is required' }),
    MaxLength(64, { message: 'contact_id must be a contact id' }),
  );
}

/** Query (or body) `partial=true` on PUT: change only the fields sent. */
export function PartialFlag(): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    ToBoolean()(target, key);
    IsBoolean({ message: 'partial must be true or false' })(target, key);
  };
}

/** `order`: asc or desc, any letter case. */
export function SortOrderParam(): PropertyDecorator {
  return stack(IsOptional(), Transform(lower), IsIn(['asc', 'desc'], { message: 'order must be asc or desc' }));
}

/** `{ <set>_field: { id } }` of a field value on write: required, an object, validated as `type`. */
export function FieldReference(type: () => ClassConstructor<object>): PropertyDecorator {
  return named((name) => [
    IsDefined({ message: `${name} is required` }),
    IsObject({ message: `${name} must be an object { id }` }),
    ValidateNested(),
    Type(type),
  ]);
}
