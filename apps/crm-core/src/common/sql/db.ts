import { createHash } from 'node:crypto';
import { ApiError, ErrorName } from '@crm/contracts';
import { deadlinePassed } from '@crm/observability';
import type { EntityManager } from 'typeorm';
import { noteAutocommit, readOnReplica } from '../../database/replica-reads';
import type { SqlFragment } from './sql';

/**
 * Where a statement runs: the data source's manager (a pooled connection per statement) or the
 * manager of a transaction (its connection). Repositories take it as their first argument, so a
 * service decides what runs in one transaction.
 */
export type Db = EntityManager;

interface PgClient {
  query(config: { name?: string; text: string; values: unknown[] }): Promise<{ rows: unknown[]; rowCount: number | null }>;
}

export interface QueryOptions {
  /**
   * Run as a named prepared statement: PostgreSQL parses and plans it once per connection instead
   * of on every call. Only for texts that do not vary with the input (the name is a hash of the text).
   */
  prepare?: boolean;
  /**
   * `custom`: plan the statement with its values, not a generic plan. crm-core's connections plan
   * every statement generically (decisions.md "Generic plans for crm-core's statements"), which
   * suits lookups by key; a filtered list's best plan depends on how many rows its values match (a
   * rare status on its index, a common one along the name order). The connection's setting is
   * changed for this statement only (two small statements more). Not with `prepare`.
   */
  plan?: 'custom';
}

/**
 * Prepared statements' names (`crm_` and the text's SHA-1), found by the text's length and then by
 * comparing texts. Every call compiles a new text (a string built by concatenation): a Map keyed by
 * the text would flatten and hash its several KB on every lookup (11 µs for the contact wrapper's
 * 7.6 KB), where a comparison with the few known texts of that length costs a copy and a memcmp
 * (under 1 µs). Bounded: only statements whose text is the same for every input are prepared.
 */
const statementNames = new Map<number, Array<{ text: string; name: string }>>();

export function statementName(text: string): string {
  const sameLength = statementNames.get(text.length);
  if (sameLength) for (const known of sameLength) if (known.text === text) return known.name;
  const name = `crm_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
  if (sameLength) sameLength.push({ text, name });
  else statementNames.set(text.length, [{ text, name }]);
  return name;
}

/**
 * Runs one statement and returns its rows and row count. A request whose caller has given up (its
 * deadline passed, see RpcClient) stops here, before the next statement: the gateway has answered
 * 503 already, and no more work is done for nobody.
 */
export async function run<T>(db: Db, statement: SqlFragment, options: QueryOptions = {}): Promise<{ rows: T[]; rowCount: number }> {
  if (deadlinePassed()) throw new ApiError(ErrorName.ServiceUnavailable, 'The request was abandoned: its caller stopped waiting');
  const { text, values } = statement.compile();
  const query = async (client: PgClient) => {
    const result =
      options.plan === 'custom' && !options.prepare
        ? await withCustomPlans(client, () => client.query({ text, values }))
        : await client.query(options.prepare ? { name: statementName(text), text, values } : { text, values });
    return { rows: result.rows as T[], rowCount: result.rowCount ?? 0 };
  };
  const own = db.queryRunner === undefined;
  // A read request's statement outside a transaction may run on the replica (decisions.md "Reads from a replica").
  if (own) {
    const fromReplica = await readOnReplica(query);
    if (fromReplica) return fromReplica;
  }
  const runner = db.queryRunner ?? db.connection.createQueryRunner();
  if (!runner.isTransactionActive) noteAutocommit();
  try {
    return await query((await runner.connect()) as PgClient);
  } catch (error) {
    throw withStatement(error, text, options.prepare ? statementName(text) : undefined);
  } finally {
    if (own) await runner.release();
  }
}

/**
 * Runs `query` on `client` under plan_cache_mode force_custom_plan, then gives the connection back
 * its own setting (RESET: the pool sets it at connection start). In a transaction a failed
 * statement leaves nothing to reset: the rollback undoes the SET with the rest.
 */
async function withCustomPlans<R>(client: PgClient, query: () => Promise<R>): Promise<R> {
  const reset = () => client.query({ text: 'RESET plan_cache_mode', values: [] });
  await client.query({ text: 'SET plan_cache_mode = force_custom_plan', values: [] });
  let result: R;
  try {
    result = await query();
  } catch (error) {
    await reset().catch(() => undefined);
    throw error;
  }
  await reset();
  return result;
}

/**
 * A failed statement's error with the statement's text (`query`, placeholders only) and prepared
 * name, so its log line says which statement failed. The values never go with it: the logger drops
 * `parameters` and PostgreSQL's `detail` (decisions.md "Request input bounds, routing and metrics").
 */
function withStatement(error: unknown, text: string, name: string | undefined): unknown {
  if (error === null || typeof error !== 'object' || 'query' in error) return error;
  return Object.assign(error, name === undefined ? { query: text } : { query: text, statement: name });
}

/** Every row of a query. */
export async function many<T>(db: Db, statement: SqlFragment, options?: QueryOptions): Promise<T[]> {
  return (await run<T>(db, statement, options)).rows;
}

/** The first row, or undefined. */
export async function maybeOne<T>(db: Db, statement: SqlFragment, options?: QueryOptions): Promise<T | undefined> {
  return (await run<T>(db, statement, options)).rows[0];
}

/** The first row; a query that must return one (an INSERT ... RETURNING, an aggregate). */
export async function one<T>(db: Db, statement: SqlFragment, options?: QueryOptions): Promise<T> {
  const rows = (await run<T>(db, statement, options)).rows;
  if (rows.length === 0) throw new Error('query returned no row');
  return rows[0];
}

/** A statement run for its effect: the number of rows it touched. */
export async function execute(db: Db, statement: SqlFragment, options?: QueryOptions): Promise<number> {
  return (await run(db, statement, options)).rowCount;
}
