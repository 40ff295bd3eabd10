import 'reflect-metadata';
import { newId } from '@crm/common';
import {
  ContactRelationshipIdRequest,
  CreateContactRelationshipRequest,
  CreateFilterRequest,
  CreateLeadSourceRequest,
  CreateRelationshipTypeRequest,
  CreateStatusRequest,
  ErrorName,
  LeadSourceIdRequest,
  ListContactRelationshipsRequest,
  ListTagsRequest,
  PatchFilterRequest,
  StatusIdRequest,
  TagNameRequest,
  UpdateFilterRequest,
  emptyLetterCounts,
  type Caller,
  type LetterCounts,
} from '@crm/contracts';
import { createTestDatabase } from '@crm/testing';
import { ContactRelationshipsRepository } from '../contact-relationships/contact-relationships.repository';
import { ContactRelationshipsService } from '../contact-relationships/contact-relationships.service';
import { many, sql } from '../common/sql';
import { savedFilterSql } from '../filters/filters.repository';
import { FiltersRepository } from '../filters/filters.repository';
import { FiltersService } from '../filters/filters.service';
import { LeadSourcesRepository } from '../lead-sources/lead-sources.repository';
import { LeadSourcesService } from '../lead-sources/lead-sources.service';
import { RelationshipTypesRepository } from '../relationship-types/relationship-types.repository';
import { RelationshipTypesService } from '../relationship-types/relationship-types.service';
import { StatusesRepository } from '../statuses/statuses.repository';
import { StatusesService } from '../statuses/statuses.service';
import { SummaryRepository } from './summary.repository';
import { SummaryService } from './summary.service';
import { TagsRepository } from '../tags/tags.repository';
import { TagsService } from '../tags/tags.service';
import { openMediumDatabase, type MediumDatabase } from '../accounts/accounts.medium-fixture';
import { withContracts } from '../common/with-contracts.spec-helpers';

const summaryService = new SummaryService(new SummaryRepository());

/**
 * The summary counts and the configuration lists they feed (statuses, lead sources, tags), saved
 * filters and relationships, over one shared fixture.
 *
 * Fixtures (real PostgreSQL): accounts provisioned the way the auth-server does (the accounts
 * medium fixture), and contacts, tags, actions and deals inserted with SQL (the contacts and
 * records modules have their own tests).
 */
type ConfigFixture = MediumDatabase;

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
  const [existing] = await fx.dataSource.query('SELECT id FROM crm.tags WHERE account_id = $1 AND lower(name) = lower($2)', [
    caller.account_id,
    name,
  ]);
  const tagId: string = existing?.id ?? newId();
  if (!existing)
    await fx.dataSource.query('INSERT INTO crm.tags (id, account_id, name) VALUES ($1, $2, $3)', [tagId, caller.account_id, name]);
  await fx.dataSource.query('INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [
    contactId,
    tagId,
    caller.account_id,
  ]);
  return tagId;
}

/** A next action (status date) for the assignee on the contact. */
async function insertNextAction(
  fx: ConfigFixture,
  caller: Caller,
  contactId: string,
  assigneeId: string,
  status: 'date' | 'waiting' | 'queued_with_date' | 'done' = 'date',
): Promise<string> {
  const id = newId();
  await fx.dataSource.query(
    'INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, done) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)',
    [id, caller.account_id, contactId, assigneeId, 'Call back', status, status === 'waiting' ? null : '2030-01-01', status === 'done'],
  );
  return id;
}

/** A deal of the given status whose primary contact is `contactId`. */
async function insertDeal(
  fx: ConfigFixture,
  caller: Caller,
  contactId: string,
  status: 'pending' | 'won' | 'lost' = 'pending',
): Promise<string> {
  const [pipeline] = await fx.dataSource.query("SELECT id FROM crm.pipelines WHERE account_id = $1 AND kind = 'pipeline' AND is_default", [
    caller.account_id,
  ]);
  const [sales] = await fx.dataSource.query("SELECT id FROM crm.pipelines WHERE account_id = $1 AND kind = 'sales' AND is_default", [
    caller.account_id,
  ]);
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
    fx = await openMediumDatabase(await createTestDatabase('crm_config'));
    acme = await fx.newAccount('Acme');
    bob = await fx.newUser(acme, 'Zulu');
    other = await fx.newAccount('Other');
  });

  afterAll(async () => {
    await fx?.close();
  });

  describe('summary blocks', () => {
    it('counts contacts per status, lead source, tag, owner, letter and action stream in one go', async () => {
      const summary = summaryService;
      const caller = await fx.newAccount('Summ');
      const colleague = await fx.newUser(caller, 'Colleague');
      const statuses: Array<{ id: string; status: string }> = await fx.dataSource.query(
        'SELECT id, status FROM crm.statuses WHERE account_id = $1 ORDER BY position',
        [caller.account_id],
      );
      const lead = statuses[0].id;
      const customer = statuses.find((s) => s.status === 'customer')!.id;
      const sourceId = newId();
      await fx.dataSource.query("INSERT INTO crm.lead_sources (id, account_id, text) VALUES ($1, $2, 'Web')", [
        sourceId,
        caller.account_id,
      ]);

      const ann = await insertContact(fx, caller, { first_name: 'Ann', last_name: 'Able', starred: true, lead_source_id: sourceId });
      const ben = await insertContact(fx, caller, {
        first_name: 'Ben',
        last_name: 'Baker',
        status_id: customer,
        owner_id: colleague.user_id,
      });
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
      // counts: the caller's own contacts; total_count: the account's (integers, as OnePageCRM has them).
      expect(leadBlock).toMatchObject({ id: lead, status: 'lead', text: 'Lead', total_count: 2, action_stream_count: 1, counts: 1 });
      expect(leadBlock.team_counts).toEqual([
        { user_id: colleague.user_id, counts: 1 },
        { user_id: caller.user_id, counts: 1 },
      ]);
      const customerBlock = blocks.statuses.find((s) => s.status.id === customer)!.status;
      expect(customerBlock).toMatchObject({ total_count: 2, action_stream_count: 0, counts: 1 });
      expect(Object.keys(customerBlock).sort()).toEqual([
        'action_stream_count',
        'color',
        'counts',
        'description',
        'id',
        'status',
        'team_counts',
        'text',
        'total_count',
      ]);
      expect(blocks.statuses.find((s) => s.status.text === 'Trial')!.status).toMatchObject({
        total_count: 0,
        counts: 0,
        team_counts: users.map((user_id) => ({ user_id, counts: 0 })),
      });

      expect(blocks.lead_sources).toEqual([
        {
          id: sourceId,
          text: 'Web',
          counts: 1,
          total_count: 2,
          action_stream_count: 1,
          team_counts: [
            { user_id: colleague.user_id, counts: 1 },
            { user_id: caller.user_id, counts: 1 },
          ],
        },
      ]);

      expect(blocks.tags.tags).toEqual([
        { name: 'Partner', counts: 1, total_count: 1, action_stream_count: 0 },
        { name: 'VIP', counts: 2, total_count: 2, action_stream_count: 1 },
      ]);
      expect(blocks.tags.system_tags).toEqual([
        { name: 'starred', counts: 1, total_count: 1, action_stream_count: 1 },
        { name: 'pending_deal', counts: 1, total_count: 1, action_stream_count: 0 },
      ]);

      // Ann has next actions of both users, Ben of the colleague; queued and done ones do not count.
      expect(blocks.team_stream).toEqual({
        all: 2,
        users: [
          { user_id: colleague.user_id, counts: 2 },
          { user_id: caller.user_id, counts: 1 },
        ],
      });

      // Another caller of the same account sees the same total counts but its own contacts and action stream.
      const theirs = await fx.dataSource.transaction((m) => summary.blocks(m, colleague));
      expect(theirs.statuses[0].status.action_stream_count).toBe(1);
      expect(theirs.statuses.find((s) => s.status.id === customer)!.status.action_stream_count).toBe(1);
      expect(theirs.tags.tags[1].action_stream_count).toBe(2);
    });

    it('answers zeros for an account without contacts', async () => {
      const blocks = await fx.dataSource.transaction((m) => summaryService.blocks(m, other));
      expect(blocks.contacts_count.all).toEqual([letters({ e: 1 })]);
      const empty = await fx.newAccount('Empty');
      const none = await fx.dataSource.transaction((m) => summaryService.blocks(m, empty));
      expect(none).toEqual({
        lead_sources: [],
        statuses: expect.any(Array),
        tags: {
          tags: [],
          system_tags: [
            expect.objectContaining({ name: 'starred', total_count: 0 }),
            expect.objectContaining({ name: 'pending_deal', total_count: 0 }),
          ],
        },
        contacts_count: { all: [emptyLetterCounts()], users: [{ user_id: empty.user_id, ...emptyLetterCounts() }] },
        team_stream: { all: 0, users: [{ user_id: empty.user_id, counts: 0 }] },
      });
      expect(none.statuses).toHaveLength(5);
    });
  });

  describe('statuses', () => {
    it('deletes a status: contacts (deleted ones too) and companies fall back to lead with the event, in one transaction', async () => {
      const statuses = withContracts(new StatusesService(fx.dataSource, new StatusesRepository(), summaryService), {
        create: CreateStatusRequest,
        get: StatusIdRequest,
        delete: StatusIdRequest,
      });
      const { status } = await statuses.create(acme, { text: 'Qualified', color: '#123456' });
      expect(status).toMatchObject({ status: 'custom2', text: 'Qualified', description: '', color: '#123456', total_count: 0 });
      const lead = await leadStatusId(fx, acme);
      const live = await insertContact(fx, acme, { last_name: 'Live', status_id: status.id });
      const gone = await insertContact(fx, acme, { last_name: 'Gone', status_id: status.id, deleted: true });
      const untouched = await insertContact(fx, acme, { last_name: 'Stay' });
      const companyId = newId();
      await fx.dataSource.query(
        'INSERT INTO crm.companies (id, account_id, name, syncing_status, synced_status_id) VALUES ($1, $2, $3, true, $4)',
        [companyId, acme.account_id, `Co ${companyId}`, status.id],
      );
      const before = (await statuses.get(acme, { status_id: status.id })).status;
      expect(before).toMatchObject({ total_count: 1, counts: 1 });

      await expect(statuses.delete(other, { status_id: status.id })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
      await expect(statuses.delete(bob, { status_id: status.id })).rejects.toMatchObject({ errorName: ErrorName.NoPermission });
      await expect(statuses.delete(acme, { status_id: lead })).rejects.toMatchObject({
        errorName: ErrorName.InvalidRequestData,
        errors: { status_id: expect.any(String) },
      });

      await expect(statuses.delete(acme, { status_id: status.id.toUpperCase() })).resolves.toEqual({});
      const rows: Array<{ id: string; status_id: string }> = await fx.dataSource.query(
        'SELECT id, status_id FROM crm.contacts WHERE id = ANY($1)',
        [[live, gone, untouched]],
      );
      expect(rows.every((r) => r.status_id === lead)).toBe(true);
      const [company] = await fx.dataSource.query('SELECT synced_status_id FROM crm.companies WHERE id = $1', [companyId]);
      expect(company.synced_status_id).toBe(lead);
      const events = await fx.dataSource.query(
        "SELECT type, reason, record_id, account_id, data FROM crm.outbox WHERE type = 'status' AND record_id = $1",
        [status.id],
      );
      expect(events).toEqual([
        {
          type: 'status',
          reason: 'deleted',
          record_id: status.id,
          account_id: acme.account_id,
          data: { status: { id: status.id }, lead_status_id: lead },
        },
      ]);
      await expect(statuses.get(acme, { status_id: status.id })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
    });

    it('keeps names unique regardless of case, even for concurrent creates', async () => {
      const statuses = withContracts(new StatusesService(fx.dataSource, new StatusesRepository(), summaryService), {
        create: CreateStatusRequest,
        get: StatusIdRequest,
        delete: StatusIdRequest,
      });
      await expect(statuses.create(acme, { text: 'LEAD' })).rejects.toMatchObject({
        errorName: ErrorName.DuplicatedEntity,
        errors: { text: expect.any(String) },
      });
      const results = await Promise.allSettled([statuses.create(acme, { text: 'Hot' }), statuses.create(acme, { text: 'hot' })]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect((results.find((r) => r.status === 'rejected') as PromiseRejectedResult).reason).toMatchObject({
        errorName: ErrorName.DuplicatedEntity,
      });
      // Another account may use the name.
      await expect(statuses.create(other, { text: 'Hot' })).resolves.toMatchObject({ status: { text: 'Hot' } });
    });
  });

  describe('lead sources and tags', () => {
    it('deleting a lead source leaves its contacts without one', async () => {
      const sources = withContracts(new LeadSourcesService(fx.dataSource, new LeadSourcesRepository(), summaryService), {
        create: CreateLeadSourceRequest,
        get: LeadSourceIdRequest,
        delete: LeadSourceIdRequest,
      });
      const lead_source = await sources.create(acme, { text: 'Referral' });
      const contact = await insertContact(fx, acme, { last_name: 'Referred', lead_source_id: lead_source.id });
      expect((await sources.get(acme, { lead_source_id: lead_source.id })).total_count).toBe(1);
      await expect(sources.create(acme, { text: 'referral' })).rejects.toMatchObject({ errorName: ErrorName.DuplicatedEntity });
      await expect(sources.delete(other, { lead_source_id: lead_source.id })).rejects.toMatchObject({
        errorName: ErrorName.ResourceNotFound,
      });
      await sources.delete(acme, { lead_source_id: lead_source.id });
      const [row] = await fx.dataSource.query('SELECT lead_source_id FROM crm.contacts WHERE id = $1', [contact]);
      expect(row.lead_source_id).toBeNull();
    });

    it('deleting a tag unlinks it from contacts and companies, in any letter case', async () => {
      const tags = withContracts(new TagsService(fx.dataSource, new TagsRepository(), summaryService), {
        list: ListTagsRequest,
        delete: TagNameRequest,
      });
      const contact = await insertContact(fx, acme, { last_name: 'Tagged' });
      await tagContact(fx, acme, contact, 'Trade show');
      const companyId = newId();
      await fx.dataSource.query(
        "INSERT INTO crm.companies (id, account_id, name, syncing_tags, synced_tags) VALUES ($1, $2, $3, true, ARRAY['Trade Show', 'Keep'])",
        [companyId, acme.account_id, `Co ${companyId}`],
      );
      const listed = await tags.list(acme, { per_page: 100 });
      expect(listed.tags.find((t) => t.name === 'Trade show')).toMatchObject({ total_count: 1 });
      await expect(tags.delete(bob, { tag_name: 'trade show' })).rejects.toMatchObject({ errorName: ErrorName.NoPermission });
      await expect(tags.delete(other, { tag_name: 'trade show' })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
      await tags.delete(acme, { tag_name: 'TRADE SHOW' });
      expect(await fx.dataSource.query('SELECT 1 FROM crm.contact_tags WHERE contact_id = $1', [contact])).toEqual([]);
      const [company] = await fx.dataSource.query('SELECT synced_tags FROM crm.companies WHERE id = $1', [companyId]);
      expect(company.synced_tags).toEqual(['Keep']);
      await expect(tags.delete(acme, { tag_name: 'Trade show' })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
    });
  });

  describe('saved filters', () => {
    it('selects exactly the contacts its conditions describe', async () => {
      const filters = withContracts(new FiltersService(fx.dataSource, new FiltersRepository()), {
        create: CreateFilterRequest,
        update: UpdateFilterRequest,
        patch: PatchFilterRequest,
      });
      const account = await fx.newAccount('Filters');
      const colleague = await fx.newUser(account, 'Mate');
      const [customer] = await fx.dataSource.query("SELECT id FROM crm.statuses WHERE account_id = $1 AND status = 'customer'", [
        account.account_id,
      ]);
      const sizeField = newId();
      const colorField = newId();
      await fx.dataSource.query(
        "INSERT INTO crm.fields (id, account_id, field_set, name, type, position) VALUES ($1, $2, 'custom_fields', 'Size', 'number', 1)",
        [sizeField, account.account_id],
      );
      await fx.dataSource.query(
        "INSERT INTO crm.fields (id, account_id, field_set, name, type, position, choices) VALUES ($1, $2, 'custom_fields', 'Colors', 'multiple_choice', 2, ARRAY['Red', 'Blue'])",
        [colorField, account.account_id],
      );

      const c = {
        ann: await insertContact(fx, account, {
          first_name: 'Ann',
          last_name: 'Smith',
          emails: [{ type: 'work', value: 'ann@acme.example' }],
          phones: [{ type: 'work', value: '+1 (555) 123-4567' }],
          custom_fields: { [sizeField]: 50, [colorField]: ['Red'] },
          starred: true,
        }),
        bob: await insertContact(fx, account, {
          first_name: 'Bob',
          last_name: 'Smithers',
          status_id: customer.id,
          owner_id: colleague.user_id,
          custom_fields: { [sizeField]: 5, [colorField]: ['Red', 'Blue'] },
          created_at: new Date('2026-01-10T12:00:00Z'),
        }),
        cy: await insertContact(fx, account, {
          first_name: 'Cy',
          last_name: 'Jones',
          company_name: '100% Pure_Co',
          created_at: new Date('2026-01-31T23:59:00Z'),
        }),
        gone: await insertContact(fx, account, { first_name: 'Del', last_name: 'Smith', deleted: true }),
      };
      await tagContact(fx, account, c.ann, 'VIP');
      await tagContact(fx, account, c.ann, 'Partner');
      await tagContact(fx, account, c.bob, 'vip');
      await insertNextAction(fx, account, c.bob, colleague.user_id);
      await insertDeal(fx, account, c.cy, 'pending');

      const matching = async (conditions: unknown[]): Promise<string[]> => {
        const { filter } = await filters.create(account, { name: `f-${newId()}`, conditions });
        const condition = await savedFilterSql(fx.dataSource.manager, account.account_id, filter.id);
        const rows = await many<{ id: string }>(
          fx.dataSource.manager,
          sql`SELECT c.id FROM crm.contacts c WHERE c.account_id = ${account.account_id} AND c.deleted_at IS NULL AND ${'x'}::text IS NOT NULL AND ${condition} ORDER BY c.sort_name`,
        );
        return rows.map((r) => r.id);
      };

      expect(await matching([])).toEqual([c.cy, c.ann, c.bob]);
      expect(await matching([{ field: 'last_name', operator: 'starts_with', value: 'smith' }])).toEqual([c.ann, c.bob]);
      expect(await matching([{ field: 'last_name', operator: 'equals', value: 'SMITH' }])).toEqual([c.ann]);
      expect(await matching([{ field: 'last_name', operator: 'not_contains', value: 'smith' }])).toEqual([c.cy]);
      expect(await matching([{ field: 'company_name', operator: 'contains', value: '100% pure_' }])).toEqual([c.cy]);
      expect(await matching([{ field: 'company_name', operator: 'contains', value: '1000' }])).toEqual([]);
      expect(await matching([{ field: 'email', operator: 'contains', value: 'ACME' }])).toEqual([c.ann]);
      expect(await matching([{ field: 'email', operator: 'is_empty' }])).toEqual([c.cy, c.bob]);
      expect(await matching([{ field: 'phone', operator: 'contains', value: '555-123' }])).toEqual([c.ann]);
      expect(await matching([{ field: 'status_id', operator: 'in', value: [customer.id] }])).toEqual([c.bob]);
      expect(await matching([{ field: 'owner_id', operator: 'not_in', value: [colleague.user_id] }])).toEqual([c.cy, c.ann]);
      expect(await matching([{ field: 'lead_source_id', operator: 'is_empty' }])).toEqual([c.cy, c.ann, c.bob]);
      expect(await matching([{ field: 'tag', operator: 'has_any', value: ['vip'] }])).toEqual([c.ann, c.bob]);
      expect(await matching([{ field: 'tag', operator: 'has_all', value: ['VIP', 'partner'] }])).toEqual([c.ann]);
      expect(await matching([{ field: 'tag', operator: 'has_none', value: ['VIP'] }])).toEqual([c.cy]);
      expect(await matching([{ field: 'starred', operator: 'is', value: true }])).toEqual([c.ann]);
      expect(await matching([{ field: 'pending_deal', operator: 'is', value: true }])).toEqual([c.cy]);
      expect(await matching([{ field: 'has_next_action', operator: 'is', value: true }])).toEqual([c.bob]);
      expect(
        await matching([
          { field: 'created_at', operator: 'since', value: '2026-01-10' },
          { field: 'created_at', operator: 'until', value: '2026-01-31' },
        ]),
      ).toEqual([c.cy, c.bob]);
      expect(await matching([{ field: 'created_at', operator: 'until', value: Date.parse('2026-01-10T12:00:00Z') / 1000 }])).toEqual([
        c.bob,
      ]);
      expect(await matching([{ field: 'custom_field', custom_field_id: sizeField, operator: 'greater_than', value: 10 }])).toEqual([c.ann]);
      expect(await matching([{ field: 'custom_field', custom_field_id: sizeField, operator: 'is_empty' }])).toEqual([c.cy]);
      expect(await matching([{ field: 'custom_field', custom_field_id: colorField, operator: 'has_all', value: ['Blue', 'Red'] }])).toEqual(
        [c.bob],
      );
      expect(await matching([{ field: 'custom_field', custom_field_id: colorField, operator: 'has_none', value: ['Blue'] }])).toEqual([
        c.cy,
        c.ann,
      ]);
      // Conditions combine with AND.
      expect(
        await matching([
          { field: 'tag', operator: 'has_any', value: ['VIP'] },
          { field: 'status_id', operator: 'not_in', value: [customer.id] },
        ]),
      ).toEqual([c.ann]);

      // A deleted custom field: nobody has a value for it.
      const onSize = (
        await filters.create(account, {
          name: 'Big ones',
          conditions: [{ field: 'custom_field', custom_field_id: sizeField, operator: 'greater_than', value: 1 }],
        })
      ).filter;
      await fx.dataSource.query('DELETE FROM crm.fields WHERE id = $1', [sizeField]);
      const after = await savedFilterSql(fx.dataSource.manager, account.account_id, onSize.id);
      expect(after.compile().text).toBe('(FALSE)');
    });

    it('refuses unknown ids, other accounts and bad shapes; keeps names unique', async () => {
      const filters = withContracts(new FiltersService(fx.dataSource, new FiltersRepository()), {
        create: CreateFilterRequest,
        update: UpdateFilterRequest,
        patch: PatchFilterRequest,
      });
      const otherStatus = await leadStatusId(fx, other);
      await expect(
        filters.create(acme, { name: 'X', conditions: [{ field: 'status_id', operator: 'in', value: [otherStatus] }] }),
      ).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound, errors: { 'conditions.0.value': expect.any(String) } });
      await expect(
        filters.create(acme, { name: 'X', conditions: [{ field: 'owner_id', operator: 'in', value: [other.user_id] }] }),
      ).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
      await expect(filters.create(acme, { name: 'X', conditions: [{ field: 'nope' }] })).rejects.toMatchObject({
        errorName: ErrorName.InvalidRequestData,
        errors: { 'conditions.0.field': expect.any(String) },
      });
      await expect(filters.create(acme, { name: 'X', conditions: 'x' })).rejects.toMatchObject({
        errorName: ErrorName.InvalidRequestData,
        errors: { conditions: expect.any(String) },
      });
      await expect(filters.create(bob, { name: 'X' })).rejects.toMatchObject({ errorName: ErrorName.NoPermission });
      const { filter } = await filters.create(acme, {
        name: 'Mine',
        conditions: [{ field: 'owner_id', operator: 'in', value: [bob.user_id] }],
      });
      await expect(filters.create(acme, { name: 'MINE' })).rejects.toMatchObject({ errorName: ErrorName.DuplicatedEntity });
      await expect(savedFilterSql(fx.dataSource.manager, other.account_id, filter.id)).rejects.toMatchObject({
        errorName: ErrorName.ResourceNotFound,
      });
      await expect(savedFilterSql(fx.dataSource.manager, acme.account_id, 'not-an-id')).rejects.toMatchObject({
        errorName: ErrorName.ResourceNotFound,
      });
      const patched = await filters.patch(acme, { filter_id: filter.id, name: 'Bob' });
      expect(patched.filter).toMatchObject({ name: 'Bob', conditions: filter.conditions });
      const replaced = await filters.update(acme, { filter_id: filter.id, name: 'Bob' });
      expect(replaced.filter.conditions).toEqual([]);
    });
  });

  describe('relationships between contacts', () => {
    it('shows one label for both ends of a symmetrical type and one per end of a directional type', async () => {
      const types = withContracts(new RelationshipTypesService(fx.dataSource, new RelationshipTypesRepository()), {
        create: CreateRelationshipTypeRequest,
      });
      const relationships = withContracts(new ContactRelationshipsService(fx.dataSource, new ContactRelationshipsRepository()), {
        create: CreateContactRelationshipRequest,
        list: ListContactRelationshipsRequest,
        delete: ContactRelationshipIdRequest,
      });
      const { relationship_type: boss } = await types.create(acme, { variants: [{ name: 'Boss' }, { name: 'Employee' }] });
      const { relationship_type: friend } = await types.create(acme, { variants: [{ name: 'Buddy' }] });
      const [bossV, employeeV] = boss.relationship_variants;
      const anna = await insertContact(fx, acme, { last_name: 'Anna' });
      const bert = await insertContact(fx, acme, { last_name: 'Bert' });
      const foreign = await insertContact(fx, other, { last_name: 'Foreign' });

      // Bert is Anna's boss.
      const made = await relationships.create(bob, {
        contact_id: anna,
        related_contact_id: bert,
        relationship_type_id: boss.id,
        variant_id: bossV.id,
      });
      expect(made.relationship).toMatchObject({
        contact_id: anna,
        related_contact_id: bert,
        variant_id: bossV.id,
        label: 'Boss',
        reverse_label: 'Employee',
        symmetrical: false,
      });
      const fromBert = await relationships.list(acme, { contact_id: bert });
      expect(fromBert.relationships).toEqual([
        {
          relationship: expect.objectContaining({
            id: made.relationship.id,
            contact_id: bert,
            related_contact_id: anna,
            variant_id: employeeV.id,
            label: 'Employee',
            reverse_label: 'Boss',
          }),
        },
      ]);

      const buddies = await relationships.create(acme, { contact_id: bert, related_contact_id: anna, relationship_type_id: friend.id });
      expect(buddies.relationship).toMatchObject({ label: 'Buddy', reverse_label: 'Buddy', symmetrical: true });
      expect((await relationships.list(acme, { contact_id: anna })).relationships.map((r) => r.relationship.label)).toEqual([
        'Boss',
        'Buddy',
      ]);

      await expect(
        relationships.create(acme, { contact_id: bert, related_contact_id: anna, relationship_type_id: boss.id, variant_id: bossV.id }),
      ).rejects.toMatchObject({ errorName: ErrorName.DuplicatedEntity });
      await expect(
        relationships.create(acme, { contact_id: anna, related_contact_id: anna, relationship_type_id: friend.id }),
      ).rejects.toMatchObject({ errorName: ErrorName.InvalidRequestData });
      await expect(
        relationships.create(acme, { contact_id: anna, related_contact_id: bert, relationship_type_id: boss.id }),
      ).rejects.toMatchObject({ errorName: ErrorName.InvalidRequestData, errors: { variant_id: expect.any(String) } });
      await expect(
        relationships.create(acme, { contact_id: anna, related_contact_id: foreign, relationship_type_id: friend.id }),
      ).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound, errors: { related_contact_id: expect.any(String) } });
      await expect(relationships.list(other, { contact_id: anna })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
      await expect(relationships.delete(other, { contact_id: anna, relationship_id: made.relationship.id })).rejects.toMatchObject({
        errorName: ErrorName.ResourceNotFound,
      });

      // Deleted from the other end.
      await relationships.delete(acme, { contact_id: bert, relationship_id: made.relationship.id });
      expect((await relationships.list(acme, { contact_id: anna })).relationships.map((r) => r.relationship.label)).toEqual(['Buddy']);
      // A soft-deleted contact's relationships are hidden from the other end.
      await fx.dataSource.query('UPDATE crm.contacts SET deleted_at = now() WHERE id = $1', [bert]);
      expect((await relationships.list(acme, { contact_id: anna })).total_count).toBe(0);
    });
  });
});
