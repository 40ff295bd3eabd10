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

/** The names TypeORM records in the migrations table for `dataSource`'s migrations (the `name` property, else the class name). */
function knownMigrationNames(dataSource: DataSource): string[] {
  return dataSource.migrations.map((m) => m.name ?? m.constructor.name);
}

/**
 * The migrations this code knows that its schema has not applied yet, oldest first (all of them
 * when the schema or its migrations table does not exist). Reads only: the runtime database user
 * has no DDL rights (the migration Job applies them, decisions.md "Operations: migrations job,
 * internal ports, overlays"). Migrations applied by a newer release are ignored.
 */
export async function pendingMigrations(dataSource: DataSource): Promise<string[]> {
  const { schema } = dataSource.options as { schema: string };
  const known = knownMigrationNames(dataSource);
  let rows: Array<{ name: string }>;
  try {
    rows = (await dataSource.query(`SELECT name FROM ${quoteIdent(schema)}."migrations"`)) as Array<{ name: string }>;
  } catch (error) {
    // undefined_table, invalid_schema_name: nothing migrated yet.
    const code = (error as { code?: string }).code ?? (error as { driverError?: { code?: string } }).driverError?.code;
    if (code === '42P01' || code === '3F000') return known;
    throw error;
  }
  const applied = new Set(rows.map((r) => r.name));
  return known.filter((name) => !applied.has(name));
}

export interface WaitForMigrationsOptions {
  log?: (msg: string) => void;
  /** Between two looks (default 2 s). */
  intervalMs?: number;
  /** Between two log lines while waiting (default 15 s). */
  logEveryMs?: number;
}

/**
 * Resolves once every migration this code knows is applied to its schema, looking every
 * `intervalMs`: a service starts serving (HTTP, NATS) only on the schema it was built for, while
 * the migration Job of its release runs. Waits without limit; the pod's startupProbe bounds it.
 */
export async function waitForMigrations(dataSource: DataSource, options: WaitForMigrationsOptions = {}): Promise<void> {
  const { schema } = dataSource.options as { schema: string };
  const intervalMs = options.intervalMs ?? 2000;
  const logEveryMs = options.logEveryMs ?? 15_000;
  let loggedAt = -Infinity;
  for (;;) {
    const pending = await pendingMigrations(dataSource);
    if (pending.length === 0) return;
    if (Date.now() - loggedAt >= logEveryMs) {
      loggedAt = Date.now();
      options.log?.(
        `waiting for the migrations of schema ${schema}: ${pending.length} not applied (${pending[0]}${pending.length > 1 ? ` ... ${pending.at(-1)}` : ''}); run the migration Job (main.js migrate)`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
