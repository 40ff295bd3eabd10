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
  const problem = inputProblem(input, maxDepth);
  return problem?.kind === 'deep' ? problem.field : null;
}

/**
 * The first problem no contract class can accept: nesting deeper than `maxDepth` (reported at the
 * top-level field) or a NUL character in a string or key (reported at its path, e.g.
 * `phones.0.value`: PostgreSQL cannot store U+0000, and no CRM text needs it).
 */
export function inputProblem(input: object, maxDepth = MAX_INPUT_DEPTH): { kind: 'deep' | 'nul'; field: string } | null {
  const stack: Array<[unknown, number, string, string]> = Object.entries(input).map(([k, v]) => [v, 1, k, k]);
  for (const key of Object.keys(input)) if (key.includes('\u0000')) return { kind: 'nul', field: key.replace(/\u0000/g, '') || 'body' };
  while (stack.length > 0) {
    const [value, depth, top, path] = stack.pop()!;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return { kind: 'nul', field: path };
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) return { kind: 'deep', field: top };
    for (const [key, child] of Object.entries(value)) {
      if (key.includes('\u0000')) return { kind: 'nul', field: path };
      stack.push([child, depth + 1, top, `${path}.${key}`]);
    }
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
  const problem = inputProblem(input);
  if (problem?.kind === 'deep') throw ApiError.invalid({ [problem.field]: `is nested too deeply (at most ${MAX_INPUT_DEPTH} levels)` });
  if (problem?.kind === 'nul') throw ApiError.invalid({ [problem.field]: 'must not contain NUL characters (U+0000)' });
  const instance = plainToInstance(cls, input, { exposeDefaultValues: true });
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: false, validationError: { target: false, value: false } });
  if (errors.length > 0) {
    const fields: FieldErrors = {};
    collect(errors, '', fields);
    throw ApiError.invalid(fields);
  }
  return instance;
}
