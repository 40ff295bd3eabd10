import { sql } from './sql';

describe('sql tagged template', () => {
  it('numbers values in order and splices fragments with their own values', () => {
    const scope = sql`d.owner_id = ${'u1'}`;
    const q = sql`SELECT * FROM crm.deals d WHERE d.account_id = ${'a1'} AND ${scope} LIMIT ${10}`;
    expect(q.compile()).toEqual({
      text: 'SELECT * FROM crm.deals d WHERE d.account_id = $1 AND d.owner_id = $2 LIMIT $3',
      values: ['a1', 'u1', 10],
    });
  });

  it('joins conditions and keeps an empty list harmless', () => {
    const parts = [sql`a = ${1}`, sql`b = ${2}`, sql`c IN (${sql.join([sql`${3}`, sql`${4}`], ', ')})`];
    expect(sql`WHERE ${sql.and(parts)}`.compile()).toEqual({ text: 'WHERE a = $1 AND b = $2 AND c IN ($3, $4)', values: [1, 2, 3, 4] });
    expect(sql`WHERE ${sql.and([])}`.compile()).toEqual({ text: 'WHERE true', values: [] });
    expect(sql`x${sql.empty}y`.compile()).toEqual({ text: 'xy', values: [] });
  });

  it('never turns a value into text', () => {
    const hostile = "'; DROP TABLE crm.contacts; --";
    const q = sql`SELECT ${hostile}::text`.compile();
    expect(q.text).toBe('SELECT $1::text');
    expect(q.values).toEqual([hostile]);
  });

  it('inserts trusted identifiers with sql.raw only', () => {
    expect(sql`ORDER BY ${sql.raw('d.date')} DESC`.compile().text).toBe('ORDER BY d.date DESC');
  });
});
