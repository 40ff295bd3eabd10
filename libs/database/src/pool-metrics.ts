import { Gauge, type Registry } from 'prom-client';
import type { DataSource } from 'typeorm';

/** What pg.Pool reports about itself. */
interface PoolLike {
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  options?: { max?: number };
}

const pools = new WeakMap<Registry, Map<string, PoolLike>>();

/** The pg.Pool behind a TypeORM PostgreSQL DataSource (its driver's `master`), if there is one. */
export function poolOf(dataSource: DataSource): PoolLike | undefined {
  const master = (dataSource.driver as unknown as { master?: PoolLike }).master;
  return master && typeof master.totalCount === 'number' ? master : undefined;
}

/**
 * Gauges of a service's PostgreSQL pools, read at scrape time, one series per pool (`pool`: the
 * bounded context's schema): connections open, idle, the maximum, and clients waiting for one
 * (a pool too small for the load, or statements holding connections too long).
 */
export function registerPoolMetrics(registry: Registry, name: string, pool: PoolLike): void {
  let known = pools.get(registry);
  if (!known) {
    const registered = new Map<string, PoolLike>();
    known = registered;
    pools.set(registry, registered);
    const gauge = (metric: string, help: string, read: (p: PoolLike) => number | undefined) =>
      new Gauge({
        name: metric,
        help,
        labelNames: ['pool'],
        registers: [registry],
        collect() {
          for (const [label, p] of registered) {
            const value = read(p);
            if (value !== undefined) this.set({ pool: label }, value);
          }
        },
      });
    gauge('pg_pool_connections', 'PostgreSQL connections open in the pool (idle and in use)', (p) => p.totalCount);
    gauge('pg_pool_idle_connections', 'PostgreSQL connections open and idle in the pool', (p) => p.idleCount);
    gauge('pg_pool_waiting_clients', 'Callers waiting for a PostgreSQL connection from the pool', (p) => p.waitingCount);
    gauge('pg_pool_max_connections', 'The pool size (DATABASE_POOL_SIZE)', (p) => p.options?.max);
  }
  known.set(name, pool);
}
