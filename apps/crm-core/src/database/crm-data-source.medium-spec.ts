import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';

/**
 * crm-core's connections plan each named prepared statement once (decisions.md "Generic plans for
 * crm-core's statements"): with PostgreSQL's default, a contact read re-planned its three
 * statements on every call.
 */
describe("crm-core's database connections", () => {
  let fx: MediumDatabase;

  beforeAll(async () => {
    fx = await openMediumDatabase(await createTestDatabase('crm_data_source'));
  });

  afterAll(async () => {
    await fx?.close();
  });

  it('use generic plans for prepared statements', async () => {
    const [{ plan_cache_mode }] = await fx.dataSource.query('SHOW plan_cache_mode');
    expect(plan_cache_mode).toBe('force_generic_plan');
  });
});
