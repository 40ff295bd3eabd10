import { conditionsSql } from './filters.repository';

const FIELD = 'a'.repeat(24);

describe('saved filter SQL', () => {
  it('binds every value as a parameter and never inlines one', () => {
    const { text, values } = conditionsSql(
      [
        { field: 'first_name', operator: 'contains', value: "50%_o'k" },
        { field: 'tag', operator: 'has_all', value: ['VIP', 'Partner'] },
        { field: 'created_at', operator: 'until', value: '2026-01-31' },
      ],
      new Map(),
    ).compile();
    expect(text).toContain('LIKE $1');
    expect(text).toContain('ANY($2::text[])) = $3::int');
    expect(text).toContain('c.created_at < $4::timestamptz');
    expect(text).not.toContain("o'k");
    expect(values).toEqual(["%50\\%\\_o'k%", ['vip', 'partner'], 2, '2026-02-01T00:00:00.000Z']);
  });

  it('is TRUE without conditions, and treats a deleted custom field as empty', () => {
    expect(conditionsSql([], new Map()).compile()).toEqual({ text: 'TRUE', values: [] });
    const gone = conditionsSql(
      [
        { field: 'custom_field', custom_field_id: FIELD, operator: 'is_empty' },
        { field: 'custom_field', custom_field_id: FIELD, operator: 'greater_than', value: 1 },
      ],
      new Map(),
    ).compile();
    expect(gone).toEqual({ text: '(TRUE) AND (FALSE)', values: [] });
  });
});
