import { EntityManager } from 'typeorm';
import type { SqlFragment } from './sql';

/** A PostgreSQL session of its own (a `pg.Client`): what needs one session (LISTEN, session advisory locks). */
export interface SqlSession {
  query(config: { text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

/**
 * Where a statement runs: a data source's manager (a pooled connection per statement), the manager
 * of a transaction (its connection), or a session of its own. Repositories take it as their first
 * argument, so the caller decides what runs in one transaction.
 */
export type Db = EntityManager | SqlSession;

/** Runs one statement on `db` and returns its rows and row count. */
async function run<T>(db: Db, statement: SqlFragment): Promise<{ rows: T[]; rowCount: number }> {
  const { text, values } = statement.compile();
  try {
    if (!(db instanceof EntityManager)) return rowsOf<T>(await db.query({ text, values }));
    const own = db.queryRunner === undefined;
    const runner = db.queryRunner ?? db.connection.createQueryRunner();
    try {
      return rowsOf<T>(await ((await runner.connect()) as SqlSession).query({ text, values }));
    } finally {
      if (own) await runner.release();
    }
  } catch (error) {
    throw withStatement(error, text);
  }
}

function rowsOf<T>(result: { rows: unknown[]; rowCount: number | null }): { rows: T[]; rowCount: number } {
  return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
}

/**
 * A failed statement's error with the statement's text (placeholders only, never the values), so
 * its log line says which statement failed.
 */
function withStatement(error: unknown, text: string): unknown {
  if (error === null || typeof error !== 'object' || 'query' in error) return error;
  return Object.assign(error, { query: text });
}

/** Every row of a query. */
export async function many<T>(db: Db, statement: SqlFragment): Promise<T[]> {
  return (await run<T>(db, statement)).rows;
}

/** The first row, or undefined. */
export async function maybeOne<T>(db: Db, statement: SqlFragment): Promise<T | undefined> {
  return (await run<T>(db, statement)).rows[0];
}

/** The first row; a query that must return one (an INSERT ... RETURNING, an aggregate). */
export async function one<T>(db: Db, statement: SqlFragment): Promise<T> {
  const rows = (await run<T>(db, statement)).rows;
  if (rows.length === 0) throw new Error('query returned no row');
  return rows[0];
}

/** A statement run for its effect: the number of rows it touched. */
export async function execute(db: Db, statement: SqlFragment): Promise<number> {
  return (await run(db, statement)).rowCount;
}
