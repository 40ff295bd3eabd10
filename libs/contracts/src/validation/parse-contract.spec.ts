import { IsInt, IsString } from 'class-validator';
import { ErrorName } from '../errors/error-name';
import { PagingRequest } from '../paging/paging.request';
import { CreateContactRequest } from '../contacts/contact.requests';
import {
  inputProblem,
  MAX_ARRAY_LENGTH,
  MAX_INPUT_DEPTH,
  MAX_INPUT_VALUES,
  MAX_OBJECT_KEYS,
  parseContract,
  tooDeepField,
} from './parse-contract';

class Named {
  @IsString() name: string;
}

const nest = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = i % 2 ? { x: value } : [value];
  return value;
};

/** The ApiError parseContract throws for `input` (fails the test when it accepts). */
const refusal = (input: unknown): { errorName: string; message: string; errors: Record<string, string> } => {
  try {
    parseContract(Named, input);
  } catch (error) {
    return error as { errorName: string; message: string; errors: Record<string, string> };
  }
  throw new Error('accepted');
};

const manyKeys = (count: number): Record<string, number> => {
  const object: Record<string, number> = {};
  for (let i = 0; i < count; i += 1) object[`k${i}`] = i;
  return object;
};

describe('parseContract on hostile input', () => {
  it('refuses an object of 110,000 keys before any transform, with 400 naming the object and the limit', () => {
    // class-transformer de-duplicated these keys in O(n²): about 21 s of a blocked event loop.
    expect(refusal({ name: 'a', ...manyKeys(110_000) })).toMatchObject({
      errorName: ErrorName.InvalidRequestData,
      errors: { body: `must have at most ${MAX_OBJECT_KEYS} keys` },
    });
    expect(refusal({ name: 'a', extra: { deeper: manyKeys(110_000) } }).errors).toEqual({
      'extra.deeper': `must have at most ${MAX_OBJECT_KEYS} keys`,
    });
  });

  it('bounds keys per object, array lengths and values in all, naming the path; accepts everything up to them', () => {
    expect(refusal({ name: 'a', extra: manyKeys(MAX_OBJECT_KEYS + 1) }).errors).toEqual({
      extra: `must have at most ${MAX_OBJECT_KEYS} keys`,
    });
    expect(refusal({ name: 'a', list: [{ ids: Array(MAX_ARRAY_LENGTH + 1).fill('x') }] }).errors).toEqual({
      'list.0.ids': `must hold at most ${MAX_ARRAY_LENGTH} entries`,
    });
    const wide = Array.from({ length: Math.ceil(MAX_INPUT_VALUES / MAX_ARRAY_LENGTH) }, () => Array(MAX_ARRAY_LENGTH).fill(1));
    expect(refusal({ name: 'a', wide })).toMatchObject({
      message: expect.stringContaining('larger than the API accepts'),
      errors: { body: `must hold at most ${MAX_INPUT_VALUES} keys and array entries in all` },
    });

    expect(parseContract(Named, { name: 'a', extra: manyKeys(MAX_OBJECT_KEYS - 1) })).toEqual({ name: 'a' });
    expect(parseContract(Named, { name: 'a', list: Array(MAX_ARRAY_LENGTH).fill({ v: 1 }) })).toEqual({ name: 'a' });
    expect(inputProblem({ wide: Array.from({ length: 19 }, () => Array(MAX_ARRAY_LENGTH).fill(1)) })).toBeNull();
  });

  it('accepts the largest requests the contracts allow (fields, deal items, ids, attachments, filter conditions)', () => {
    const fields = (key: string) => Array.from({ length: 500 }, (_, i) => ({ [key]: { id: `f${i}` }, value: ['a', 'b', 'c', 'd', 'e'] }));
    const contact = {
      first_name: 'Ada',
      custom_fields: fields('custom_field'),
      phones: Array.from({ length: 50 }, (_, i) => ({ type: 'work', value: `+1 555 ${i}` })),
      emails: Array.from({ length: 50 }, (_, i) => ({ type: 'work', value: `a${i}@example.test` })),
      address_list: Array.from({ length: 20 }, () => ({ address: 'x', city: 'x', state: 'x', zip_code: 'x', country_code: 'US' })),
      tags: Array.from({ length: 100 }, (_, i) => `tag ${i}`),
    };
    const deal = {
      name: 'Big deal',
      deal_fields: fields('deal_field'),
      deal_items: Array.from({ length: 200 }, (_, i) => ({ id: `i${i}`, name: 'x', description: 'x', cost: 1, price: 2, quantity: 3 })),
      linked_contact_ids: Array.from({ length: 100 }, (_, i) => `c${i}`),
      attachments: Array.from({ length: 100 }, (_, i) => ({ filename: `f${i}`, custom_filename: 'x', pinned: false, size: 1, url: 'x' })),
    };
    const filter = {
      name: 'All of them',
      conditions: Array.from({ length: 50 }, () => ({ field: 'tag', operator: 'in', value: Array(100).fill('x'), custom_field_id: 'f' })),
    };
    for (const request of [contact, deal, filter]) expect(inputProblem(request)).toBeNull();
  });

  it('names the full path of a problem deep inside the input', () => {
    let value: unknown = { list: ['ok', { ['bad\u0000key']: 1 }] };
    for (let i = 0; i < 20; i += 1) value = { [`level${i}`]: value };
    expect(inputProblem(value as object)).toEqual({
      kind: 'nul',
      field: `${Array.from({ length: 20 }, (_, i) => `level${19 - i}`).join('.')}.list.1`,
      message: 'must not contain NUL characters (U+0000)',
    });
  });

  it('refuses nesting past the limit with 400 naming the field, without exhausting the stack', () => {
    expect(() => parseContract(Named, { name: 'a', extra: nest(100_000) })).toThrow(
      expect.objectContaining({ errorName: ErrorName.InvalidRequestData, errors: { extra: expect.stringContaining('nested too deeply') } }),
    );
  });

  it('accepts nesting up to the limit', () => {
    expect(tooDeepField({ a: nest(MAX_INPUT_DEPTH - 1) })).toBeNull();
    expect(tooDeepField({ a: nest(MAX_INPUT_DEPTH) })).toBe('a');
    expect(parseContract(Named, { name: 'a', extra: nest(5) })).toEqual({ name: 'a' });
  });

  it('refuses NUL characters in any string or key with 400 naming the path', () => {
    const nul = (input: object) => {
      try {
        parseContract(Named, input);
      } catch (error) {
        return error as { errorName: string; errors: Record<string, string> };
      }
      throw new Error('accepted');
    };
    expect(nul({ name: 'a\u0000b' })).toMatchObject({
      errorName: ErrorName.InvalidRequestData,
      errors: { name: expect.stringContaining('NUL') },
    });
    expect(nul({ name: 'a', phones: [{ value: '1' }, { value: '\u0000' }] }).errors).toEqual({
      'phones.1.value': expect.stringContaining('NUL'),
    });
    expect(nul({ name: 'a', map: { ['k\u0000']: 1 } }).errors).toHaveProperty(['map']);
    expect(parseContract(Named, { name: 'plain' })).toEqual({ name: 'plain' });
  });

  it('refuses a page number past 2^53 (its row offset would overflow) with 400 naming page', () => {
    expect(() => parseContract(PagingRequest, { page: '99999999999999999999' })).toThrow(
      expect.objectContaining({ errors: { page: expect.stringContaining('from 1 to') } }),
    );
    expect(parseContract(PagingRequest, { page: String(Number.MAX_SAFE_INTEGER), per_page: '500' })).toMatchObject({
      page: Number.MAX_SAFE_INTEGER,
      per_page: 100,
    });
  });
});

describe('parseContract names the first rule a value broke', () => {
  it('reports a wrong type as a wrong type, not by a length rule', () => {
    expect(() => parseContract(CreateContactRequest, { last_name: 123 })).toThrow(
      expect.objectContaining({ errors: expect.objectContaining({ last_name: 'last_name must be a string' }) }),
    );
  });

  it('reports a missing required value as required', () => {
    expect(() => parseContract(CreateContactRequest, { last_name: 'Lee', phones: [{ type: 'work' }] })).toThrow(
      expect.objectContaining({ errors: { 'phones.0.value': 'value is required' } }),
    );
  });
});

describe("parseContract keeps each class's rules once looked up", () => {
  class Base {
    @IsString()
    name!: string;
  }
  class Late extends Base {}

  it('applies inherited rules, and a rule registered after the first validation', () => {
    expect(() => parseContract(Late, { name: 7 })).toThrow(expect.objectContaining({ errors: { name: 'name must be a string' } }));
    expect(parseContract(Late, { name: 'ok', extra: 1 })).toEqual({ name: 'ok' });
    // A rule added after Late's rules were looked up (a class loaded late) is not missed.
    IsInt()(Late.prototype, 'count');
    expect(() => parseContract(Late, { name: 'ok', count: 'x' })).toThrow(
      expect.objectContaining({ errors: { count: 'count must be an integer number' } }),
    );
    expect(parseContract(Late, { name: 'ok', count: 3 })).toEqual({ name: 'ok', count: 3 });
  });
});
