import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { validateSync, type ValidationError } from 'class-validator';
import { ApiError, type FieldErrors } from '../errors/api-error';

function collect(errors: ValidationError[], prefix: string, out: FieldErrors): void {
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const messages = Object.values(error.constraints ?? {});
    if (messages.length > 0 && !out[field]) out[field] = messages[0];
    if (error.children?.length) collect(error.children, field, out);
  }
}

/** Deepest nesting of objects and arrays accepted in any input (the API's own records need 4). */
export const MAX_INPUT_DEPTH = 32;

/**
 * The top-level field under which `input` nests deeper than `maxDepth`, or null. Iterative, so a
 * hostile document cannot exhaust the stack here (class-transformer would, recursively).
 */
export function tooDeepField(input: object, maxDepth = MAX_INPUT_DEPTH): string | null {
  const stack: Array<[unknown, number, string]> = Object.entries(input).map(([k, v]) => [v, 1, k]);
  while (stack.length > 0) {
    const [value, depth, field] = stack.pop()!;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) return field;
    for (const child of Array.isArray(value) ? value : Object.values(value)) stack.push([child, depth + 1, field]);
  }
  return null;
}

/**
 * Parses untrusted input into a contract class and validates it: the gateway does this for HTTP
 * input, consumers do it again for NATS payloads before use. Failure: 400 invalid_request_data
 * with `errors` keyed by field.
 */
export function parseContract<T extends object>(cls: ClassConstructor<T>, input: unknown): T {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw ApiError.invalid({ body: 'must be a JSON object' });
  }
  const deep = tooDeepField(input);
  if (deep !== null) throw ApiError.invalid({ [deep]: `is nested too deeply (at most ${MAX_INPUT_DEPTH} levels)` });
  const instance = plainToInstance(cls, input, { exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: false, validationError: { target: false, value: false } });
  if (errors.length > 0) {
    const fields: FieldErrors = {};
    collect(errors, '', fields);
    throw ApiError.invalid(fields);
  }
  return instance;
}
