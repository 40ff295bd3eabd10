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
    // Each gauge reads every registered pool when scraped. Names are literals (deploy/observability checks them).
    const each = (read: (p: PoolLike) => number | undefined) =>
      function collect(this: Gauge<'pool'>): void {
        for (const [label, p] of registered) {
          const value = read(p);
          if (value !== undefined) this.set({ pool: label }, value);
        }
      };
    const common = { labelNames: ['pool'] as const, registers: [registry] };
    new Gauge({
      name: 'pg_pool_connections',
      help: 'PostgreSQL connections open in the pool (idle and in use)',
      ...common,
      collect: each((p) => p.totalCount),
    });
    new Gauge({
      name: 'pg_pool_idle_connections',
      help: 'PostgreSQL connections open and idle in the pool',
      ...common,
      collect: each((p) => p.idleCount),
    });
    new Gauge({
      name: 'pg_pool_waiting_clients',
      help: 'Callers waiting for a PostgreSQL connection from the pool',
      ...common,
      collect: each((p) => p.waitingCount),
    });
    new Gauge({
      name: 'pg_pool_max_connections',
      help: 'The pool size (DATABASE_POOL_SIZE)',
      ...common,
      collect: each((p) => p.options?.max),
    });
  }
  known.set(name, pool);
}
