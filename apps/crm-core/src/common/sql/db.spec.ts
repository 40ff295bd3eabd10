import { ErrorName } from '@crm/contracts';
import { runWithRequestId } from '@crm/observability';
import { many, type Db } from './db';
import { sql } from './sql';

/** A Db whose connection records the statements it is given. */
function recordingDb(seen: Array<{ name?: string; text: string; values: unknown[] }>): Db {
  const client = {
    query: async (q: { name?: string; text: string; values: unknown[] }) => (seen.push(q), { rows: [{ ok: 1 }], rowCount: 1 }),
  };
  return { queryRunner: { connect: async () => client } } as unknown as Db;
}

describe('statement executors', () => {
  it('send the compiled text and values, named only when prepared', async () => {
    const seen: Array<{ name?: string; text: string; values: unknown[] }> = [];
    const db = recordingDb(seen);
    await expect(many(db, sql`SELECT ${1}::int AS ok`)).resolves.toEqual([{ ok: 1 }]);
    await many(db, sql`SELECT ${2}::int AS ok`, { prepare: true });
    await many(db, sql`SELECT ${3}::int AS ok`, { prepare: true });
    expect(seen[0]).toEqual({ text: 'SELECT $1::int AS ok', values: [1] });
    expect(seen[1].name).toMatch(/^crm_[0-9a-f]{24}$/);
    expect(seen[2].name).toBe(seen[1].name);
  });

  it('run nothing once the caller has stopped waiting', async () => {
    const seen: Array<{ text: string; values: unknown[] }> = [];
    const db = recordingDb(seen);
    const late = runWithRequestId('r1', () => many(db, sql`SELECT 1`), Date.now() - 1);
    await expect(late).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    const inTime = runWithRequestId('r2', () => many(db, sql`SELECT 1`), Date.now() + 60_000);
    await expect(inTime).resolves.toHaveLength(1);
    expect(seen).toHaveLength(1);
  });
});
