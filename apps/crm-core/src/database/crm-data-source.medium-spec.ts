import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { one, sql } from '../common/sql';

/**
 * crm-core's connections plan each named prepared statement once (decisions.md "Generic plans for
 * crm-core's statements"): with PostgreSQL's default, a contact read re-planned its three
 * statements on every call. No statement is compiled with JIT (decisions.md "No JIT"). Contacts' pages
 * keep room for HOT updates (migration 1764800700000).
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

  it('never compile a statement with JIT, whatever its estimated cost', async () => {
    const [{ jit }] = await fx.dataSource.query('SHOW jit');
    expect(jit).toBe('off');
    // A statement estimated above jit_above_cost (100,000 by default) is planned without JIT; with
    // PostgreSQL's default the same plan carries a JIT section.
    const explain = 'EXPLAIN (FORMAT JSON) SELECT sum(a * b) FROM generate_series(1, 3000) a, generate_series(1, 3000) b';
    const [{ 'QUERY PLAN': plan }] = await fx.dataSource.query(explain);
    expect(plan[0].Plan['Total Cost']).toBeGreaterThan(100_000);
    expect(plan[0].JIT).toBeUndefined();
    const runner = fx.dataSource.createQueryRunner();
    try {
      await runner.query('SET jit = on');
      const [{ available }] = await runner.query('SELECT pg_jit_available() AS available');
      const [{ 'QUERY PLAN': withDefault }] = await runner.query(explain);
      // (A server built without LLVM has no JIT to turn off.)
      expect(withDefault[0].JIT !== undefined).toBe(available);
    } finally {
      await runner.query('RESET jit');
      await runner.release();
    }
  });

  it('plan a statement run with plan: custom with its values, and give the connection its generic plans back, also after a failure', async () => {
    const setting = sql`SELECT current_setting('plan_cache_mode') AS mode`;
    const runner = fx.dataSource.createQueryRunner();
    try {
      // One connection (a transaction's), so "after" is read where the change was made.
      await runner.startTransaction();
      const tx = runner.manager;
      expect(await one(tx, setting, { plan: 'custom' })).toEqual({ mode: 'force_custom_plan' });
      expect(await one(tx, setting)).toEqual({ mode: 'force_generic_plan' });
      // A prepared statement keeps its generic plan: `plan` does not apply to it.
      expect(await one(tx, setting, { prepare: true, plan: 'custom' })).toEqual({ mode: 'force_generic_plan' });
      await runner.commitTransaction();
      // Outside a transaction (the runner keeps its one connection): a statement that fails
      // still gives its connection back as it was.
      await expect(one(runner.manager, sql`SELECT 1 / (0 * ${1}::int) AS n`, { plan: 'custom' })).rejects.toThrow(/division by zero/);
      expect(await one(runner.manager, setting)).toEqual({ mode: 'force_generic_plan' });
      // In a transaction, a failed statement leaves it aborted; its rollback undoes the SET.
      await runner.startTransaction();
      await expect(one(tx, sql`SELECT 1 / (0 * ${1}::int) AS n`, { plan: 'custom' })).rejects.toThrow(/division by zero/);
      await runner.rollbackTransaction();
      expect(await one(runner.manager, setting)).toEqual({ mode: 'force_generic_plan' });
    } finally {
      await runner.release();
    }
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
