import type { ClassConstructor } from 'class-transformer';
import fc from 'fast-check';
import { ApiError } from '../errors/api-error';
import { API_ROUTES } from '../routes/api-routes';
import { contractProperties, parseContract, trustedContract } from './parse-contract';

/**
 * crm-core takes an API route's payload without validating it again (decisions.md "Lean RPC and
 * validation once"): the gateway sends the JSON of what parseContract returned, and crm-core only
 * transforms it (trustedContract). That is sound only if every transform of every request class is
 * idempotent on its own output, so for each route: parseContract(input), a JSON round trip, then
 * trustedContract gives an equal instance (same classes, same values).
 */

const ID = '5f1e2d3c4b5a69788796a5b4';
const ID2 = 'aaaaaaaaaaaaaaaaaaaaaaaa';

/** Values of every shape the contracts transform: padded and cased text, numbers and booleans as text, ids, nested records. */
const VALUES: readonly unknown[] = [
  ' Text ',
  'ABC',
  '',
  '  ',
  'true',
  ' FALSE ',
  '1',
  '0',
  ' 42 ',
  '-3',
  '12.5',
  '2026-01-02',
  '2026-01-02T03:04:05Z',
  ' Asc ',
  'DESC',
  'updated_at',
  ' Modified_At ',
  'Ann@Example.test',
  'text',
  'select_box',
  'date',
  'number',
  'https://example.test/x',
  ID,
  ` ${ID.toUpperCase()} `,
  `${ID},${ID2}`,
  0,
  1,
  42,
  1.5,
  1_700_000_000,
  5_000,
  -1,
  true,
  false,
  null,
  [],
  ['a', ' b '],
  [ID],
  [ID, ID2],
  [1, 2],
  [{ type: 'work', value: ' +1 555 0100 ' }],
  [{ type: 'Work', value: 'Ann@Example.test' }],
  [{ address: ' 1 Main St ', city: 'Cork', state: '', zip_code: 'T12', country_code: 'ie' }],
  [{ custom_field: { id: ID }, value: ' x ' }],
  [{ company_field: { id: ID }, value: 'x' }],
  [{ deal_field: { id: ID }, value: 3 }],
  [{ name: ' Item ', cost: '12.5', price: 20, qty: '2', description: 'd' }],
  [{ id: ID, name: ' n ' }],
  {},
  { id: ID },
  { name: ' n ' },
];

type Input = Record<string, unknown>;

function accepts(cls: ClassConstructor<object>, input: Input): object | undefined {
  try {
    return parseContract(cls, input);
  } catch (error) {
    if (error instanceof ApiError) return undefined;
    throw error;
  }
}

function refusedFields(cls: ClassConstructor<object>, input: Input): string[] {
  try {
    parseContract(cls, input);
    return [];
  } catch (error) {
    if (error instanceof ApiError) return Object.keys(error.errors);
    throw error;
  }
}

/** A valid input built field by field: each refused top-level field gets the first value that stops its refusal. */
function validBase(cls: ClassConstructor<object>): Input | undefined {
  const base: Input = {};
  for (let round = 0; round < 20; round += 1) {
    const refused = refusedFields(cls, base);
    if (refused.length === 0) return base;
    const field = refused[0]!.split('.')[0]!;
    const value = VALUES.find((candidate) => !refusedFields(cls, { ...base, [field]: candidate }).some((f) => f.split('.')[0] === field));
    if (value === undefined) return undefined;
    base[field] = value;
  }
  return undefined;
}

/** The first difference of `a` and `b` (prototypes, own keys, values, at any depth), or undefined: jest's toStrictEqual, cheaper. */
function difference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (Object.is(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return `${path}: ${String(a)} != ${String(b)}`;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return `${path}: another class`;
  const keys = Object.keys(a);
  if (keys.join() !== Object.keys(b).join()) return `${path}: keys ${keys.join()} != ${Object.keys(b).join()}`;
  for (const key of keys) {
    const found = difference((a as Input)[key], (b as Input)[key], `${path}.${key}`);
    if (found) return found;
  }
  return undefined;
}

function expectIdempotent(cls: ClassConstructor<object>, parsed: object): void {
  const trusted = trustedContract(cls, JSON.parse(JSON.stringify(parsed)));
  const found = difference(trusted, parsed);
  if (found) expect({ input: parsed, trusted, difference: found }).toBeUndefined();
}

const routes = [...new Map(API_ROUTES.map((route) => [route.request, route])).values()];

describe('trustedContract equals parseContract after a JSON round trip, for every API route', () => {
  it.each(routes.map((route) => [route.operationId, route.request] as const))('%s', (_operation, cls) => {
    const base = validBase(cls);
    // Every request class has a valid input the synthesis finds (else add the value it needs to VALUES).
    expect(base).toBeDefined();
    // One field at a time, every value the class accepts there.
    const accepted = new Map<string, unknown[]>();
    for (const field of contractProperties(cls)) {
      for (const value of VALUES) {
        const parsed = accepts(cls, { ...base, [field]: value });
        if (!parsed) continue;
        expectIdempotent(cls, parsed);
        accepted.set(field, [...(accepted.get(field) ?? []), value]);
      }
    }
    // Then accepted values together.
    const fields = [...accepted.keys()];
    if (fields.length === 0) return;
    fc.assert(
      fc.property(fc.dictionary(fc.constantFrom(...fields), fc.nat()), (picks) => {
        const input: Input = { ...base };
        for (const [field, n] of Object.entries(picks)) input[field] = accepted.get(field)![n % accepted.get(field)!.length];
        const parsed = accepts(cls, input);
        if (parsed) expectIdempotent(cls, parsed);
      }),
      { seed: 20261126, numRuns: 20 },
    );
  });
});
