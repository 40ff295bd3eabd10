import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { ActionsRepository } from '../actions/actions.repository';
import { CallsRepository } from '../calls/calls.repository';
import type { Db } from '../common/sql';
import { openMediumDatabase, type TestAccount } from '../contacts/contacts.medium-fixture';
import { DealsRepository } from '../deals/deals.repository';
import { MeetingsRepository } from '../meetings/meetings.repository';
import { NotesRepository } from '../notes/notes.repository';
import type { ListInput } from './record-list.repository';

/** Records per table in the big account: enough that the planner's choices are those of a real account. */
const RECORDS = 3000;
const CONTACTS = 60;

interface PgClient {
  query(config: { text: string; values: unknown[] }): Promise<{ rows: Array<Record<string, unknown>> }>;
}

/** What the tests ask of a list: a page, of one contact's or one company's records or of all. */
type PageInput = Pick<ListInput, 'page' | 'per_page' | 'contact_id' | 'company_id'>;

/** Each record list: its table, alias, default order, and how the repository reads a page of it. */
interface ListCase {
  name: string;
  table: string;
  alias: string;
  order: string;
  orderIndex: string;
  list(db: Db, accountId: string, input: PageInput): Promise<{ ids: string[]; total: number }>;
}

/**
 * The account-wide record lists (GET /notes, /calls, /meetings, /actions, /deals) against the real
 * PostgreSQL, on an account of RECORDS records per table, with a deleted contact's records and
 * another account's: each page and total is what a plain join over the table gives, and the
 * default order's page is read in order from its index (migration 1764800900000), not sorted.
 */
describe('record lists (real PostgreSQL)', () => {
  let dataSource: DataSource;
  let close: () => Promise<void>;
  let acme: TestAccount;
  let other: TestAccount;
  let contactIds: string[];
  let deletedContacts: string[];
  let companyId: string;
  const notes = new NotesRepository();
  const calls = new CallsRepository();
  const meetings = new MeetingsRepository();
  const actions = new ActionsRepository();
  const deals = new DealsRepository();

  const paged = (r: { rows: Array<{ id: string }>; page: { total_count: number } }) => ({
    ids: r.rows.map((row) => row.id),
    total: r.page.total_count,
  });
  const cases: ListCase[] = [
    {
      name: 'notes',
      table: 'crm.notes',
      alias: 'n',
      order: 'n.date DESC, n.created_at DESC, n.id DESC',
      orderIndex: 'notes_account_order_idx',
      list: async (db, accountId, input) => paged(await notes.list(db, accountId, input)),
    },
    {
      name: 'calls',
      table: 'crm.calls',
      alias: 'l',
      order: 'l.call_time_int DESC, l.id DESC',
      orderIndex: 'calls_account_order_idx',
      list: async (db, accountId, input) => paged(await calls.list(db, accountId, input)),
    },
    {
      name: 'meetings',
      table: 'crm.meetings',
      alias: 'g',
      order: 'g.meeting_time_int DESC, g.id DESC',
      orderIndex: 'meetings_account_order_idx',
      list: async (db, accountId, input) => paged(await meetings.list(db, accountId, input)),
    },
    {
      name: 'actions',
      table: 'crm.actions',
      alias: 'a',
      order: "(a.status = 'done'), (a.status <> 'asap'), a.date NULLS LAST, a.exact_time NULLS LAST, a.position, a.created_at, a.id",
      orderIndex: 'actions_account_order_idx',
      list: async (db, accountId, input) => paged(await actions.list(db, accountId, input)),
    },
    {
      name: 'deals',
      table: 'crm.deals',
      alias: 'd',
      order: 'd.date DESC, d.id DESC',
      orderIndex: 'deals_account_date_idx',
      list: async (db, accountId, input) => {
        const r = await deals.list(db, accountId, {
          page: input.page,
          perPage: input.per_page,
          contactId: input.contact_id,
          companyId: input.company_id,
        });
        return { ids: r.rows.map((row) => row.id), total: r.total };
      },
    },
  ];

  /** The list as a plain join over the table: the ids of the account's records whose contact is not deleted, in the list's order. */
  async function plain(c: ListCase, accountId: string, where = 'true', values: unknown[] = []): Promise<string[]> {
    const rows: Array<{ id: string }> = await dataSource.query(
      `SELECT ${c.alias}.id FROM ${c.table} ${c.alias} JOIN crm.contacts c ON c.id = ${c.alias}.contact_id
       WHERE ${c.alias}.account_id = $1 AND c.deleted_at IS NULL AND ${where} ORDER BY ${c.order}`,
      [accountId, ...values],
    );
    return rows.map((r) => r.id);
  }

  async function insertContacts(account: TestAccount, count: number, company: string | null): Promise<string[]> {
    const rows: Array<{ id: string }> = await dataSource.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, first_name, last_name, status_id, sort_name, letter, company_id)
       SELECT u.id, $2::varchar, $3, 'Ann', 'Lee ' || u.n, s.id, 'lee ' || u.n, 'l', $4
       FROM unnest($1::varchar[]) WITH ORDINALITY AS u(id, n), crm.statuses s WHERE s.account_id = $2::varchar AND s.is_lead
       RETURNING id`,
      [Array.from({ length: count }, () => newId()), account.accountId, account.userId, company],
    );
    return rows.map((r) => r.id);
  }

  /** `count` records of each table for `contacts` (in turn), dated over 400 days with ties; one open action per contact, the rest done. */
  async function insertRecords(account: TestAccount, contacts: string[], count: number): Promise<void> {
    const params = () => [Array.from({ length: count }, () => newId()), account.accountId, account.userId, contacts];
    const each = `FROM unnest($1::varchar[]) WITH ORDINALITY AS u(id, n)`;
    const contact = `($4::varchar[])[1 + (u.n % array_length($4::varchar[], 1))]`;
    await dataSource.query(
      `INSERT INTO crm.notes (id, account_id, contact_id, author_id, text, date, created_at)
       SELECT u.id, $2, ${contact}, $3, 'note ' || u.n, DATE '2026-01-01' - (u.n % 400)::int, now() - (u.n % 7) * interval '1 hour' ${each}`,
      params(),
    );
    await dataSource.query(
      `INSERT INTO crm.calls (id, account_id, contact_id, author_id, text, call_time_int)
       SELECT u.id, $2, ${contact}, $3, 'call ' || u.n, 1767225600 - (u.n % 500) * 3600 ${each}`,
      params(),
    );
    await dataSource.query(
      `INSERT INTO crm.meetings (id, account_id, contact_id, author_id, text, meeting_time_int)
       SELECT u.id, $2, ${contact}, $3, 'meeting ' || u.n, 1767225600 - (u.n % 500) * 3600 ${each}`,
      params(),
    );
    await dataSource.query(
      `INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, exact_time, position, done, done_at, status_before_done)
       SELECT u.id, $2, ${contact}, $3, 'action ' || u.n,
              CASE WHEN u.n <= array_length($4::varchar[], 1) THEN (ARRAY['asap', 'date', 'date_time', 'waiting'])[1 + u.n % 4] ELSE 'done' END,
              CASE WHEN u.n % 4 = 0 AND u.n <= array_length($4::varchar[], 1) THEN NULL ELSE DATE '2026-01-01' - (u.n % 90)::int END,
              CASE WHEN u.n % 4 = 2 THEN 1767225600 + u.n ELSE NULL END, 0,
              u.n > array_length($4::varchar[], 1), CASE WHEN u.n > array_length($4::varchar[], 1) THEN DATE '2026-01-01' END,
              CASE WHEN u.n > array_length($4::varchar[], 1) THEN 'date' END
       ${each}`,
      params(),
    );
    await dataSource.query(
      `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, status, stage,
                              expected_close_date, close_date, date, amount, months)
       SELECT u.id, $2, ${contact}, $3, $3, p.id, sp.id, 'Deal ' || u.n, 'pending', 10,
              DATE '2026-01-01', DATE '2026-01-01', DATE '2026-01-01' - (u.n % 300)::int, 100, 1
       ${each}
       JOIN crm.pipelines p ON p.account_id = $2 AND p.kind = 'pipeline' AND p.is_default
       JOIN crm.pipelines sp ON sp.account_id = $2 AND sp.kind = 'sales' AND sp.is_default`,
      params(),
    );
  }

  beforeAll(async () => {
    let accounts: [TestAccount, TestAccount];
    ({ dataSource, accounts, close } = await openMediumDatabase(await createTestDatabase('crm_record_lists')));
    [acme, other] = accounts;
    [{ id: companyId }] = await dataSource.query(
      "INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, 'Initech') RETURNING id",
      [newId(), acme.accountId],
    );
    contactIds = [...(await insertContacts(acme, CONTACTS - 10, null)), ...(await insertContacts(acme, 10, companyId))];
    await insertRecords(acme, contactIds, RECORDS);
    await insertRecords(other, await insertContacts(other, 5, null), 200);
    // A contact deleted with its records (and one with none): they leave the pages and the totals.
    deletedContacts = [contactIds[3], contactIds[CONTACTS - 1]];
    await dataSource.query('UPDATE crm.contacts SET deleted_at = now() WHERE id = ANY($1)', [deletedContacts]);
    for (const table of ['contacts', 'notes', 'calls', 'meetings', 'actions', 'deals']) await dataSource.query(`ANALYZE crm.${table}`);
  }, 60_000);

  afterAll(async () => close?.());

  describe.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    it('pages and counts the records of contacts not deleted, in the default order, as a plain join does', async () => {
      const expected = await plain(c, acme.accountId);
      // The deleted contact's records are there to leave out.
      const [{ n: hidden }] = await dataSource.query(`SELECT count(*)::int AS n FROM ${c.table} WHERE contact_id = ANY($1)`, [
        deletedContacts,
      ]);
      expect(hidden).toBeGreaterThan(0);
      expect(expected.length).toBe(RECORDS - hidden);
      for (const page of [1, 2, 17, Math.ceil(expected.length / 100)]) {
        const got = await c.list(dataSource.manager, acme.accountId, { page, per_page: 100 });
        expect(got.total).toBe(expected.length);
        expect(got.ids).toEqual(expected.slice((page - 1) * 100, page * 100));
      }
      const past = await c.list(dataSource.manager, acme.accountId, { page: 40, per_page: 100 });
      expect(past).toEqual({ ids: [], total: expected.length });
      // Another account's list holds its own records alone.
      expect((await c.list(dataSource.manager, other.accountId, { page: 1, per_page: 100 })).total).toBe(200);
    });

    it("filters by contact and by company (its contacts' records)", async () => {
      const one = contactIds[5];
      const ofContact = await plain(c, acme.accountId, `${c.alias}.contact_id = $2`, [one]);
      expect(ofContact.length).toBeGreaterThan(0);
      expect(await c.list(dataSource.manager, acme.accountId, { page: 1, per_page: 100, contact_id: one })).toEqual({
        ids: ofContact.slice(0, 100),
        total: ofContact.length,
      });
      const ofCompany = await plain(c, acme.accountId, 'c.company_id = $2', [companyId]);
      expect(ofCompany.length).toBeGreaterThan(0);
      expect(await c.list(dataSource.manager, acme.accountId, { page: 2, per_page: 100, company_id: companyId })).toEqual({
        ids: ofCompany.slice(100, 200),
        total: ofCompany.length,
      });
    });

    it("reads the default order's page from its index in order (no sort), and counts without looking each record's contact up", async () => {
      const runner = dataSource.createQueryRunner();
      try {
        const client = (await runner.connect()) as PgClient;
        const query = client.query.bind(client);
        const seen: Array<{ text: string; values: unknown[] }> = [];
        client.query = (config) => {
          seen.push(config);
          return query(config);
        };
        await c.list(runner.manager, acme.accountId, { page: 3, per_page: 100 });
        client.query = query;
        const plans = await Promise.all(
          seen.map(async ({ text, values }) => ({
            text,
            plan: JSON.stringify((await query({ text: `EXPLAIN (FORMAT JSON) ${text}`, values })).rows),
          })),
        );
        const page = plans.find((p) => /ORDER BY/.test(p.text));
        const total = plans.find((p) => /count\(\*\)/.test(p.text));
        expect(page?.plan).toContain(`"Index Name":"${c.orderIndex}"`);
        expect(page?.plan).not.toContain('"Node Type":"Sort"');
        expect(page?.plan).not.toContain('"Node Type":"Incremental Sort"');
        // Nor any table of records scanned whole for it (a hashed subquery: deals' linked notes were).
        expect(page?.plan).not.toMatch(/"Node Type":"Seq Scan"[^{}]*"Relation Name":"(notes|calls|meetings|actions|deals)"/);
        // The total: the table's own rows (its index or a scan), less the deleted contacts'; no
        // contact looked up by primary key for every record.
        expect(total?.plan).toMatch(/"Subplan Name":"InitPlan 2/);
        expect(total?.plan).not.toContain('"Index Name":"contacts_pkey"');
      } finally {
        await runner.release();
      }
    });
  });
});
