import { ErrorName, type ApiError } from '@crm/contracts';
import { parseConditions, type CustomFieldInfo } from './filter.rules';

const FIELD = 'a'.repeat(24);
const CHOICES = 'b'.repeat(24);
const fields = new Map<string, CustomFieldInfo>([
  [FIELD, { type: 'number', choices: null }],
  [CHOICES, { type: 'multiple_choice', choices: ['Red', 'Blue'] }],
]);

function errorsOf(raw: unknown[]): ApiError {
  try {
    parseConditions(raw, fields);
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected parseConditions to throw');
}

describe('saved filter conditions', () => {
  it('normalizes valid conditions and collects the ids they name', () => {
    const status = 'C'.repeat(24);
    const { conditions, references } = parseConditions(
      [
        { field: 'last_name', operator: 'contains', value: '  Smi ' },
        { field: 'status_id', operator: 'in', value: [status, status.toLowerCase()] },
        { field: 'tag', operator: 'has_any', value: ['VIP', 'vip', 'Partner'] },
        { field: 'phone', operator: 'contains', value: '+1 (555)' },
        { field: 'created_at', operator: 'since', value: '1700000000' },
        { field: 'email', operator: 'is_empty' },
        { field: 'custom_field', custom_field_id: FIELD.toUpperCase(), operator: 'greater_than', value: 10 },
        { field: 'starred', operator: 'is', value: false },
      ],
      fields,
    );
    expect(conditions).toEqual([
      { field: 'last_name', operator: 'contains', value: 'Smi' },
      { field: 'status_id', operator: 'in', value: ['c'.repeat(24)] },
      { field: 'tag', operator: 'has_any', value: ['VIP', 'Partner'] },
      { field: 'phone', operator: 'contains', value: '1555' },
      { field: 'created_at', operator: 'since', value: 1700000000 },
      { field: 'email', operator: 'is_empty' },
      { field: 'custom_field', custom_field_id: FIELD, operator: 'greater_than', value: 10 },
      { field: 'starred', operator: 'is', value: false },
    ]);
    expect(references.status_id).toEqual([{ id: 'c'.repeat(24), key: 'conditions.1.value' }]);
  });

  it('names every bad condition by index and key', () => {
    const error = errorsOf([
      'x',
      { field: 'salary', operator: 'equals', value: 1 },
      { field: 'first_name', operator: 'in', value: ['a'] },
      { field: 'first_name', operator: 'equals' },
      { field: 'first_name', operator: 'is_empty', value: 'x' },
      { field: 'owner_id', operator: 'in', value: ['nope'] },
      { field: 'tag', operator: 'has_all', value: [] },
      { field: 'modified_at', operator: 'until', value: '2026-02-30' },
      { field: 'custom_field', custom_field_id: CHOICES, operator: 'has_any', value: ['Green'] },
      { field: 'custom_field', custom_field_id: FIELD, operator: 'contains', value: 'x' },
      { field: 'starred', operator: 'is', value: 'yes' },
      { field: 'last_name', operator: 'equals', value: 'x', custom_field_id: FIELD },
    ]);
    expect(error.errorName).toBe(ErrorName.InvalidRequestData);
    expect(Object.keys(error.errors)).toEqual([
      'conditions.0',
      'conditions.1.field',
      'conditions.2.operator',
      'conditions.3.value',
      'conditions.4.value',
      'conditions.5.value',
      'conditions.6.value',
      'conditions.7.value',
      'conditions.8.value',
      'conditions.9.operator',
      'conditions.10.value',
      'conditions.11.custom_field_id',
    ]);
    expect(error.errors['conditions.9.operator']).toContain('number field');
  });

  it('answers 404 for a custom field that is not the account', () => {
    const error = errorsOf([{ field: 'custom_field', custom_field_id: 'd'.repeat(24), operator: 'is_empty' }]);
    expect(error.errorName).toBe(ErrorName.ResourceNotFound);
    expect(error.errors).toEqual({ 'conditions.0.custom_field_id': expect.any(String) });
  });
});
