import { ErrorName } from '@crm/contracts';
import { Writable } from 'node:stream';
import { createLogger, runWithRequestId } from '@crm/observability';
import { createHash } from 'node:crypto';
import { many, statementName, type Db } from './db';
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

  it('name a prepared statement by its text alone: texts of one length apart, the same text (built anew) alike', () => {
    const [a, b] = ['SELECT 1 AS aa', 'SELECT 2 AS bb'];
    const built = (digit: number) => ['SELECT ', String(digit), ' AS ', 'aa'].reduce((text, part) => text + part, '');
    expect(statementName(a)).toBe(`crm_${createHash('sha1').update(a).digest('hex').slice(0, 24)}`);
    expect(statementName(b)).toBe(`crm_${createHash('sha1').update(b).digest('hex').slice(0, 24)}`);
    expect(statementName(b)).not.toBe(statementName(a));
    expect(statementName(built(1))).toBe(statementName(a));
    expect(statementName(built(3))).not.toBe(statementName(a));
    // Found again among the known texts of its length.
    expect(statementName(a)).toBe(`crm_${createHash('sha1').update(a).digest('hex').slice(0, 24)}`);
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

  it('reject with the failed statement named (text and prepared name), and its log line carries no value', async () => {
    const secret = 'secret-value-of-a-parameter';
    const failing = {
      queryRunner: {
        connect: async () => ({
          query: async () => {
            throw Object.assign(new Error('duplicate key value violates unique constraint "users_email"'), {
              code: '23505',
              detail: `Key (email)=(${secret}) already exists.`,
            });
          },
        }),
      },
    } as unknown as Db;
    const error = await many(failing, sql`INSERT INTO users (email) VALUES (${secret})`, { prepare: true }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: '23505',
      query: 'INSERT INTO users (email) VALUES ($1)',
      statement: expect.stringMatching(/^crm_/),
    });

    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString()), done()) });
    createLogger('crm-core', 'info', sink).error({ err: error }, 'unhandled error in message handler');
    expect(lines[0]).toContain('INSERT INTO users (email) VALUES ($1)');
    expect(lines[0]).not.toContain(secret);
  });
});
