import { Client } from 'pg';
import { resolveTestInfra, uniqueNamespace } from './infra';

export interface TestDatabase {
  /** Connection URL of the new, empty database. */
  url: string;
  /** Name of the database. */
  name: string;
  /** Drops the database (closing other sessions on it first). */
  drop(): Promise<void>;
}

function adminUrl(base = resolveTestInfra().databaseUrl): URL {
  const url = new URL(base);
  url.pathname = '/postgres';
  return url;
}

async function withAdmin<T>(base: string | undefined, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: adminUrl(base).href });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/**
 * A private database on the shared PostgreSQL server, so a test can run migrations and write
 * freely without touching the developer's data or another test's.
 */
export async function createTestDatabase(prefix: string, serverUrl?: string): Promise<TestDatabase> {
  const name = `test_${uniqueNamespace(prefix)}`.slice(0, 63);
  await withAdmin(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = adminUrl(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.href,
    name,
    drop: () =>
      withAdmin(serverUrl, async (client) => {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      }),
  };
}
