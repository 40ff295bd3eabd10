import { readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Client } from 'pg';
import { REPO_ROOT, type TestDatabase } from '@crm/testing';
import { calls, setupE2e } from './setup';
import { startReceiver, until } from './webhook-helpers';

/**
 * deploy/postgres/roles.sql as a deployment uses it: the migrations run as the migrator role (the
 * migration Job's Secret), each service as its own runtime role with DML rights on its own schema
 * only, and the whole system works that way: accounts (auth + crm), records, the outbox relay and a
 * webhook delivery (webhooks). The roles get a unique suffix (roles are global to the server).
 */
const SUFFIX = randomBytes(4).toString('hex');
const ROLES = {
  migrator: `crm_migrator_${SUFFIX}`,
  auth: `crm_auth_${SUFFIX}`,
  core: `crm_core_${SUFFIX}`,
  webhooks: `crm_webhooks_${SUFFIX}`,
};
const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** roles.sql with this run's role names and psql's variables filled in, as single statements. */
function rolesStatements(dbName: string): string[] {
  const sql = readFileSync(path.join(REPO_ROOT, 'deploy', 'postgres', 'roles.sql'), 'utf8')
    .split('\n')
    .filter((line) => !line.trimStart().startsWith('--'))
    .join('\n')
    .replace(/\bcrm_(migrator|auth|core|webhooks)\b/g, (_, role: keyof typeof ROLES) => ROLES[role])
    .replace(/:'[a-z_]+_password'/g, `'${randomBytes(12).toString('hex')}'`)
    .replace(/:"DBNAME"/g, quoteIdent(dbName));
  expect(sql).not.toMatch(/:['"]/);
  return sql
    .split(';')
    .map((s) => s.trim())
    .filter(Boolean);
}

const urlAs = (database: TestDatabase, role: string) => {
  const url = new URL(database.url);
  url.username = role;
  url.password = '';
  return url.toString();
};

async function asRole<T>(database: TestDatabase, role: string, run: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: urlAs(database, role) });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

describe('database roles: a migrator with DDL rights, runtime roles with DML on their own schema (deploy/postgres/roles.sql)', () => {
  let database: TestDatabase | undefined;
  const { services, admin } = setupE2e({
    services: {
      prepareDatabase: async (db) => {
        database = db;
        const client = new Client({ connectionString: db.url });
        await client.connect();
        try {
          for (const statement of rolesStatements(new URL(db.url).pathname.slice(1))) await client.query(statement);
        } finally {
          await client.end();
        }
        const migrator = urlAs(db, ROLES.migrator);
        return {
          migrateEnv: { DATABASE_URL: migrator, AUTH_DATABASE_URL: migrator, CRM_DATABASE_URL: migrator, WEBHOOKS_DATABASE_URL: migrator },
          appEnv: {
            'auth-server': { DATABASE_URL: urlAs(db, ROLES.auth) },
            'crm-core': { DATABASE_URL: urlAs(db, ROLES.core) },
            'webhook-dispatcher': { DATABASE_URL: urlAs(db, ROLES.webhooks) },
          },
        };
      },
    },
  });
  const { ok } = calls(services);

  afterAll(async () => {
    // The roles can go once the database holding their objects is dropped (stopAll does it, once).
    await until('roles dropped', async () => {
      const client = new Client({ connectionString: services.database.url.replace(/\/[^/]*$/, '/postgres') });
      await client.connect();
      try {
        await services.stopAll();
        for (const role of Object.values(ROLES)) await client.query(`DROP ROLE IF EXISTS ${quoteIdent(role)}`);
        return true;
      } catch {
        return false;
      } finally {
        await client.end();
      }
    });
  });

  it('runs the services as the runtime roles: accounts, records, events and webhook deliveries work', async () => {
    const receiver = await startReceiver();
    try {
      await ok(admin, 'POST', '/webhooks', { name: 'Roles', hook_url: `${receiver.url}/hook`, types: ['contact'] }, 201);
      const contact = await ok(admin, 'POST', '/contacts', { last_name: 'Runtime' }, 201);
      const hook = await until('the contact event delivered', () => receiver.on('/hook').find((h) => h.json.type === 'contact'));
      expect(hook.json.data).toMatchObject({ contact: { id: (contact as { contact: { id: string } }).contact.id } });
    } finally {
      await receiver.close();
    }
  });

  it('has every table owned by the migrator, and each runtime role may only read and write the rows of its own schema', async () => {
    const own = { auth: ROLES.auth, crm: ROLES.core, webhooks: ROLES.webhooks } as const;
    await asRole(database!, ROLES.migrator, async (client) => {
      const { rows } = await client.query<{ schema: string; owner: string; n: number }>(
        `SELECT schemaname AS schema, tableowner AS owner, count(*)::int AS n FROM pg_tables
          WHERE schemaname IN ('auth', 'crm', 'webhooks') GROUP BY 1, 2 ORDER BY 1`,
      );
      expect(rows.map((r) => [r.schema, r.owner])).toEqual([
        ['auth', ROLES.migrator],
        ['crm', ROLES.migrator],
        ['webhooks', ROLES.migrator],
      ]);
      for (const r of rows) expect(r.n).toBeGreaterThan(1);
    });
    for (const [schema, role] of Object.entries(own)) {
      await asRole(database!, role, async (client) => {
        const { rows } = await client.query<{ schema: string; dml: boolean; some: boolean; truncate: boolean }>(
          // By oid: a schema without USAGE cannot be named. dml: every privilege on every table.
          `SELECT n.nspname AS schema,
                  has_schema_privilege(n.oid, 'USAGE')
                    AND bool_and(has_table_privilege(c.oid, 'SELECT') AND has_table_privilege(c.oid, 'INSERT')
                                 AND has_table_privilege(c.oid, 'UPDATE') AND has_table_privilege(c.oid, 'DELETE')) AS dml,
                  bool_or(has_table_privilege(c.oid, 'SELECT') OR has_table_privilege(c.oid, 'INSERT')
                          OR has_table_privilege(c.oid, 'UPDATE') OR has_table_privilege(c.oid, 'DELETE')) AS some,
                  bool_or(has_table_privilege(c.oid, 'TRUNCATE')) AS truncate
             FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE c.relkind = 'r' AND n.nspname IN ('auth', 'crm', 'webhooks') GROUP BY n.nspname, n.oid ORDER BY 1`,
        );
        // Full DML on its own schema's tables; no privilege at all on the others'; TRUNCATE nowhere.
        expect(rows.map((r) => ({ schema: r.schema, dml: r.dml, some: r.some, truncate: r.truncate }))).toEqual(
          ['auth', 'crm', 'webhooks'].map((s) => ({ schema: s, dml: s === schema, some: s === schema, truncate: false })),
        );
        const table = (await client.query<{ t: string }>(`SELECT tablename AS t FROM pg_tables WHERE schemaname = $1 LIMIT 1`, [schema]))
          .rows[0]!.t;
        for (const ddl of [
          `CREATE TABLE ${schema}.intruder (id int)`,
          `ALTER TABLE ${schema}.${quoteIdent(table)} ADD COLUMN intruder int`,
          `DROP TABLE ${schema}.${quoteIdent(table)}`,
          `TRUNCATE ${schema}.${quoteIdent(table)}`,
          `CREATE SCHEMA intruder`,
          `CREATE TABLE public.intruder (id int)`,
        ]) {
          await expect(client.query(ddl)).rejects.toMatchObject({ code: '42501' });
        }
      });
    }
  });
});
