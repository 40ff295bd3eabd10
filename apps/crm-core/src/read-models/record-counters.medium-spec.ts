import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import { Pool, type PoolClient } from 'pg';
import type { DataSource } from 'typeorm';
import { openMediumDatabase, type TestAccount } from '../contacts/contacts.medium-fixture';
import { companyRows } from './company.repository';
import { SummaryRepository, type ContactGroupRow } from '../summary/summary.repository';
import { contactRows } from './contact.repository';

/**
 * The counters kept by the triggers of migration 1764200000000 (docs/decisions.md "Record
 * counters") under many concurrent writers: 16 connections run a few hundred transactions at once
 * over two companies (creates into one company, moves between the two, soft deletes and undeletes,
 * bulk deletes, hard deletes, deal creates, status/amount/months changes, deals moved between
 * contacts, deal deletes, owner changes, changes of the contacts' status, lead source, letter and
 * star, next actions added, completed, reopened, reassigned and deleted, tags assigned and
 * unassigned one by one and in bulk, tags deleted); at the end every stored counter (the per-owner
 * and per-group contact counters of migrations 1764700000000 and 1764801000000, the stream and tag
 * counters and the contacts' stream_ids and tag_ids of migration 1764801100000 included), and
 * every deal's company_id (migration 1764200100000), equals a full recount, and the summary's
 * contact, tag and stream groups equal the scans they replaced.
 */

/** Contacts whose stored deal counters differ from a recount of their deals. */
const CONTACT_MISMATCHES = `
  SELECT c.id, c.deals_count, r.n, c.pending_deals_count, r.p, c.pending_deals_amount, r.pa, c.won_deals_count, r.w, c.won_deals_amount, r.wa
  FROM crm.contacts c
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS n,
           count(*) FILTER (WHERE d.status = 'pending')::int AS p,
           coalesce(sum(d.amount * d.months) FILTER (WHERE d.status = 'pending'), 0) AS pa,
           count(*) FILTER (WHERE d.status = 'won')::int AS w,
           coalesce(sum(d.amount * d.months) FILTER (WHERE d.status = 'won'), 0) AS wa
    FROM crm.deals d WHERE d.contact_id = c.id
  ) r ON true
  WHERE c.account_id = $1
    AND (c.deals_count, c.pending_deals_count, c.pending_deals_amount, c.won_deals_count, c.won_deals_amount) IS DISTINCT FROM (r.n, r.p, r.pa, r.w, r.wa)`;

/** Deals whose stored company_id differs from their contact's company (NULL while the contact is deleted). */
const DEAL_COMPANY_MISMATCHES = `
  SELECT d.id, d.company_id, c.company_id AS contact_company_id, c.deleted_at
  FROM crm.deals d JOIN crm.contacts c ON c.id = d.contact_id
  WHERE d.account_id = $1 AND d.company_id IS DISTINCT FROM (CASE WHEN c.deleted_at IS NULL THEN c.company_id END)`;

/** Each company's counters recounted as the readers did before: over its non-deleted contacts and their deals. */
const COMPANY_RECOUNT = `
  SELECT co.id,
         (SELECT count(*)::int FROM crm.contacts c WHERE c.company_id = co.id AND c.deleted_at IS NULL) AS contacts_count,
         dd.won_deals_count, dd.pending_deals_count, dd.total_won_amount, dd.total_pending_amount
  FROM crm.companies co
  LEFT JOIN LATERAL (
    SELECT count(*) FILTER (WHERE d.status = 'won')::int AS won_deals_count,
           count(*) FILTER (WHERE d.status = 'pending')::int AS pending_deals_count,
           coalesce(sum(d.amount * d.months) FILTER (WHERE d.status = 'won'), 0)::float8 AS total_won_amount,
           coalesce(sum(d.amount * d.months) FILTER (WHERE d.status = 'pending'), 0)::float8 AS total_pending_amount
    FROM crm.contacts c JOIN crm.deals d ON d.contact_id = c.id
    WHERE c.company_id = co.id AND c.deleted_at IS NULL
  ) dd ON true
  WHERE co.account_id = $1 ORDER BY co.id`;

/** Per-owner stored contact counters (migration 1764700000000) that differ from a recount of the non-deleted contacts. */
const OWNER_MISMATCHES = `
  WITH stored AS (SELECT owner_id, sum(contacts_count)::int AS n FROM crm.contact_owner_counters WHERE account_id = $1 GROUP BY owner_id),
       recount AS (SELECT owner_id, count(*)::int AS n FROM crm.contacts WHERE account_id = $1 AND deleted_at IS NULL GROUP BY owner_id)
  SELECT coalesce(s.owner_id, r.owner_id) AS owner_id, s.n AS stored, r.n AS recount
  FROM stored s FULL JOIN recount r ON r.owner_id = s.owner_id
  WHERE coalesce(s.n, 0) <> coalesce(r.n, 0)`;

/** Stored contact group counters (migration 1764801000000) that differ from a recount of the non-deleted contacts by group. */
const GROUP_MISMATCHES = `
  WITH stored AS (SELECT owner_id, status_id, lead_source_id, letter, starred, pending, sum(contacts_count)::int AS n
                  FROM crm.contact_group_counters WHERE account_id = $1 GROUP BY owner_id, status_id, lead_source_id, letter, starred, pending),
       recount AS (SELECT owner_id, status_id, coalesce(lead_source_id, '') AS lead_source_id, letter, starred, pending_deals_count > 0 AS pending,
                          count(*)::int AS n
                   FROM crm.contacts WHERE account_id = $1 AND deleted_at IS NULL
                   GROUP BY owner_id, status_id, coalesce(lead_source_id, ''), letter, starred, pending_deals_count > 0)
  SELECT s.*, r.n AS recount FROM stored s
  FULL JOIN recount r USING (owner_id, status_id, lead_source_id, letter, starred, pending)
  WHERE coalesce(s.n, 0) <> coalesce(r.n, 0)`;

const NEXT = `('asap', 'date', 'date_time', 'waiting')`;

/** Contacts whose stream_ids or tag_ids (migration 1764801100000) differ from their next actions' assignees or their tags. */
const CONTACT_ARRAY_MISMATCHES = `
  SELECT c.id, c.stream_ids, c.tag_ids, r.stream_ids AS recount_stream_ids, r.tag_ids AS recount_tag_ids
  FROM crm.contacts c
  CROSS JOIN LATERAL (
    SELECT ARRAY(SELECT DISTINCT a.assignee_id FROM crm.actions a WHERE a.contact_id = c.id AND a.status IN ${NEXT} ORDER BY 1)::varchar[] AS stream_ids,
           ARRAY(SELECT ct.tag_id FROM crm.contact_tags ct WHERE ct.contact_id = c.id ORDER BY 1)::varchar[] AS tag_ids
  ) r
  WHERE c.account_id = $1 AND (c.stream_ids::varchar[] <> r.stream_ids OR c.tag_ids::varchar[] <> r.tag_ids)`;

/** The next actions of the account's non-deleted contacts (one row per contact and assignee). */
const STREAM_ROWS = `
  SELECT DISTINCT c.id, a.assignee_id, c.owner_id, c.status_id, coalesce(c.lead_source_id, '') AS lead_source_id, c.letter, c.starred,
         c.pending_deals_count > 0 AS pending
  FROM crm.actions a JOIN crm.contacts c ON c.id = a.contact_id
  WHERE a.account_id = $1 AND a.status IN ${NEXT} AND c.deleted_at IS NULL`;

/** Stored stream counters (per assignee, '*' anyone's, and letter) that differ from a recount. */
const STREAM_MISMATCHES = `
  WITH stored AS (SELECT assignee_id, letter, sum(contacts_count)::int AS n FROM crm.stream_counters WHERE account_id = $1 GROUP BY 1, 2),
       recount AS (SELECT assignee_id, letter, count(*)::int AS n FROM (${STREAM_ROWS}) s GROUP BY 1, 2
                   UNION ALL SELECT '*', letter, count(DISTINCT id)::int FROM (${STREAM_ROWS}) s GROUP BY 2)
  SELECT s.*, r.n AS recount FROM stored s FULL JOIN recount r USING (assignee_id, letter) WHERE coalesce(s.n, 0) <> coalesce(r.n, 0)`;

/** Stored per-assignee stream counters by contact group that differ from a recount. */
const CONTACT_STREAM_MISMATCHES = `
  WITH stored AS (SELECT assignee_id, owner_id, status_id, lead_source_id, letter, starred, pending, sum(contacts_count)::int AS n
                  FROM crm.contact_stream_counters WHERE account_id = $1 GROUP BY 1, 2, 3, 4, 5, 6, 7),
       recount AS (SELECT assignee_id, owner_id, status_id, lead_source_id, letter, starred, pending, count(*)::int AS n
                   FROM (${STREAM_ROWS}) s GROUP BY 1, 2, 3, 4, 5, 6, 7)
  SELECT s.*, r.n AS recount FROM stored s
  FULL JOIN recount r USING (assignee_id, owner_id, status_id, lead_source_id, letter, starred, pending)
  WHERE coalesce(s.n, 0) <> coalesce(r.n, 0)`;

/** Stored tag counters (every tagged contact: stream_of '', and per assignee's stream) that differ from a recount. */
const TAG_MISMATCHES = `
  WITH stored AS (SELECT tag_id, stream_of, letter, sum(contacts_count)::int AS n FROM crm.tag_counters WHERE account_id = $1 GROUP BY 1, 2, 3),
       tagged AS (SELECT ct.tag_id, c.id, c.letter FROM crm.contact_tags ct JOIN crm.contacts c ON c.id = ct.contact_id
                  WHERE ct.account_id = $1 AND c.deleted_at IS NULL),
       recount AS (SELECT tag_id, '' AS stream_of, letter, count(*)::int AS n FROM tagged GROUP BY 1, 3
                   UNION ALL
                   SELECT t.tag_id, s.assignee_id, t.letter, count(*)::int FROM tagged t JOIN (${STREAM_ROWS}) s ON s.id = t.id GROUP BY 1, 2, 3)
  SELECT s.*, r.n AS recount FROM stored s FULL JOIN recount r USING (tag_id, stream_of, letter) WHERE coalesce(s.n, 0) <> coalesce(r.n, 0)`;

/** Counter rows of deleted tags (removed at the deleting transaction's commit). */
const DELETED_TAG_ROWS = `SELECT * FROM crm.tag_counters k WHERE k.account_id = $1 AND NOT EXISTS (SELECT 1 FROM crm.tags t WHERE t.id = k.tag_id)`;

/** Every recount of migration 1764801100000, each expected to find nothing. */
const STREAM_TAG_CHECKS = { CONTACT_ARRAY_MISMATCHES, STREAM_MISMATCHES, CONTACT_STREAM_MISMATCHES, TAG_MISMATCHES, DELETED_TAG_ROWS };

/** SummaryRepository.tagGroups before the tag counters: every tagged contact joined to the caller's stream. */
const TAG_GROUPS_SCAN = `
  WITH stream AS (SELECT DISTINCT contact_id FROM crm.actions WHERE account_id = $1 AND assignee_id = $2 AND status IN ${NEXT})
  SELECT ct.tag_id, c.letter, count(*)::int AS n, count(s.contact_id)::int AS n_stream
  FROM crm.contact_tags ct
  JOIN crm.contacts c ON c.id = ct.contact_id
  LEFT JOIN stream s ON s.contact_id = c.id
  WHERE ct.account_id = $1 AND c.account_id = $1 AND c.deleted_at IS NULL
  GROUP BY ct.tag_id, c.letter`;

/** SummaryRepository.streamGroups before the stream counters: every next action of the account joined to its contact. */
const STREAM_GROUPS_SCAN = `
  SELECT GROUPING(a.assignee_id) AS g_user, a.assignee_id, c.letter, count(DISTINCT c.id)::int AS n
  FROM crm.actions a
  JOIN crm.contacts c ON c.id = a.contact_id
  WHERE a.account_id = $1 AND a.status IN ${NEXT} AND c.account_id = $1 AND c.deleted_at IS NULL
  GROUP BY GROUPING SETS ((a.assignee_id, c.letter), (c.letter))`;

/**
 * The summary's contact groups as SummaryRepository.contactGroups read them before the stored
 * counters: one scan of the account's contacts (the caller's action stream and pending deals
 * joined), in a stable order.
 */
const CONTACT_GROUPS_SCAN = `
  WITH stream AS (SELECT DISTINCT contact_id FROM crm.actions WHERE account_id = $1 AND assignee_id = $2
                  AND status IN ('asap', 'date', 'date_time', 'waiting')),
       pending AS (SELECT DISTINCT contact_id FROM crm.deals WHERE account_id = $1 AND status = 'pending')
  SELECT GROUPING(c.status_id) AS g_status, GROUPING(c.lead_source_id) AS g_source, c.status_id, c.lead_source_id, c.owner_id, c.letter,
         count(*)::int AS n, count(s.contact_id)::int AS n_stream, (count(*) FILTER (WHERE c.starred))::int AS n_starred,
         (count(s.contact_id) FILTER (WHERE c.starred))::int AS n_starred_stream, count(p.contact_id)::int AS n_pending,
         (count(p.contact_id) FILTER (WHERE s.contact_id IS NOT NULL))::int AS n_pending_stream
  FROM crm.contacts c LEFT JOIN stream s ON s.contact_id = c.id LEFT JOIN pending p ON p.contact_id = c.id
  WHERE c.account_id = $1 AND c.deleted_at IS NULL
  GROUP BY GROUPING SETS ((c.status_id, c.owner_id, c.letter), (c.lead_source_id, c.owner_id, c.letter), (c.owner_id, c.letter))`;

/** How far the random writes got: assignees with a stream, tag counters of a stream, completed actions. */
const COVERAGE = `SELECT (SELECT count(DISTINCT assignee_id) FROM crm.stream_counters WHERE account_id = $1 AND contacts_count > 0)::int AS assignees,
                         (SELECT count(*) FROM crm.tag_counters WHERE account_id = $1 AND stream_of <> '' AND contacts_count > 0)::int AS tagged_stream,
                         (SELECT count(*) FROM crm.actions WHERE account_id = $1 AND status = 'done')::int AS done`;

/** Deterministic pseudo-random numbers (mulberry32). */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('record counters under concurrent writers (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let url: string;
  let acme: TestAccount;
  let pool: Pool;
  let statusId: string;
  let statusIds: string[];
  let leadSourceIds: string[];
  let pipelineId: string;
  const companies: string[] = [];

  beforeAll(async () => {
    const db = await createTestDatabase('crm_record_counters');
    url = db.url;
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(db));
    [acme] = accounts;
    // 16 writers and the sampler of what they reach.
    pool = new Pool({ connectionString: url, max: 17 });
    // A connection ended from outside (the shared server's housekeeping) is replaced, not fatal.
    pool.on('error', () => undefined);
    statusId = (await pool.query('SELECT id FROM crm.statuses WHERE account_id = $1 ORDER BY is_lead DESC LIMIT 1', [acme.accountId]))
      .rows[0].id;
    pipelineId = (await pool.query('SELECT id FROM crm.pipelines WHERE account_id = $1 LIMIT 1', [acme.accountId])).rows[0].id;
    statusIds = (await pool.query('SELECT id FROM crm.statuses WHERE account_id = $1', [acme.accountId])).rows.map((r) => r.id);
    leadSourceIds = [];
    for (const text of ['Web', 'Referral']) {
      const id = newId();
      await pool.query('INSERT INTO crm.lead_sources (id, account_id, text) VALUES ($1, $2, $3)', [id, acme.accountId, text]);
      leadSourceIds.push(id);
    }
    for (let i = 0; i < 4; i += 1) await createTag(pool);
    for (const name of ['Big Co', 'Other Co']) {
      const id = newId();
      await pool.query('INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, $3)', [id, acme.accountId, name]);
      companies.push(id);
    }
  });

  afterAll(async () => {
    await pool?.end();
    await close?.();
  });

  async function insertContact(client: PoolClient, companyId: string | null): Promise<string> {
    const id = newId();
    await client.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, last_name, company_id, sort_name, letter)
       VALUES ($1, $2, $3, $4, $5, $6, $5, 'c')`,
      [id, acme.accountId, acme.userId, statusId, `c${id.slice(-6)}`, companyId],
    );
    return id;
  }

  async function insertDeal(client: PoolClient, contactId: string, status: string, amount: number, months: number): Promise<void> {
    await client.query(
      `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, status, stage, expected_close_date,
                              close_date, date, amount, months)
       VALUES ($1, $2, $3, $4, $4, $5, $5, $6, $7, current_date, current_date, current_date, $8, $9)`,
      [newId(), acme.accountId, contactId, acme.userId, pipelineId, status, status === 'pending' ? 10 : null, amount, months],
    );
  }

  async function pickContact(client: PoolClient, random: () => number): Promise<string | undefined> {
    const rows = (await client.query('SELECT id FROM crm.contacts WHERE account_id = $1', [acme.accountId])).rows;
    return rows.length > 0 ? rows[Math.floor(random() * rows.length)].id : undefined;
  }

  async function pickDeal(client: PoolClient, random: () => number): Promise<string | undefined> {
    const rows = (await client.query('SELECT id FROM crm.deals WHERE account_id = $1', [acme.accountId])).rows;
    return rows.length > 0 ? rows[Math.floor(random() * rows.length)].id : undefined;
  }

  const STATUSES = ['pending', 'won', 'lost'];
  /** Owners contacts move between (owner_id has no foreign key; the counters do not care who they are). */
  const OWNERS = [newId(), newId(), newId()];
  const amountOf = (random: () => number) => Math.round(random() * 1_000_000) / 100;
  /** Assignees of next actions (assignee_id has no foreign key either). */
  const ASSIGNEES = [newId(), newId(), newId()];

  async function createTag(client: Pool | PoolClient): Promise<void> {
    await client.query('INSERT INTO crm.tags (id, account_id, name) VALUES ($1, $2, $3)', [
      newId(),
      acme.accountId,
      `t${newId().slice(-8)}`,
    ]);
  }

  /**
   * One random write. A deadlock between two writers, or a contact hard-deleted by another writer
   * between the pick and the write (foreign key), rolls the transaction back and it is retried.
   */
  async function randomWrite(client: PoolClient, random: () => number): Promise<void> {
    const op = Math.floor(random() * 19);
    const company = () => (random() < 0.75 ? companies[0] : random() < 0.7 ? companies[1] : null);
    const pick = () => pickContact(client, random);
    switch (op) {
      case 0:
      case 1: {
        // a contact created into a company, sometimes with its deals in the same transaction
        const id = await insertContact(client, companies[0]);
        if (random() < 0.5)
          await insertDeal(client, id, STATUSES[Math.floor(random() * 3)], amountOf(random), 1 + Math.floor(random() * 12));
        return;
      }
      case 2: {
        const id = await pick();
        if (id) await client.query('UPDATE crm.contacts SET company_id = $2 WHERE id = $1', [id, company()]);
        return;
      }
      case 3: {
        const id = await pick();
        if (id) await client.query('UPDATE crm.contacts SET deleted_at = CASE WHEN deleted_at IS NULL THEN now() END WHERE id = $1', [id]);
        return;
      }
      case 4: {
        // bulk soft delete, or bulk undelete, of several contacts in one statement
        const ids = [await pick(), await pick(), await pick()].filter(Boolean);
        await client.query(`UPDATE crm.contacts SET deleted_at = ${random() < 0.5 ? 'now()' : 'NULL'} WHERE id = ANY($1::varchar[])`, [
          ids,
        ]);
        return;
      }
      case 5:
      case 6: {
        const id = await pick();
        if (id) await insertDeal(client, id, STATUSES[Math.floor(random() * 3)], amountOf(random), 1 + Math.floor(random() * 12));
        return;
      }
      case 7: {
        const deal = await pickDeal(client, random);
        if (deal)
          await client.query(
            "UPDATE crm.deals SET status = $2::varchar, stage = CASE WHEN $2::varchar = 'pending' THEN 20 END, amount = $3, months = $4 WHERE id = $1",
            [deal, STATUSES[Math.floor(random() * 3)], amountOf(random), 1 + Math.floor(random() * 12)],
          );
        return;
      }
      case 8: {
        const [deal, to] = [await pickDeal(client, random), await pick()];
        if (deal && to) await client.query('UPDATE crm.deals SET contact_id = $2 WHERE id = $1', [deal, to]);
        return;
      }
      case 9: {
        const deal = await pickDeal(client, random);
        if (deal) await client.query('DELETE FROM crm.deals WHERE id = $1', [deal]);
        return;
      }
      case 10: {
        // what the summary groups contacts by: status, lead source, letter, starred (one or several at once)
        const id = await pick();
        if (!id) return;
        const pickOf = <T>(values: T[]) => values[Math.floor(random() * values.length)];
        await client.query(
          `UPDATE crm.contacts SET status_id = coalesce($2, status_id), lead_source_id = CASE WHEN $3::boolean THEN $4 ELSE lead_source_id END,
                  letter = coalesce($5, letter), starred = coalesce($6, starred) WHERE id = $1`,
          [
            id,
            random() < 0.5 ? pickOf(statusIds) : null,
            random() < 0.4,
            random() < 0.3 ? null : pickOf(leadSourceIds),
            random() < 0.4 ? pickOf(['a', 'b', 'z', '1']) : null,
            random() < 0.4 ? random() < 0.5 : null,
          ],
        );
        return;
      }
      case 12:
      case 13: {
        // a next action added for one of the assignees (at most one per contact and assignee), sometimes to several contacts at once
        const ids = random() < 0.7 ? [await pick()] : [await pick(), await pick(), await pick()];
        const assignee = ASSIGNEES[Math.floor(random() * ASSIGNEES.length)];
        for (const id of ids.filter(Boolean))
          await client.query(
            `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date) VALUES ($1, $2, $3, $4, 'next', $5, current_date)
             ON CONFLICT DO NOTHING`,
            [newId(), acme.accountId, id, assignee, random() < 0.5 ? 'date' : 'asap'],
          );
        return;
      }
      case 14: {
        // a next action completed, a completed one reopened, or one reassigned or moved to another contact
        const rows = (await client.query('SELECT id, status FROM crm.actions WHERE account_id = $1', [acme.accountId])).rows;
        if (rows.length === 0) return;
        const action = rows[Math.floor(random() * rows.length)];
        // Reopened, reassigned or moved only where the contact and assignee have no other next action
        // (actions_next_uq; a concurrent writer may still get there first: 23505, retried).
        const roll = random();
        if (roll < 0.4 && action.status !== 'done')
          await client.query("UPDATE crm.actions SET status = 'done', done = true WHERE id = $1", [action.id]);
        else {
          // reopened, reassigned ($4) or moved to another contact ($3)
          const to = roll >= 0.8 ? ((await pick()) ?? null) : null;
          const assignee = roll >= 0.6 && roll < 0.8 ? ASSIGNEES[Math.floor(random() * 3)] : null;
          await client.query(
            `UPDATE crm.actions a SET status = CASE WHEN $2::boolean THEN 'waiting' ELSE a.status END, done = CASE WHEN $2::boolean THEN false ELSE a.done END,
                    contact_id = coalesce($3::varchar, a.contact_id), assignee_id = coalesce($4::varchar, a.assignee_id)
             WHERE a.id = $1 AND ((a.status = 'done' AND NOT $2::boolean)
                   OR NOT EXISTS (SELECT 1 FROM crm.actions x WHERE x.contact_id = coalesce($3::varchar, a.contact_id)
                                    AND x.assignee_id = coalesce($4::varchar, a.assignee_id) AND x.status IN ${NEXT} AND x.id <> a.id))`,
            [action.id, roll < 0.6 && action.status === 'done', to, assignee],
          );
        }
        return;
      }
      case 15: {
        const rows = (await client.query('SELECT id FROM crm.actions WHERE account_id = $1', [acme.accountId])).rows;
        if (rows.length > 0) await client.query('DELETE FROM crm.actions WHERE id = $1', [rows[Math.floor(random() * rows.length)].id]);
        return;
      }
      case 16:
      case 17: {
        // a tag assigned (to one contact, or to several in one statement) or unassigned
        const tags = (await client.query('SELECT id FROM crm.tags WHERE account_id = $1 ORDER BY id', [acme.accountId])).rows;
        if (tags.length === 0) return;
        const tag = tags[Math.floor(random() * tags.length)].id;
        const ids = (random() < 0.7 ? [await pick()] : [await pick(), await pick(), await pick()]).filter(Boolean);
        if (random() < 0.7)
          await client.query(
            `INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) SELECT unnest($1::varchar[]), $2, $3 ON CONFLICT DO NOTHING`,
            [ids, tag, acme.accountId],
          );
        else await client.query('DELETE FROM crm.contact_tags WHERE contact_id = ANY($1::varchar[]) AND tag_id = $2', [ids, tag]);
        return;
      }
      case 18: {
        // now and then a whole tag deleted (its assignments cascade), and a new one created
        if (random() < 0.5) {
          const tags = (await client.query('SELECT id FROM crm.tags WHERE account_id = $1 ORDER BY id', [acme.accountId])).rows;
          if (tags.length > 3) await client.query('DELETE FROM crm.tags WHERE id = $1', [tags[Math.floor(random() * tags.length)].id]);
        } else await createTag(client);
        return;
      }
      default: {
        // a rename-like update that changes no counter, an owner change, and now and then a hard delete (its deals cascade)
        const id = await pick();
        if (!id) return;
        const roll = random();
        if (roll < 0.3) await client.query('DELETE FROM crm.contacts WHERE id = $1', [id]);
        else if (roll < 0.6)
          await client.query('UPDATE crm.contacts SET owner_id = $2 WHERE id = $1', [id, OWNERS[Math.floor(random() * 3)]]);
        else await client.query("UPDATE crm.contacts SET first_name = 'x' WHERE id = $1", [id]);
      }
    }
  }

  it('keep every counter equal to a full recount after hundreds of concurrent writes', async () => {
    const WRITERS = 16;
    const OPS = 35;
    let retries = 0;
    // 23505: a reopened action meets another next action of its contact and assignee (actions_next_uq)
    const RETRIED = new Set(['40P01', '23503', '23505', '57P01']);
    // What the writes reach depends on how the writers interleave: sampled while they run, the
    // most each kind of state was reached (the end state alone may have lost it again).
    const reached = { assignees: 0, tagged_stream: 0, done: 0 };
    let writing = true;
    const sampling = (async () => {
      while (writing) {
        const now = (await pool.query(COVERAGE, [acme.accountId])).rows[0] as typeof reached;
        for (const key of Object.keys(reached) as Array<keyof typeof reached>) reached[key] = Math.max(reached[key], now[key]);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    })();
    const outcomes = await Promise.allSettled(
      Array.from({ length: WRITERS }, async (_, w) => {
        const random = rng(1000 + w);
        let client = await pool.connect();
        try {
          for (let i = 0; i < OPS; i += 1) {
            const state = random();
            for (let attempt = 0; ; attempt += 1) {
              const replay = rng(Math.floor(state * 2 ** 31));
              try {
                await client.query('BEGIN');
                await randomWrite(client, replay);
                if (replay() < 0.3) await randomWrite(client, replay);
                await client.query('COMMIT');
                break;
              } catch (error) {
                const code = (error as { code?: string }).code ?? '';
                if (code === '57P01' || code === '') {
                  // the connection itself was lost: nothing was committed; retry on a new one
                  client.release(true);
                  client = await pool.connect();
                } else await client.query('ROLLBACK');
                if (!RETRIED.has(code) || attempt > 10) throw error;
                retries += 1;
              }
            }
          }
        } finally {
          client.release();
        }
      }),
    );
    writing = false;
    await sampling;
    for (const outcome of outcomes) if (outcome.status === 'rejected') throw outcome.reason;

    const contactsCount = Number(
      (await pool.query('SELECT count(*) FROM crm.contacts WHERE account_id = $1', [acme.accountId])).rows[0].count,
    );
    const dealsCount = Number((await pool.query('SELECT count(*) FROM crm.deals WHERE account_id = $1', [acme.accountId])).rows[0].count);
    expect(contactsCount).toBeGreaterThan(50);
    expect(dealsCount).toBeGreaterThan(30);
    expect(retries).toBeLessThan(WRITERS * OPS);

    expect((await pool.query(CONTACT_MISMATCHES, [acme.accountId])).rows).toEqual([]);
    expect((await pool.query(DEAL_COMPANY_MISMATCHES, [acme.accountId])).rows).toEqual([]);
    expect((await pool.query(OWNER_MISMATCHES, [acme.accountId])).rows).toEqual([]);
    expect((await pool.query(GROUP_MISMATCHES, [acme.accountId])).rows).toEqual([]);
    for (const [name, check] of Object.entries(STREAM_TAG_CHECKS))
      expect([name, (await pool.query(check, [acme.accountId])).rows]).toEqual([name, []]);
    // The writes reached what they should: streams of several assignees, tags on live contacts in a stream.
    expect(reached.assignees).toBeGreaterThanOrEqual(3);
    expect(reached.tagged_stream).toBeGreaterThan(0);
    expect(reached.done).toBeGreaterThan(0);
    const groups = await pool.query(
      'SELECT count(DISTINCT (status_id, lead_source_id, letter, starred, pending))::int AS n FROM crm.contact_group_counters WHERE account_id = $1 AND contacts_count > 0',
      [acme.accountId],
    );
    expect(groups.rows[0].n).toBeGreaterThan(3);
    // The summary reads the same groups from the counters as the scan it replaced, with the
    // caller's action stream (next actions on some contacts, a deleted one among them).
    const some = (
      await pool.query(
        `(SELECT id FROM crm.contacts WHERE account_id = $1 AND deleted_at IS NULL ORDER BY id LIMIT 35)
         UNION ALL (SELECT id FROM crm.contacts WHERE account_id = $1 AND deleted_at IS NOT NULL ORDER BY id LIMIT 5)`,
        [acme.accountId],
      )
    ).rows;
    for (const [i, { id }] of some.entries())
      await pool.query(
        `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date) VALUES ($1, $2, $3, $4, 'next', $5, current_date)`,
        [newId(), acme.accountId, id, i % 3 === 0 ? OWNERS[0] : acme.userId, i % 2 === 0 ? 'date' : 'asap'],
      );
    const order = (rows: ContactGroupRow[]) => [...rows].map((r) => JSON.stringify(r)).sort();
    const scanned = (await pool.query(CONTACT_GROUPS_SCAN, [acme.accountId, acme.userId])).rows as ContactGroupRow[];
    expect(scanned.some((r) => r.n_stream > 0 && r.g_status === 0)).toBe(true);
    expect(order(await new SummaryRepository().contactGroups(dataSource.manager, acme.accountId, acme.userId))).toEqual(order(scanned));
    // The tags' and the streams' groups, as the caller and as an assignee of the random writes.
    const sorted = (rows: object[]) => rows.map((r) => JSON.stringify(r)).sort();
    let tagStreams = 0;
    for (const caller of [acme.userId, ...ASSIGNEES]) {
      const tagScan = (await pool.query(TAG_GROUPS_SCAN, [acme.accountId, caller])).rows;
      tagStreams += tagScan.filter((r) => r.n_stream > 0).length;
      expect(sorted(await new SummaryRepository().tagGroups(dataSource.manager, acme.accountId, caller))).toEqual(sorted(tagScan));
    }
    expect(tagStreams).toBeGreaterThan(0);
    const streamScan = (await pool.query(STREAM_GROUPS_SCAN, [acme.accountId])).rows;
    expect(streamScan.filter((r) => r.g_user === 0).length).toBeGreaterThan(3);
    expect(sorted(await new SummaryRepository().streamGroups(dataSource.manager, acme.accountId))).toEqual(sorted(streamScan));
    const owners = await pool.query('SELECT DISTINCT owner_id FROM crm.contacts WHERE account_id = $1 AND deleted_at IS NULL', [
      acme.accountId,
    ]);
    expect(owners.rowCount).toBeGreaterThan(1);
    const withCompany = await pool.query('SELECT 1 FROM crm.deals WHERE account_id = $1 AND company_id IS NOT NULL', [acme.accountId]);
    expect(withCompany.rowCount).toBeGreaterThan(0);
    const recount = (await pool.query(COMPANY_RECOUNT, [acme.accountId])).rows;
    expect(recount.find((r) => r.id === companies[0]).contacts_count).toBeGreaterThan(10);
    // The readers' view of the stored counters is the recount.
    const stored = await companyRows(dataSource.manager, acme.accountId, companies);
    expect(
      [...stored]
        .sort((a, b) => (a.id < b.id ? -1 : 1))
        .map(({ id, contacts_count, won_deals_count, pending_deals_count, total_won_amount, total_pending_amount }) => ({
          id,
          contacts_count,
          won_deals_count,
          pending_deals_count,
          total_won_amount,
          total_pending_amount,
        })),
    ).toEqual(recount);
    const sizes = await contactRows(
      dataSource.manager,
      acme.accountId,
      (await pool.query('SELECT id FROM crm.contacts WHERE account_id = $1', [acme.accountId])).rows.map((r) => r.id),
      true,
    );
    for (const contact of sizes)
      expect(contact.company_size).toBe(contact.company_id ? recount.find((r) => r.id === contact.company_id).contacts_count : 0);
  }, 120_000);

  it('two transactions tagging one contact, or giving it next actions of two users, at once: the contact and the counters have both', async () => {
    const [first, second] = [await pool.connect(), await pool.connect()];
    try {
      const contact = await insertContact(first, null);
      const tags = [newId(), newId()].sort();
      for (const id of tags) await first.query('INSERT INTO crm.tags (id, account_id, name) VALUES ($1, $2, $1)', [id, acme.accountId]);
      const secondPid = (await second.query('SELECT pg_backend_pid() AS pid')).rows[0].pid;
      /** Runs `write` in both transactions, the second's while the first's is open, and commits both. */
      async function both(write: (client: PoolClient, i: number) => Promise<unknown>): Promise<void> {
        await first.query('BEGIN');
        await second.query('BEGIN');
        await write(first, 0);
        const pending = write(second, 1);
        // The second waits for the first's lock on the contact row before the first commits.
        for (let i = 0; ; i += 1) {
          const waiting = await pool.query("SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock'", [secondPid]);
          if (waiting.rowCount === 1) break;
          if (i > 200) throw new Error('the second transaction never waited for the first');
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        await first.query('COMMIT');
        await pending;
        await second.query('COMMIT');
      }
      await both((client, i) =>
        client.query('INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) VALUES ($1, $2, $3)', [
          contact,
          tags[i],
          acme.accountId,
        ]),
      );
      const users = [ASSIGNEES[0], ASSIGNEES[1]].sort();
      await both((client, i) =>
        client.query(
          `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date) VALUES ($1, $2, $3, $4, 'next', 'asap', current_date)`,
          [newId(), acme.accountId, contact, users[i]],
        ),
      );
      const row = (await pool.query('SELECT tag_ids, stream_ids FROM crm.contacts WHERE id = $1', [contact])).rows[0];
      expect(row).toEqual({ tag_ids: tags, stream_ids: users });
      for (const [name, check] of Object.entries(STREAM_TAG_CHECKS))
        expect([name, (await pool.query(check, [acme.accountId])).rows]).toEqual([name, []]);
      const counted = await pool.query(
        `SELECT sum(contacts_count)::int AS n FROM crm.tag_counters WHERE account_id = $1 AND tag_id = ANY($2::varchar[]) AND stream_of = ANY($3::varchar[])`,
        [acme.accountId, tags, users],
      );
      expect(counted.rows[0].n).toBe(4);
    } finally {
      first.release();
      second.release();
    }
  });

  it('migrate down and up again, backfilling the counters and deals.company_id from the data', async () => {
    const before = (await pool.query(COMPANY_RECOUNT, [acme.accountId])).rows;
    // Every migration from 1764200000000 (the counters) on, newest first: 1764200100000
    // (deals.company_id) and any later one.
    const timestampOf = (m: { name?: string; constructor: { name: string } }) =>
      Number(/(\d{13})$/.exec(m.name ?? m.constructor.name)?.[1]);
    const later = dataSource.migrations.filter((m) => timestampOf(m) >= 1764200000000).length;
    expect(later).toBeGreaterThanOrEqual(2);
    for (let i = 0; i < later; i += 1) await dataSource.undoLastMigration({ transaction: 'all' });
    const columns = await pool.query(
      `SELECT 1 FROM information_schema.columns WHERE table_schema = 'crm'
         AND ((table_name = 'contacts' AND column_name = 'deals_count') OR (table_name = 'deals' AND column_name = 'company_id'))`,
    );
    expect(columns.rowCount).toBe(0);
    await dataSource.runMigrations({ transaction: 'all' });
    expect((await pool.query(CONTACT_MISMATCHES, [acme.accountId])).rows).toEqual([]);
    expect((await pool.query(DEAL_COMPANY_MISMATCHES, [acme.accountId])).rows).toEqual([]);
    expect((await pool.query(GROUP_MISMATCHES, [acme.accountId])).rows).toEqual([]);
    expect((await pool.query(OWNER_MISMATCHES, [acme.accountId])).rows).toEqual([]);
    for (const [name, check] of Object.entries(STREAM_TAG_CHECKS))
      expect([name, (await pool.query(check, [acme.accountId])).rows]).toEqual([name, []]);
    const backfilled = await pool.query('SELECT 1 FROM crm.tag_counters WHERE account_id = $1 AND contacts_count > 0', [acme.accountId]);
    expect(backfilled.rowCount).toBeGreaterThan(0);
    const stored = await companyRows(dataSource.manager, acme.accountId, companies);
    expect(stored.map((r) => [r.id, r.contacts_count, r.total_won_amount]).sort()).toEqual(
      before.map((r) => [r.id, r.contacts_count, r.total_won_amount]).sort(),
    );
  });

  it('a counter update leaves modified_at alone', async () => {
    const client = await pool.connect();
    try {
      const id = await insertContact(client, companies[1]);
      const before = (await client.query('SELECT modified_at FROM crm.contacts WHERE id = $1', [id])).rows[0].modified_at;
      await insertDeal(client, id, 'pending', 10, 2);
      const after = (await client.query('SELECT modified_at, pending_deals_amount FROM crm.contacts WHERE id = $1', [id])).rows[0];
      expect(after.modified_at).toEqual(before);
      expect(Number(after.pending_deals_amount)).toBe(20);
    } finally {
      client.release();
    }
  });
});
