import { createTestDatabase } from '@crm/testing';
import { Client } from 'pg';
import type { DataSource } from 'typeorm';
import { openMediumDatabase, type TestAccount } from '../contacts/contacts.medium-fixture';

/**
 * Bulk statements on contacts, actions and tags on a connection like crm-core's (generic plans
 * forced, the trigger functions' plans cached by single-row writes first): every nested statement
 * the triggers run does work linear in the rows (decisions.md "Bulk updates of contacts stay
 * linear"). The work is read from the plans, not timed: auto_explain (ANALYZE) reports each
 * nested statement's plan to this client, and no join may discard more rows than a small multiple
 * of the statement's (a nested loop over the transition tables discards rows² of them: 9,000,000
 * for 3,000 contacts); the counters stay right.
 */
describe('bulk writes on a connection whose trigger plans were cached by single-row writes (real PostgreSQL)', () => {
  const N = 1500;
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let acme: TestAccount;
  let client: Client;
  const plans: string[] = [];

  beforeAll(async () => {
    const db = await createTestDatabase('crm_bulk_contact_updates');
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(db));
    [acme] = accounts;
    client = new Client({ connectionString: db.url });
    await client.connect();
    client.on('notice', (notice) => {
      if (notice.message?.includes('plan:')) plans.push(`${notice.message}\n${notice.where ?? ''}`);
      else if ((notice as { detail?: string }).detail) plans.push(String((notice as { detail?: string }).detail));
    });
    await client.query(`SET plan_cache_mode = force_generic_plan`);
    const { rows } = await client.query(`SELECT id FROM crm.statuses WHERE account_id = $1 ORDER BY is_lead DESC, id LIMIT 2`, [
      acme.accountId,
    ]);
    await client.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, last_name, sort_name, letter)
       SELECT substr(md5('bulk' || g), 1, 24), $1, $2, $3, 'C' || g, 'c' || g, 'c' FROM generate_series(1, $4::int) g`,
      [acme.accountId, acme.userId, rows[0].id, N],
    );
    await client.query(`INSERT INTO crm.tags (id, account_id, name) VALUES (substr(md5('bulk-tag'), 1, 24), $1, 'Bulk')`, [acme.accountId]);
    // Single-row writes first: the trigger functions' statements are planned for one row and kept.
    for (let i = 1; i <= 3; i += 1) {
      const id = `substr(md5('bulk${i}'), 1, 24)`;
      await client.query(`UPDATE crm.contacts SET status_id = $1 WHERE id = ${id}`, [rows[1].id]);
      await client.query(`UPDATE crm.contacts SET status_id = $1, deleted_at = NULL WHERE id = ${id}`, [rows[0].id]);
      await client.query(
        `INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) VALUES (${id}, substr(md5('bulk-tag'), 1, 24), $1)`,
        [acme.accountId],
      );
      await client.query(`DELETE FROM crm.contact_tags WHERE contact_id = ${id}`);
      await client.query(
        `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status) VALUES (substr(md5('one-act${i}'), 1, 24), $1, ${id}, $2, 'x', 'asap')`,
        [acme.accountId, acme.userId],
      );
      await client.query(`UPDATE crm.actions SET status = 'done', done = true WHERE id = substr(md5('one-act${i}'), 1, 24)`);
    }
    await client.query(`LOAD 'auto_explain'`);
    await client.query(
      `SET auto_explain.log_min_duration = 0; SET auto_explain.log_analyze = on; SET auto_explain.log_nested_statements = on; SET client_min_messages = log`,
    );
  }, 120_000);

  afterAll(async () => {
    await client?.end();
    await close?.();
  });

  /** The largest "Rows Removed by (Join) Filter" of the plans `statement` ran (itself and every nested statement). */
  async function worstDiscard(statement: string, values: unknown[] = []): Promise<number> {
    plans.length = 0;
    await client.query(statement, values);
    const text = plans.join('\n');
    expect(text).toContain('Query Text');
    return Math.max(0, ...[...text.matchAll(/Rows Removed by (?:Join )?Filter: (\d+)/g)].map((m) => Number(m[1])));
  }

  it('moves every contact to another status, tags and untags them, gives them next actions and completes them, deletes them and the tag', async () => {
    const { rows } = await client.query(`SELECT id FROM crm.statuses WHERE account_id = $1 ORDER BY is_lead DESC, id LIMIT 2`, [
      acme.accountId,
    ]);
    const bound = 4 * N;
    const ours = `account_id = '${acme.accountId}'`;
    expect(await worstDiscard(`UPDATE crm.contacts SET status_id = $1 WHERE ${ours}`, [rows[1].id])).toBeLessThan(bound);
    expect(
      await worstDiscard(
        `INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) SELECT id, substr(md5('bulk-tag'), 1, 24), account_id FROM crm.contacts WHERE ${ours}`,
      ),
    ).toBeLessThan(bound);
    expect(
      await worstDiscard(
        `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status)
         SELECT substr(md5('act' || id), 1, 24), account_id, id, $1, 'x', 'asap' FROM crm.contacts WHERE ${ours} ON CONFLICT DO NOTHING`,
        [acme.userId],
      ),
    ).toBeLessThan(bound);
    const counted = await dataSource.query(
      `SELECT (SELECT sum(contacts_count) FROM crm.tag_counters WHERE account_id = $1 AND stream_of = $2)::int AS tagged_stream,
              (SELECT sum(contacts_count) FROM crm.contact_group_counters WHERE account_id = $1 AND status_id = $3)::int AS moved`,
      [acme.accountId, acme.userId, rows[1].id],
    );
    expect(counted[0]).toEqual({ tagged_stream: N, moved: N });
    expect(await worstDiscard(`UPDATE crm.actions SET status = 'done', done = true WHERE ${ours} AND status = 'asap'`)).toBeLessThan(bound);
    expect(await worstDiscard(`UPDATE crm.contacts SET deleted_at = now() WHERE ${ours}`)).toBeLessThan(bound);
    expect(await worstDiscard(`DELETE FROM crm.tags WHERE id = substr(md5('bulk-tag'), 1, 24)`)).toBeLessThan(bound);
    const left = await dataSource.query(
      `SELECT (SELECT coalesce(sum(contacts_count), 0) FROM crm.contact_group_counters WHERE account_id = $1)::int AS contacts,
              (SELECT coalesce(sum(contacts_count), 0) FROM crm.stream_counters WHERE account_id = $1)::int AS streams,
              (SELECT count(*) FROM crm.tag_counters WHERE account_id = $1)::int AS tag_rows`,
      [acme.accountId],
    );
    expect(left[0]).toEqual({ contacts: 0, streams: 0, tag_rows: 0 });
  }, 120_000);
});
