import type pg from 'pg';

/** An executor on `client` whose statements give up after `timeoutMs` (pg's client-side query_timeout). */
export function withStatementTimeout(client: pg.PoolClient, timeoutMs: number) {
  return (config: pg.QueryConfig) => client.query({ ...config, query_timeout: timeoutMs } as pg.QueryConfig);
}
