import { FIELD_TYPES } from '@crm/contracts';
import { assertFieldValue, isPlainDate, MAX_TEXT_VALUE_LENGTH, validateFieldValue, type FieldDefinition } from './field-values';

const text: FieldDefinition = { type: 'text' };
const number: FieldDefinition = { type: 'number' };
const date: FieldDefinition = { type: 'date' };
const checkbox: FieldDefinition = { type: 'checkbox' };
const select: FieldDefinition = { type: 'select_box', choices: ['Red', 'Green'] };
const multiple: FieldDefinition = { type: 'multiple_choice', choices: ['Email', 'Phone', 'Post'] };

describe('validateFieldValue', () => {
  it.each(FIELD_TYPES)('accepts null and undefined as "no value" for %s', (type) => {
    expect(validateFieldValue({ type, choices: ['a'] }, null)).toEqual({ ok: true, value: null });
    expect(validateFieldValue({ type, choices: ['a'] }, undefined)).toEqual({ ok: true, value: null });
  });

  it('text: any string up to the limit', () => {
    expect(validateFieldValue(text, '')).toEqual({ ok: true, value: '' });
    expect(validateFieldValue(text, 'hello [b]world[/b]')).toEqual({ ok: true, value: 'hello [b]world[/b]' });
    expect(validateFieldValue(text, 'x'.repeat(MAX_TEXT_VALUE_LENGTH)).ok).toBe(true);
    expect(validateFieldValue(text, 'x'.repeat(MAX_TEXT_VALUE_LENGTH + 1))).toMatchObject({
      ok: false,
      message: expect.stringContaining('at most'),
    });
    for (const bad of [1, true, ['a'], { a: 1 }]) expect(validateFieldValue(text, bad)).toEqual({ ok: false, message: 'must be a string' });
  });

  it('number: finite numbers only', () => {
    for (const good of [0, -1.5, 42, 1e21]) expect(validateFieldValue(number, good)).toEqual({ ok: true, value: good });
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, '42', true, [1]]) {
      expect(validateFieldValue(number, bad)).toEqual({ ok: false, message: 'must be a finite number' });
    }
  });

  it('date: a real calendar day YYYY-MM-DD', () => {
    for (const good of ['2026-01-31', '2024-02-29', '0001-01-01', '9999-12-31'])
      expect(validateFieldValue(date, good)).toEqual({ ok: true, value: good });
    for (const bad of [
      '2026-02-30',
      '2025-02-29',
      '2026-13-01',
      '2026-00-10',
      '2026-1-1',
      '2026-01-01T00:00:00Z',
      '01/02/2026',
      1767225600,
      '',
      true,
    ]) {
      expect(validateFieldValue(date, bad)).toEqual({ ok: false, message: 'must be a date YYYY-MM-DD' });
    }
  });

  it('checkbox: booleans only', () => {
    expect(validateFieldValue(checkbox, true)).toEqual({ ok: true, value: true });
    expect(validateFieldValue(checkbox, false)).toEqual({ ok: true, value: false });
    for (const bad of ['true', 1, 0, 'yes'])
      expect(validateFieldValue(checkbox, bad)).toEqual({ ok: false, message: 'must be true or false' });
  });

  it('select_box: exactly one of the choices', () => {
    expect(validateFieldValue(select, 'Red')).toEqual({ ok: true, value: 'Red' });
    for (const bad of ['red', 'Blue', '', ['Red'], 1])
      expect(validateFieldValue(select, bad)).toMatchObject({ ok: false, message: expect.stringContaining('Red, Green') });
    expect(validateFieldValue({ type: 'select_box' }, 'Red').ok).toBe(false);
  });

  it('multiple_choice: an array of choices, repeats dropped, order kept', () => {
    expect(validateFieldValue(multiple, [])).toEqual({ ok: true, value: [] });
    expect(validateFieldValue(multiple, ['Post', 'Email', 'Post'])).toEqual({ ok: true, value: ['Post', 'Email'] });
    for (const bad of ['Email', ['Email', 'Fax'], ['email'], [1], { 0: 'Email' }]) expect(validateFieldValue(multiple, bad).ok).toBe(false);
  });

  it('refuses an unknown field type', () => {
    expect(validateFieldValue({ type: 'colour' as never }, 'x')).toMatchObject({ ok: false });
  });

  it('assertFieldValue throws 400 keyed by the given key', () => {
    expect(assertFieldValue(number, 3, 'custom_fields.0.value')).toBe(3);
    expect(() => assertFieldValue(number, 'x', 'custom_fields.0.value')).toThrow(
      expect.objectContaining({
        errorName: 'invalid_request_data',
        errors: { 'custom_fields.0.value': 'custom_fields.0.value must be a finite number' },
      }),
    );
  });

  it('isPlainDate', () => {
    expect(isPlainDate('2000-02-29')).toBe(true);
    expect(isPlainDate('1900-02-29')).toBe(false);
    expect(isPlainDate(' 2000-01-01')).toBe(false);
  });
});
