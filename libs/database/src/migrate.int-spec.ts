import { createTestDatabase, type TestDatabase } from '@crm/testing';
import { Client } from 'pg';
import type { MigrationInterface, QueryRunner } from 'typeorm';
import { createDataSource } from './database-options';
import { runMigrations } from './migrate';

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
});
