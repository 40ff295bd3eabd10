import pg from 'pg';
import { DataSource, type DataSourceOptions, type MixedList } from 'typeorm';

// Plain dates (`date` columns) stay 'YYYY-MM-DD' strings: the driver's default turns them into
// local-midnight Date objects, which shift by a day in any time zone west of UTC.
const PG_DATE_OID = 1082;
pg.types.setTypeParser(PG_DATE_OID, (value: string) => value);

export interface SchemaDatabaseOptions {
  url: string;
  /** The bounded context's own PostgreSQL schema (auth, crm, webhooks). */
  schema: string;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  entities: MixedList<Function>;
  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  migrations: MixedList<Function>;
  poolSize?: number;
  applicationName?: string;
  /**
   * PostgreSQL's plan_cache_mode for every connection of the pool. `force_generic_plan`: a named
   * prepared statement is planned once per connection. Under the default (`auto`) PostgreSQL plans
   * a statement again at every execution while a plan for its values looks cheaper than the
   * generic one, which it does for `id = ANY($1)` lookups: planning then cost 1-4 ms per statement,
   * ten times the execution (decisions.md "Generic plans for crm-core's statements").
   */
  planCacheMode?: 'auto' | 'force_generic_plan';
}

/**
 * TypeORM options of one bounded context: its own schema, its own migrations table inside that
 * schema, never `synchronize` (the schema is changed by migrations only).
 */
export function dataSourceOptions(options: SchemaDatabaseOptions): DataSourceOptions {
  return {
    type: 'postgres',
    url: options.url,
    schema: options.schema,
    entities: options.entities,
    migrations: options.migrations,
    migrationsTableName: 'migrations',
    migrationsTransactionMode: 'each',
    synchronize: false,
    poolSize: options.poolSize ?? 10,
    applicationName: options.applicationName,
    extra: {
      connectionTimeoutMillis: 5000,
      statement_timeout: 30000,
      idle_in_transaction_session_timeout: 60000,
      options: connectionSettings(options),
    },
  };
}

/**
 * The settings every connection of the pool starts with (libpq `options`):
 * - `jit=off`: the services run short, index-driven statements. PostgreSQL compiles a statement
 *   with LLVM when its estimated cost passes jit_above_cost, and a generic plan's estimate can: a
 *   page of deals (per-row subqueries, a LIMIT the plan cannot see) was estimated at 287,000 and
 *   spent 51 ms compiling to run in 3 ms, at every execution (decisions.md "No JIT in the services' connections").
 * - `plan_cache_mode`, when asked for.
 */
function connectionSettings(options: SchemaDatabaseOptions): string {
  const settings = ['-c jit=off'];
  if (options.planCacheMode && options.planCacheMode !== 'auto') settings.push(`-c plan_cache_mode=${options.planCacheMode}`);
  return settings.join(' ');
}

export function createDataSource(options: SchemaDatabaseOptions): DataSource {
  return new DataSource(dataSourceOptions(options));
}
