import { createTestDatabase, type TestDatabase } from '@crm/testing';
import { Client } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDataSource } from './database-options';
import { pendingMigrations, runMigrations, waitForMigrations } from './migrate';

class AddColor1700000000001 implements MigrationInterface {
  name = 'AddColor1700000000001';
  async up(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE probe.things ADD COLUMN color text');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('ALTER TABLE probe.things DROP COLUMN color');
  }
}

class CreateThings1700000000000 implements MigrationInterface {
  name = 'CreateThings1700000000000';
  async up(q: QueryRunner): Promise<void> {
    await q.query('CREATE TABLE probe.things (id int PRIMARY KEY)');
  }
  async down(q: QueryRunner): Promise<void> {
    await q.query('DROP TABLE probe.things');
  }
}

describe('runMigrations (real PostgreSQL)', () => {
  let db: TestDatabase;

  beforeAll(async () => {
    db = await createTestDatabase('migrate');
  });

  afterAll(async () => {
    await db?.drop();
  });

  it('creates a missing database and schema, and concurrent runs apply each migration once', async () => {
    const url = new URL(db.url);
    url.pathname = `/${url.pathname.slice(1)}_fresh`;
    const make = () => createDataSource({ url: url.toString(), schema: 'probe', entities: [], migrations: [CreateThings1700000000000] });
    const sources = [make(), make(), make()];
    try {
      const results = await Promise.all(sources.map((s) => runMigrations(s)));
      expect(results.flat()).toEqual(['CreateThings1700000000000']);
      const client = new Client({ connectionString: url.toString() });
      await client.connect();
      const { rows } = await client.query('SELECT count(*)::int AS n FROM probe.migrations');
      await client.end();
      expect(rows[0].n).toBe(1);
    } finally {
      await Promise.all(sources.map((s) => (s.isInitialized ? s.destroy() : undefined)));
      const admin = new Client({ connectionString: db.url });
      await admin.connect();
      await admin.query(`DROP DATABASE IF EXISTS "${url.pathname.slice(1)}" WITH (FORCE)`);
      await admin.end();
    }
  });

  it('names the pending migrations (all before the first run), and waits until another process applies them', async () => {
    const url = new URL(db.url);
    url.pathname = `/${url.pathname.slice(1)}_pending`;
    const admin = new Client({ connectionString: db.url });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${url.pathname.slice(1)}"`);
    const v1 = createDataSource({ url: url.toString(), schema: 'probe', entities: [], migrations: [CreateThings1700000000000] });
    const v2 = () =>
      createDataSource({
        url: url.toString(),
        schema: 'probe',
        entities: [],
        migrations: [CreateThings1700000000000, AddColor1700000000001],
      });
    const runtime = v2();
    try {
      await runtime.initialize();
      // Nothing there yet (no schema): every migration is pending, and looking creates nothing.
      expect(await pendingMigrations(runtime)).toEqual(['CreateThings1700000000000', 'AddColor1700000000001']);
      const { rows } = await admin.query("SELECT 1 FROM pg_namespace WHERE nspname = 'probe'");
      expect(rows).toEqual([]);
      await runMigrations(v1);
      expect(await pendingMigrations(runtime)).toEqual(['AddColor1700000000001']);

      const logged: string[] = [];
      let done = false;
      const waiting = waitForMigrations(runtime, { intervalMs: 20, logEveryMs: 0, log: (msg) => logged.push(msg) }).then(
        () => (done = true),
      );
      while (logged.length < 2) await new Promise((r) => setTimeout(r, 10));
      expect(done).toBe(false);
      expect(logged[0]).toBe(
        'waiting for the migrations of schema probe: 1 not applied (AddColor1700000000001); run the migration Job (main.js migrate)',
      );
      const migrator = v2();
      await runMigrations(migrator);
      await migrator.destroy();
      await waiting;
      expect(await pendingMigrations(runtime)).toEqual([]);
      // An older release next to a newer schema has nothing pending either.
      expect(await pendingMigrations(v1)).toEqual([]);
    } finally {
      for (const s of [v1, runtime]) if (s.isInitialized) await s.destroy();
      await admin.query(`DROP DATABASE IF EXISTS "${url.pathname.slice(1)}" WITH (FORCE)`);
      await admin.end();
    }
  });
});
