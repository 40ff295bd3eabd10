import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';

/**
 * crm-core's connections plan each named prepared statement once (decisions.md "Generic plans for
 * crm-core's statements"): with PostgreSQL's default, a contact read re-planned its three
 * statements on every call. Contacts' pages keep room for HOT updates (migration 1764800700000).
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

  it("update a contact in place (HOT) for a note's last activity and a deal's counters, even on a full table", async () => {
    const { account_id: accountId, user_id: userId } = await fx.newAccount('Hot');
    // 2,000 contacts written in one statement, as an import or the benchmark's seed writes them:
    // at the default fillfactor of 100 their pages would have no room left.
    const ids = Array.from({ length: 2000 }, () => newId());
    await fx.dataSource.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, first_name, last_name, status_id, sort_name, letter, search_text)
       SELECT v.id, $2::varchar, $3, 'Ann', 'Lee ' || v.id, s.id, 'lee ' || v.id, 'l', 'ann lee ' || v.id
       FROM unnest($1::varchar[]) AS v(id), crm.statuses s WHERE s.account_id = $2::varchar AND s.is_lead`,
      [ids, accountId, userId],
    );
    const [{ id: pipelineId }] = await fx.dataSource.query('SELECT id FROM crm.pipelines WHERE account_id = $1 LIMIT 1', [accountId]);
    const picked = ids.filter((_, i) => i % 40 === 0);
    const runner = fx.dataSource.createQueryRunner();
    try {
      await runner.startTransaction();
      for (const id of picked) {
        await runner.query('UPDATE crm.contacts SET last_activity_at = now() WHERE id = $1', [id]);
        await runner.query(
          `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, status, stage,
                                  expected_close_date, close_date, date, amount, months)
           VALUES ($1, $2, $3, $4, $4, $5, $5, 'pending', 10, current_date, current_date, current_date, 100, 1)`,
          [newId(), accountId, id, userId, pipelineId],
        );
      }
      // this transaction's own counts: each picked contact updated twice (activity, then counters)
      const [stats] = await runner.query(
        `SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables WHERE relid = 'crm.contacts'::regclass`,
      );
      expect(stats).toEqual({ updated: picked.length * 2, hot: picked.length * 2 });
      await runner.rollbackTransaction();
    } finally {
      await runner.release();
    }
  });
});
