import { plainToInstance, type ClassConstructor } from 'class-transformer';
import { getMetadataStorage, validateSync, type ValidationError } from 'class-validator';
import { ApiError, type FieldErrors } from '../errors/api-error';

/**
 * The rules a value meets first: presence, then its type, then its form; a value of the wrong type
 * is reported as such ("must be a string"), never by a length or range rule that happened to run
 * first.
 */
const RULE_ORDER = [
  'isDefined',
  'isNotEmptyObject',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isArray',
  'isObject',
  'nestedValidation',
  'isEnum',
  'isIn',
  'isNotEmpty',
];
const rank = (constraint: string) => {
  const at = RULE_ORDER.indexOf(constraint);
  return at < 0 ? RULE_ORDER.length : at;
};

/** The message of the first rule the value broke, in {@link RULE_ORDER}; "is required" when it is missing. */
function firstFailure(error: ValidationError): string | undefined {
  const constraints = Object.entries(error.constraints ?? {});
  if (constraints.length === 0) return undefined;
  if (error.value === undefined && !('isDefined' in (error.constraints ?? {}))) return `${error.property} is required`;
  return constraints.sort(([a], [b]) => rank(a) - rank(b))[0][1];
}

function collect(errors: ValidationError[], prefix: string, out: FieldErrors): void {
  for (const error of errors) {
    const field = prefix ? `${prefix}.${error.property}` : error.property;
    const message = firstFailure(error);
    if (message !== undefined && !out[field]) out[field] = message;
    if (error.children?.length) collect(error.children, field, out);
  }
}

/**
 * class-validator looks up a class's rules on every validation by scanning the rules of every
 * registered class for inherited ones (`getTargetValidationMetadatas`): with this library's
 * hundreds of contract classes that scan was most of a request's validation time (about 10 of
 * 14 µs for a note). The rules are registered by decorators when the classes load and never
 * change after, so the answer for a class is kept; a rule registered later (a class loaded late)
 * empties the memo. Only the plain lookups are kept: those with groups or a schema name go
 * through as before.
 */
function memoizeRuleLookups(): void {
  const storage = getMetadataStorage() as ReturnType<typeof getMetadataStorage> & { [MEMOIZED]?: true };
  if (storage[MEMOIZED]) return;
  storage[MEMOIZED] = true;
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const add = storage.addValidationMetadata.bind(storage);
  const kept = new Map<string, Map<unknown, ReturnType<typeof lookup>>>();
  storage.addValidationMetadata = (metadata) => {
    kept.clear();
    add(metadata);
  };
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (schema || (groups && groups.length > 0)) return lookup(target, schema, always, strictGroups, groups);
    const flags = `${always}/${strictGroups}`;
    let byClass = kept.get(flags);
    if (!byClass) kept.set(flags, (byClass = new Map()));
    let rules = byClass.get(target);
    if (!rules) byClass.set(target, (rules = lookup(target, schema, always, strictGroups, groups)));
    return rules;
  };
}
const MEMOIZED = Symbol.for('crm.contracts.memoizedRuleLookups');
memoizeRuleLookups();

/*
 * Bounds of any input, checked before class-transformer touches it (docs/decisions.md "Request
 * input bounds, routing and metrics"). class-transformer de-duplicates an object's keys in
 * O(keys²) and recurses without limit, so an unbounded document stalls or crashes the process.
 * The largest legitimate requests stay far below: 500 custom, company or deal fields, 200 deal
 * items, 100 ids, 50 filter conditions of up to 100 values each (about 5,200 values in all).
 */

/** Deepest nesting of objects and arrays accepted in any input (the API's own records need 4). */
export const MAX_INPUT_DEPTH = 32;
/** Most keys of one object (a request's top level, query and body together, has about 60). */
export const MAX_OBJECT_KEYS = 500;
/** Longest array (the longest any contract accepts holds 500 entries). */
export const MAX_ARRAY_LENGTH = 1_000;
/** Most values in one input: every object key and array entry, at any depth, counted once. */
export const MAX_INPUT_VALUES = 20_000;

export type InputProblemKind = 'deep' | 'nul' | 'keys' | 'array' | 'values';

/** What no contract class can accept, where, and the message naming the limit. */
export interface InputProblem {
  kind: InputProblemKind;
  /** The field path (`phones.0.value`), the top-level field for nesting, `body` for the whole input. */
  field: string;
  message: string;
}

/** One value on the walk: its key and parent give its path, built only when a problem is found. */
interface Visit {
  value: unknown;
  depth: number;
  key: string;
  parent: Visit | undefined;
}

const WHOLE_INPUT = 'body';

function pathOf(visit: Visit): string {
  const keys: string[] = [];
  for (let at: Visit | undefined = visit; at?.parent; at = at.parent) keys.push(at.key);
  return keys.length > 0 ? keys.reverse().join('.') : WHOLE_INPUT;
}

function topFieldOf(visit: Visit): string {
  let at = visit;
  while (at.parent?.parent) at = at.parent;
  return at.parent ? at.key : WHOLE_INPUT;
}

const problem = (kind: InputProblemKind, field: string, message: string): InputProblem => ({ kind, field, message });

const NUL_MESSAGE = 'must not contain NUL characters (U+0000)';

/**
 * The first problem no contract class can accept, found in one pass over the input with an
 * explicit stack (no recursion, so hostile nesting cannot exhaust the call stack; each value is
 * visited once, and a path is built only for the problem reported):
 * - nesting deeper than `maxDepth`, reported at the top-level field;
 * - an object with more than {@link MAX_OBJECT_KEYS} keys, an array longer than
 *   {@link MAX_ARRAY_LENGTH}, reported at its path (`body` for the input itself);
 * - more than {@link MAX_INPUT_VALUES} keys and array entries in all, reported as `body`;
 * - a NUL character in a string or key, reported at its path (`phones.0.value`: PostgreSQL cannot
 *   store U+0000, and no CRM text needs it).
 */
export function inputProblem(input: object, maxDepth = MAX_INPUT_DEPTH): InputProblem | null {
  const root: Visit = { value: input, depth: 0, key: '', parent: undefined };
  const stack: Visit[] = [root];
  let values = 0;
  while (stack.length > 0) {
    const visit = stack.pop()!;
    const { value, depth } = visit;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return problem('nul', pathOf(visit), NUL_MESSAGE);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= maxDepth) return problem('deep', topFieldOf(visit), `is nested too deeply (at most ${maxDepth} levels)`);
    if (Array.isArray(value)) {
      if (value.length > MAX_ARRAY_LENGTH) return problem('array', pathOf(visit), `must hold at most ${MAX_ARRAY_LENGTH} entries`);
      values += value.length;
      if (values > MAX_INPUT_VALUES) return tooManyValues();
      for (let i = 0; i < value.length; i += 1) stack.push({ value: value[i] as unknown, depth: depth + 1, key: String(i), parent: visit });
      continue;
    }
    const keys = Object.keys(value);
    if (keys.length > MAX_OBJECT_KEYS) return problem('keys', pathOf(visit), `must have at most ${MAX_OBJECT_KEYS} keys`);
    values += keys.length;
    if (values > MAX_INPUT_VALUES) return tooManyValues();
    for (const key of keys) {
      if (key.includes('\u0000'))
        return problem('nul', visit === root ? key.replaceAll('\u0000', '') || WHOLE_INPUT : pathOf(visit), NUL_MESSAGE);
      stack.push({ value: (value as Record<string, unknown>)[key], depth: depth + 1, key, parent: visit });
    }
  }
  return null;
}

function tooManyValues(): InputProblem {
  return problem('values', WHOLE_INPUT, `must hold at most ${MAX_INPUT_VALUES} keys and array entries in all`);
}

/**
 * The top-level field under which `input` nests deeper than `maxDepth`, or null (only nesting:
 * see {@link assertInputBounds} for every bound).
 */
export function tooDeepField(input: object, maxDepth = MAX_INPUT_DEPTH): string | null {
  const found = inputProblem(input, maxDepth);
  return found?.kind === 'deep' ? found.field : null;
}

/**
 * Refuses input past any bound of {@link inputProblem} with 400 invalid_request_data naming the
 * field and the limit. parseContract calls it first; call it yourself before walking untrusted
 * input any other way (hashing, copying).
 */
export function assertInputBounds(input: object): void {
  const found = inputProblem(input);
  if (!found) return;
  const message = found.kind === 'nul' || found.kind === 'deep' ? undefined : 'The request data is larger than the API accepts';
  throw ApiError.invalid({ [found.field]: found.message }, message);
}

const CONTRACT_TRANSFORM = { exposeDefaultValues: true } as const;

/**
 * The instance of `cls` for input that {@link parseContract} has already accepted and that came
 * back through JSON (a payload the gateway validated against the same class and signed): the same
 * transform, without validation. Every transform of the contracts is idempotent on its own
 * output, so this equals what parseContract returned (parse-contract.trusted.spec.ts checks each
 * route). Never for input of unknown origin: it checks nothing.
 */
export function trustedContract<T extends object>(cls: ClassConstructor<T>, input: unknown): T {
  return plainToInstance(cls, input as object, CONTRACT_TRANSFORM) as T;
}

/**
 * Parses untrusted input into a contract class and validates it: the gateway does this for HTTP
 * input, consumers for internal messages (an API route's payload, which the gateway validated and
 * signed, is only transformed: {@link trustedContract}). Failure: 400 invalid_request_data
 * with `errors` keyed by field. The input's bounds are checked before any transform.
 */
export function parseContract<T extends object>(cls: ClassConstructor<T>, input: unknown): T {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    throw ApiError.invalid({ body: 'must be a JSON object' });
  }
  assertInputBounds(input);
  const instance = plainToInstance(cls, input, CONTRACT_TRANSFORM);
  const errors = validateSync(instance, { whitelist: true, forbidUnknownValues: false, validationError: { target: false, value: true } });
  if (errors.length > 0) {
    const fields: FieldErrors = {};
    collect(errors, '', fields);
    throw ApiError.invalid(fields);
  }
  return instance;
}

const propertiesOf = new WeakMap<ClassConstructor<object>, ReadonlySet<string>>();

/** Every property a contract class validates (its own and inherited): the parameters it takes. */
export function contractProperties(cls: ClassConstructor<object>): ReadonlySet<string> {
  let names = propertiesOf.get(cls);
  if (!names) {
    names = new Set(
      getMetadataStorage()
        .getTargetValidationMetadatas(cls, '', true, false)
        .map((meta) => meta.propertyName),
    );
    propertiesOf.set(cls, names);
  }
  return names;
}

/**
 * Refuses query parameters the contract does not take, naming each (400): a typo such as
 * `compny_id` must never widen a list or a delete by being ignored.
 */
export function assertKnownParameters(cls: ClassConstructor<object>, query: Record<string, unknown>): void {
  const known = contractProperties(cls);
  const unknown = Object.keys(query).filter((name) => !known.has(name));
  if (unknown.length === 0) return;
  throw ApiError.invalid(
    Object.fromEntries(unknown.slice(0, 20).map((name) => [name, `${name} is not a parameter of this endpoint`])),
    `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.slice(0, 20).join(', ')}`,
  );
}
