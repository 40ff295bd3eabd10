import { IsString } from 'class-validator';
import { ErrorName } from '../errors/error-name';
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
    expect(() => parseContract(Named, { name: 'a', extra: nest(100_000) })).toThrow(expect.objectContaining({ errorName: ErrorName.InvalidRequestData, errors: { extra: expect.stringContaining('nested too deeply') } }));
  });

  it('accepts nesting up to the limit', () => {
    expect(tooDeepField({ a: nest(MAX_INPUT_DEPTH - 1) })).toBeNull();
    expect(tooDeepField({ a: nest(MAX_INPUT_DEPTH) })).toBe('a');
    expect(parseContract(Named, { name: 'a', extra: nest(5) })).toEqual({ name: 'a' });
  });
});
