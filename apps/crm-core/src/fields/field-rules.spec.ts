import { checkChoices, checkTypeUnchanged } from './field-rules';

describe('checkChoices', () => {
  it('requires a non-empty list for choice types', () => {
    for (const type of ['select_box', 'multiple_choice'] as const) {
      expect(checkChoices(type, ['a', 'b'])).toEqual(['a', 'b']);
      for (const missing of [undefined, null, []]) {
        expect(() => checkChoices(type, missing)).toThrow(
          expect.objectContaining({ errorName: 'invalid_request_data', errors: { choices: expect.stringContaining('required') } }),
        );
      }
    }
  });

  it('refuses repeated choices regardless of letter case', () => {
    expect(() => checkChoices('select_box', ['Red', 'red'])).toThrow(
      expect.objectContaining({ errors: { choices: expect.stringContaining('distinct') } }),
    );
  });

  it('refuses choices for the other types; absent or null means none', () => {
    for (const type of ['text', 'number', 'date', 'checkbox'] as const) {
      expect(checkChoices(type, undefined)).toBeNull();
      expect(checkChoices(type, null)).toBeNull();
      for (const sent of [[], ['a']]) {
        expect(() => checkChoices(type, sent)).toThrow(
          expect.objectContaining({ errorName: 'invalid_request_data', errors: { choices: expect.stringContaining('only allowed') } }),
        );
      }
    }
  });
});

describe('checkTypeUnchanged', () => {
  it('accepts an absent or identical type and refuses any change', () => {
    expect(() => checkTypeUnchanged('text', undefined)).not.toThrow();
    expect(() => checkTypeUnchanged('select_box', 'select_box')).not.toThrow();
    expect(() => checkTypeUnchanged('select_box', 'multiple_choice')).toThrow(
      expect.objectContaining({ errorName: 'invalid_request_data', errors: { type: expect.stringContaining('cannot be changed') } }),
    );
  });
});
