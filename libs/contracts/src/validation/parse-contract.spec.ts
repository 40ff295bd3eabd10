import { IsString } from 'class-validator';
import { ErrorName } from '../errors/error-name';
import { PagingRequest } from '../paging/paging.request';
import { MAX_INPUT_DEPTH, parseContract, tooDeepField } from './parse-contract';

class Named {
  @IsString() name: string;
}

const nest = (levels: number): unknown => {
  let value: unknown = 'leaf';
  for (let i = 0; i < levels; i += 1) value = i % 2 ? { x: value } : [value];
  return value;
};

describe('parseContract on hostile input', () => {
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
