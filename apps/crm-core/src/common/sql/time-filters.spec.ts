import { sql } from './sql';
import { accountTimeWhere, boundInstant, timeFilterConditions } from './time-filters';

const text = (input: Parameters<typeof timeFilterConditions>[0], dates?: ReadonlySet<string>) =>
  sql.and(timeFilterConditions(input, 'd', dates)).compile();

describe('time filters', () => {
  it('filters created_at by default; until a day includes that whole day', () => {
    expect(text({ since: '2026-01-02', until: '2026-01-03' })).toEqual({
      text: 'd.created_at >= $1::timestamptz AND d.created_at < $2::timestamptz',
      values: ['2026-01-02T00:00:00.000Z', '2026-01-04T00:00:00.000Z'],
    });
  });

  it('compares days on plain-date columns and takes Unix seconds', () => {
    expect(text({ date_filter: 'date', since: '86400' }, new Set(['date']))).toEqual({
      text: 'd.date >= $1::date',
      values: ['1970-01-02'],
    });
  });

  it('clamps bounds past 9999 and refuses date_filter with modified_since, naming both', () => {
    expect(text({ modified_since: '99999999999999' }).values).toEqual(['9999-12-31T23:59:59.000Z']);
    expect(() => text({ date_filter: 'date', modified_since: '1' })).toThrow(
      expect.objectContaining({ errors: expect.objectContaining({ date_filter: expect.any(String), modified_since: expect.any(String) }) }),
    );
  });

  it('clamps every bound to the years 0001-9999 PostgreSQL accepts (the end of 9999-12-31, year 0000, huge Unix seconds)', () => {
    expect(boundInstant('9999-12-31', true)).toBe('9999-12-31T23:59:59.000Z');
    expect(boundInstant('9999-12-31')).toBe('9999-12-31T00:00:00.000Z');
    expect(boundInstant('0000-01-01')).toBe('0001-01-01T00:00:00.000Z');
    expect(boundInstant(99_999_999_999_999)).toBe('9999-12-31T23:59:59.000Z');
    expect(boundInstant('999999999999')).toBe('9999-12-31T23:59:59.000Z');
    expect(boundInstant(86_400)).toBe('1970-01-02T00:00:00.000Z');
  });

  it('never puts a column name from input into the text unchecked', () => {
    expect(() => text({ date_filter: 'x; DROP TABLE t', since: '1' })).toThrow();
  });

  it('scopes to the account', () => {
    expect(accountTimeWhere('acc', { unmodified_since: '0' }, 's').compile()).toEqual({
      text: 's.account_id = $1 AND s.modified_at < $2::timestamptz',
      values: ['acc', '1970-01-01T00:00:00.000Z'],
    });
  });
});
