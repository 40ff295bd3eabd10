import { createHash } from 'node:crypto';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';

function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, '')) || 'postgres';
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** Creates the database named in `url` when it does not exist yet (needs CREATEDB). */
export async function ensureDatabase(url: string): Promise<boolean> {
  const name = databaseName(url);
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (rowCount) return false;
    try {
      await client.query(`CREATE DATABASE ${quoteIdent(name)}`);
      return true;
    } catch (error) {
      // Another replica created it at the same moment: duplicate_database, or a unique violation
      // on pg_database when both CREATEs ran concurrently.
      const code = (error as { code?: string }).code;
      if (code === '42P04' || code === '23505') return false;
      throw error;
    }
  } finally {
    await client.end();
  }
}

/** A stable 64-bit advisory lock key for one schema's migrations. */
export function migrationLockKey(schema: string): string {
  return BigInt.asIntN(64, BigInt(`0x${createHash('sha256').update(`migrations:${schema}`).digest('hex').slice(0, 16)}`)).toString();
}

/**
 * Creates the database and schema if needed and runs pending migrations, holding an advisory
 * lock so that replicas starting together migrate once. Returns the names of applied migrations.
 */
export async function runMigrations(dataSource: DataSource, log: (msg: string) => void = () => undefined): Promise<string[]> {
  const options = dataSource.options as { url: string; schema: string };
  if (await ensureDatabase(options.url)) log(`created database ${databaseName(options.url)}`);
  const lock = new Client({ connectionString: options.url });
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [migrationLockKey(options.schema)]);
    await lock.query(`CREATE SCHEMA IF NOT EXISTS ${quoteIdent(options.schema)}`);
    if (!dataSource.isInitialized) await dataSource.initialize();
    const applied = await dataSource.runMigrations({ transaction: 'each' });
    for (const m of applied) log(`applied migration ${m.name} to schema ${options.schema}`);
    if (applied.length === 0) log(`schema ${options.schema} is up to date`);
    return applied.map((m) => m.name);
  } finally {
    await lock.query('SELECT pg_advisory_unlock($1)', [migrationLockKey(options.schema)]).catch(() => undefined);
    await lock.end();
  }
}
