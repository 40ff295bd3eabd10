import type { Db } from './db';
import { accountPage, countAndPage, countOf } from './page';
import { sql } from './sql';

/** A Db that answers each statement with the next of `answers`, recording what it was given. */
function scriptedDb(answers: unknown[][], seen: Array<{ text: string; values: unknown[] }>): Db {
  const client = {
    query: async (q: { text: string; values: unknown[] }) => {
      seen.push({ text: q.text, values: q.values });
      const rows = answers.shift() ?? [];
      return { rows, rowCount: rows.length };
    },
  };
  return { queryRunner: { connect: async () => client } } as unknown as Db;
}

describe('countOf', () => {
  it('counts the rows of a table, filtered when a condition is given', () => {
    expect(countOf(sql`crm.tags t`).compile()).toEqual({ text: 'SELECT count(*)::int AS total FROM crm.tags t', values: [] });
    expect(countOf(sql`crm.tags t`, sql`t.account_id = ${'a1'}`).compile()).toEqual({
      text: 'SELECT count(*)::int AS total FROM crm.tags t WHERE t.account_id = $1',
      values: ['a1'],
    });
  });
});

describe('countAndPage', () => {
  it('runs the count first, then the page, and returns the total with the rows', async () => {
    const seen: Array<{ text: string; values: unknown[] }> = [];
    const db = scriptedDb([[{ total: 3 }], [{ id: 'x' }, { id: 'y' }]], seen);
    const where = sql`t.account_id = ${'a1'}`;
    const result = await countAndPage<{ id: string }>(db, {
      from: sql`crm.tags t`,
      where,
      rows: sql`SELECT t.id FROM crm.tags t WHERE ${where} ORDER BY t.id LIMIT ${2}`,
    });
    expect(result).toEqual({ total: 3, rows: [{ id: 'x' }, { id: 'y' }] });
    expect(seen.map((s) => s.text)).toEqual([
      'SELECT count(*)::int AS total FROM crm.tags t WHERE t.account_id = $1',
      'SELECT t.id FROM crm.tags t WHERE t.account_id = $1 ORDER BY t.id LIMIT $2',
    ]);
    expect(seen[1].values).toEqual(['a1', 2]);
  });

  it('counts every row of `from` without conditions, and returns an empty page past the end', async () => {
    const seen: Array<{ text: string; values: unknown[] }> = [];
    const db = scriptedDb([[{ total: 1 }], []], seen);
    const rows = sql`SELECT x.id FROM (SELECT ${'a'} AS id) x LIMIT ${10} OFFSET ${10}`;
    await expect(countAndPage(db, { from: sql`(SELECT ${'a'} AS id) x`, rows })).resolves.toEqual({ total: 1, rows: [] });
    expect(seen[0]).toEqual({ text: 'SELECT count(*)::int AS total FROM (SELECT $1 AS id) x', values: ['a'] });
  });
});

describe('accountPage', () => {
  it("counts and pages the account's rows under the time filters, in the list's order", async () => {
    const seen: Array<{ text: string; values: unknown[] }> = [];
    const db = scriptedDb([[{ total: 5 }], [{ id: 't3' }]], seen);
    const list = { from: sql.raw('crm.tags t'), alias: 't', columns: sql.raw('t.id, t.name'), orderBy: sql.raw('lower(t.name), t.id') };
    await expect(accountPage(db, list, 'a1', {}, 3, 2)).resolves.toEqual({ total: 5, rows: [{ id: 't3' }] });
    expect(seen).toEqual([
      { text: 'SELECT count(*)::int AS total FROM crm.tags t WHERE t.account_id = $1', values: ['a1'] },
      {
        text: 'SELECT t.id, t.name FROM crm.tags t WHERE t.account_id = $1 ORDER BY lower(t.name), t.id LIMIT $2 OFFSET $3',
        values: ['a1', 2, 4],
      },
    ]);
  });
});
