import { createHash } from 'node:crypto';
import type { EntityManager } from 'typeorm';

interface PgClient {
  query(config: { name: string; text: string; values: unknown[] }): Promise<{ rows: unknown[] }>;
}

const names = new Map<string, string>();

function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `crm_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
    names.set(text, name);
  }
  return name;
}

/**
 * Runs a fixed SQL text as a named prepared statement on the manager's connection (its
 * transaction when there is one). PostgreSQL parses and plans it once per connection instead of
 * on every call: for the contact wrapper's reads, planning cost more than executing. Only for
 * texts that do not vary with the input (the statement name is a hash of the text).
 */
export async function preparedQuery<T>(m: EntityManager, text: string, values: unknown[]): Promise<T[]> {
  const own = m.queryRunner === undefined;
  const runner = m.queryRunner ?? m.connection.createQueryRunner();
  try {
    const client = (await runner.connect()) as PgClient;
    const result = await client.query({ name: statementName(text), text, values });
    return result.rows as T[];
  } finally {
    if (own) await runner.release();
  }
}
