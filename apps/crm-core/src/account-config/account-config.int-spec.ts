import 'reflect-metadata';
import { newId } from '@crm/common';
import { emptyLetterCounts, type Caller, type LetterCounts, type ProvisionAccountMessage } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createTestDatabase, type TestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { SummaryService } from '../summary/summary.service';

/**
 * Test fixtures of the account configuration integration tests (real PostgreSQL): accounts
 * provisioned the way the auth-server does, and contacts, tags, actions and deals inserted with
 * SQL (the contacts and records modules have their own tests).
 */
interface ConfigFixture {
  db: TestDatabase;
  dataSource: DataSource;
  accounts: AccountsService;
  close(): Promise<void>;
}

async function openFixture(name: string): Promise<ConfigFixture> {
  const db = await createTestDatabase(name);
  const config = Object.assign(new CrmCoreConfig(), { DATABASE_URL: db.url });
  const dataSource = crmDataSource(config);
  await runMigrations(dataSource);
  const accounts = new AccountsService(new AccountsRepository(dataSource), config);
  return {
    db,
    dataSource,
    accounts,
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      await db.drop();
    },
  };
}

/** A new account with its admin; returns the admin as a caller. */
async function newAccount(fx: ConfigFixture, name = 'Acme'): Promise<Caller> {
  const message: ProvisionAccountMessage = {
    account: { id: newId(), name, region: 'us' },
    admin: { id: newId(), first_name: 'Ada', last_name: name, email: `${name.toLowerCase()}-${newId()}@example.test`, role: 'admin', account_rights: [], permissions: ['delete_contacts'] },
  };
  await fx.accounts.provision(message);
  return { account_id: message.account.id, user_id: message.admin.id, role: 'admin', auth_method: 'api_key', scopes: ['crm'] };
}

/** Another (plain) user of the caller's account. */
async function newUser(fx: ConfigFixture, admin: Caller, lastName = 'User'): Promise<Caller> {
  const id = newId();
  await fx.accounts.provisionUser({ account_id: admin.account_id, user: { id, first_name: 'Uma', last_name: lastName, email: `u-${id}@example.test`, role: 'user', account_rights: [], permissions: [] } });
  return { account_id: admin.account_id, user_id: id, role: 'user', auth_method: 'api_key', scopes: ['crm'] };
}

async function leadStatusId(fx: ConfigFixture, caller: Caller): Promise<string> {
  const [row] = await fx.dataSource.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [caller.account_id]);
  return row.id;
}

interface ContactSeed {
  first_name?: string;
  last_name?: string;
  company_name?: string;
  owner_id?: string;
  status_id?: string;
  lead_source_id?: string | null;
  starred?: boolean;
  deleted?: boolean;
  emails?: Array<{ type: string; value: string }>;
  phones?: Array<{ type: string; value: string }>;
  custom_fields?: Record<string, unknown>;
  job_title?: string;
  created_at?: Date;
}

/** Inserts a contact the way the contacts module stores it (sort_name, letter, search_text). */
async function insertContact(fx: ConfigFixture, caller: Caller, seed: ContactSeed = {}): Promise<string> {
  const id = newId();
  const first = seed.first_name ?? '';
  const last = seed.last_name ?? 'Doe';
  const company = seed.company_name ?? '';
  const sortName = `${(last || company).toLowerCase()} ${first.toLowerCase()}`;
  const letter = /^[a-z]/.test(sortName) ? sortName[0] : '1';
  const search = [first, last, company, ...(seed.emails ?? []).map((e) => e.value)].join(' ').toLowerCase();
  await fx.dataSource.query(
    `INSERT INTO crm.contacts (id, account_id, owner_id, first_name, last_name, company_name, status_id, lead_source_id, starred, emails, phones, custom_fields, job_title, sort_name, letter, search_text, deleted_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, coalesce($18, now()))`,
    [
      id,
      caller.account_id,
      seed.owner_id ?? caller.user_id,
      first,
      last,
      company,
      seed.status_id ?? (await leadStatusId(fx, caller)),
      seed.lead_source_id ?? null,
      seed.starred ?? false,
      JSON.stringify(seed.emails ?? []),
      JSON.stringify(seed.phones ?? []),
      JSON.stringify(seed.custom_fields ?? {}),
      seed.job_title ?? '',
      sortName,
      letter,
      search,
      seed.deleted ? new Date() : null,
      seed.created_at ?? null,
    ],
  );
  return id;
}

/** Links a contact to a tag, creating the tag (case-insensitive name) when needed; returns the tag id. */
async function tagContact(fx: ConfigFixture, caller: Caller, contactId: string, name: string): Promise<string> {
  const [existing] = await fx.dataSource.query('SELECT id FROM crm.tags WHERE account_id = $1 AND lower(name) = lower($2)', [caller.account_id, name]);
  const tagId: string = existing?.id ?? newId();
  if (!existing) await fx.dataSource.query('INSERT INTO crm.tags (id, account_id, name) VALUES ($1, $2, $3)', [tagId, caller.account_id, name]);
  await fx.dataSource.query('INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [contactId, tagId, caller.account_id]);
  return tagId;
}

/** A next action (status date) for the assignee on the contact. */
async function insertNextAction(fx: ConfigFixture, caller: Caller, contactId: string, assigneeId: string, status: 'date' | 'waiting' | 'queued_with_date' | 'done' = 'date'): Promise<string> {
  const id = newId();
  await fx.dataSource.query('INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, done) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)', [
    id,
    caller.account_id,
    contactId,
    assigneeId,
    'Call back',
    status,
    status === 'waiting' ? null : '2030-01-01',
    status === 'done',
  ]);
  return id;
}

/** A deal of the given status whose primary contact is `contactId`. */
async function insertDeal(fx: ConfigFixture, caller: Caller, contactId: string, status: 'pending' | 'won' | 'lost' = 'pending'): Promise<string> {
  const [pipeline] = await fx.dataSource.query("SELECT id FROM crm.pipelines WHERE account_id = $1 AND kind = 'pipeline' AND is_default", [caller.account_id]);
  const [sales] = await fx.dataSource.query("SELECT id FROM crm.pipelines WHERE account_id = $1 AND kind = 'sales' AND is_default", [caller.account_id]);
  const id = newId();
  await fx.dataSource.query(
    `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, status, stage, expected_close_date, close_date, date)
     VALUES ($1, $2, $3, $4, $4, $5, $6, 'Deal', $7, $8, current_date, current_date, current_date)`,
    [id, caller.account_id, contactId, caller.user_id, pipeline.id, sales.id, status, status === 'pending' ? 10 : null],
  );
  return id;
}

function letters(entries: Record<string, number>): LetterCounts {
  const counts = emptyLetterCounts();
  for (const [letter, n] of Object.entries(entries)) {
    counts[letter as keyof LetterCounts] = n;
    counts.total_count += n;
  }
  return counts;
}

describe('account configuration (real PostgreSQL)', () => {
  let fx: ConfigFixture;
  let acme: Caller;
  let bob: Caller;
  let other: Caller;

  beforeAll(async () => {
    fx = await openFixture('crm_config');
    acme = await newAccount(fx, 'Acme');
    bob = await newUser(fx, acme, 'Zulu');
    other = await newAccount(fx, 'Other');
  });

  afterAll(async () => {
    await fx?.close();
  });

  describe('summary blocks', () => {
    it('counts contacts per status, lead source, tag, owner, letter and action stream in one go', async () => {
      const summary = new SummaryService();
      const caller = await newAccount(fx, 'Summ');
      const colleague = await newUser(fx, caller, 'Colleague');
      const statuses: Array<{ id: string; status: string }> = await fx.dataSource.query('SELECT id, status FROM crm.statuses WHERE account_id = $1 ORDER BY position', [caller.account_id]);
      const lead = statuses[0].id;
      const customer = statuses.find((s) => s.status === 'Customer')!.id;
      const sourceId = newId();
      await fx.dataSource.query("INSERT INTO crm.lead_sources (id, account_id, text) VALUES ($1, $2, 'Web')", [sourceId, caller.account_id]);

      const ann = await insertContact(fx, caller, { first_name: 'Ann', last_name: 'Able', starred: true, lead_source_id: sourceId });
      const ben = await insertContact(fx, caller, { first_name: 'Ben', last_name: 'Baker', status_id: customer, owner_id: colleague.user_id });
      const corp = await insertContact(fx, caller, { last_name: '', company_name: '3M', status_id: customer });
      await insertContact(fx, caller, { last_name: 'Axe', owner_id: colleague.user_id, lead_source_id: sourceId });
      await insertContact(fx, caller, { last_name: 'Gone', deleted: true, status_id: customer });
      await insertContact(fx, other, { last_name: 'Elsewhere' });
      await tagContact(fx, caller, ann, 'VIP');
      await tagContact(fx, caller, ben, 'vip');
      await tagContact(fx, caller, corp, 'Partner');
      await insertNextAction(fx, caller, ann, caller.user_id);
      await insertNextAction(fx, caller, ann, colleague.user_id, 'waiting');
      await insertNextAction(fx, caller, ben, colleague.user_id);
      await insertNextAction(fx, caller, corp, caller.user_id, 'queued_with_date');
      await insertNextAction(fx, caller, corp, caller.user_id, 'done');
      await insertDeal(fx, caller, ben, 'pending');
      await insertDeal(fx, caller, corp, 'won');

      const blocks = await fx.dataSource.transaction((m) => summary.blocks(m, caller));

      const users = [colleague.user_id, caller.user_id]; // GET /users order: Colleague before Summ
      expect(blocks.contacts_count.all).toEqual([letters({ a: 2, b: 1, '1': 1 })]);
      expect(blocks.contacts_count.users).toEqual([
        { user_id: colleague.user_id, ...letters({ a: 1, b: 1 }) },
        { user_id: caller.user_id, ...letters({ a: 1, '1': 1 }) },
      ]);
      expect(blocks.statuses.map((s) => s.status.id)).toEqual(statuses.map((s) => s.id));
      const leadBlock = blocks.statuses[0].status;
      expect(leadBlock).toMatchObject({ id: lead, status: 'Lead', total_count: 2, action_stream_count: 1, counts: letters({ a: 2 }) });
      expect(leadBlock.team_counts).toEqual([
        { user_id: colleague.user_id, counts: letters({ a: 1 }) },
        { user_id: caller.user_id, counts: letters({ a: 1 }) },
      ]);
      const customerBlock = blocks.statuses.find((s) => s.status.id === customer)!.status;
      expect(customerBlock).toMatchObject({ total_count: 2, action_stream_count: 0, counts: letters({ b: 1, '1': 1 }) });
      expect(Object.keys(customerBlock).sort()).toEqual(['action_stream_count', 'color', 'counts', 'description', 'id', 'status', 'team_counts', 'text', 'total_count']);
      expect(blocks.statuses.find((s) => s.status.status === 'Trial')!.status).toMatchObject({ total_count: 0, counts: emptyLetterCounts(), team_counts: users.map((user_id) => ({ user_id, counts: emptyLetterCounts() })) });

      expect(blocks.lead_sources).toEqual([{ lead_source: { id: sourceId, text: 'Web', counts: letters({ a: 2 }), total_count: 2, action_stream_count: 1, team_counts: [{ user_id: colleague.user_id, counts: letters({ a: 1 }) }, { user_id: caller.user_id, counts: letters({ a: 1 }) }] } }]);

      expect(blocks.tags.tags).toEqual([
        { name: 'Partner', counts: letters({ '1': 1 }), total_count: 1, action_stream_count: 0 },
        { name: 'VIP', counts: letters({ a: 1, b: 1 }), total_count: 2, action_stream_count: 1 },
      ]);
      expect(blocks.tags.system_tags).toEqual([
        { name: 'starred', counts: letters({ a: 1 }), total_count: 1, action_stream_count: 1 },
        { name: 'pending_deal', counts: letters({ b: 1 }), total_count: 1, action_stream_count: 0 },
      ]);

      // Ann has next actions of both users, Ben of the colleague; queued and done ones do not count.
      expect(blocks.team_stream).toEqual({
        all: letters({ a: 1, b: 1 }),
        users: [
          { user_id: colleague.user_id, counts: letters({ a: 1, b: 1 }) },
          { user_id: caller.user_id, counts: letters({ a: 1 }) },
        ],
      });

      // Another caller of the same account sees the same counts but its own action stream.
      const theirs = await fx.dataSource.transaction((m) => summary.blocks(m, colleague));
      expect(theirs.statuses[0].status.action_stream_count).toBe(1);
      expect(theirs.statuses.find((s) => s.status.id === customer)!.status.action_stream_count).toBe(1);
      expect(theirs.tags.tags[1].action_stream_count).toBe(2);
    });

    it('answers zeros for an account without contacts', async () => {
      const blocks = await fx.dataSource.transaction((m) => new SummaryService().blocks(m, other));
      expect(blocks.contacts_count.all).toEqual([letters({ e: 1 })]);
      const empty = await newAccount(fx, 'Empty');
      const none = await fx.dataSource.transaction((m) => new SummaryService().blocks(m, empty));
      expect(none).toEqual({
        lead_sources: [],
        statuses: expect.any(Array),
        tags: { tags: [], system_tags: [expect.objectContaining({ name: 'starred', total_count: 0 }), expect.objectContaining({ name: 'pending_deal', total_count: 0 })] },
        contacts_count: { all: [emptyLetterCounts()], users: [{ user_id: empty.user_id, ...emptyLetterCounts() }] },
        team_stream: { all: emptyLetterCounts(), users: [{ user_id: empty.user_id, counts: emptyLetterCounts() }] },
      });
      expect(none.statuses).toHaveLength(5);
    });
  });
});
