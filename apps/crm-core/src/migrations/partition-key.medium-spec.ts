import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';

/**
 * Keeps docs/scaling.md honest: the crm schema can be partitioned by account (native partitions
 * or Citus distribution) only while every table carries a NOT NULL `account_id`. The account
 * registry is keyed by the account itself (`id`); TypeORM's migration log is not account data.
 */
const NOT_ACCOUNT_DATA = ['accounts', 'migrations'];
describe('crm schema: every table carries its account (docs/scaling.md)', () => {
  let fx: MediumDatabase;

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_partition_key'));
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('has a NOT NULL account_id column in every table but the account registry and the migration log', async () => {
    const tables: Array<{ table_name: string; account_id: string | null }> = await fx.dataSource.query(
      `SELECT t.table_name, c.is_nullable AS account_id
       FROM information_schema.tables t
       LEFT JOIN information_schema.columns c
         ON c.table_schema = t.table_schema AND c.table_name = t.table_name AND c.column_name = 'account_id'
       WHERE t.table_schema = 'crm' AND t.table_type = 'BASE TABLE'
       ORDER BY t.table_name`,
    );
    expect(tables.length).toBeGreaterThan(10);
    const offenders = tables
      .filter((t) => !NOT_ACCOUNT_DATA.includes(t.table_name) && t.account_id !== 'NO')
      .map((t) => `${t.table_name} (${t.account_id ?? 'missing'})`);
    expect(offenders).toEqual([]);
  });
});
