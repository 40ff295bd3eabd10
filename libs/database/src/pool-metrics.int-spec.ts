import { createTestDatabase, type TestDatabase } from '@crm/testing';
import { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { createDataSource } from './database-options';
import { poolOf, registerPoolMetrics } from './pool-metrics';

describe('PostgreSQL pool gauges (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('pool_metrics');
    dataSource = await createDataSource({ url: db.url, schema: 'public', entities: [], migrations: [], poolSize: 1 }).initialize();
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  const sample = async (registry: Registry, name: string) =>
    ((await registry.getMetricsAsJSON()).find((m) => m.name === name)?.values ?? []).find((v) => v.labels.pool === 'crm')?.value;

  it('reports open, idle and maximum connections and the callers waiting for one, per pool', async () => {
    const registry = new Registry();
    registerPoolMetrics(registry, 'crm', poolOf(dataSource)!);
    const holder = dataSource.createQueryRunner();
    await holder.connect();
    await holder.query('SELECT 1');
    // The only connection is held: a second statement waits for it.
    const waiting = dataSource.query('SELECT 2');
    for (let i = 0; i < 200 && poolOf(dataSource)!.waitingCount === 0; i += 1) await new Promise((r) => setImmediate(r));
    expect(await sample(registry, 'pg_pool_connections')).toBe(1);
    expect(await sample(registry, 'pg_pool_idle_connections')).toBe(0);
    expect(await sample(registry, 'pg_pool_waiting_clients')).toBe(1);
    expect(await sample(registry, 'pg_pool_max_connections')).toBe(1);
    await holder.release();
    await waiting;
    expect(await sample(registry, 'pg_pool_waiting_clients')).toBe(0);
    expect(await sample(registry, 'pg_pool_idle_connections')).toBe(1);
  });
});
