import 'reflect-metadata';
import { newId } from '@crm/common';
import {
  ActionIdRequest,
  CreateActionRequest,
  CreateDealRequest,
  CreateNoteRequest,
  DealIdRequest,
  GetDealRequest,
  ErrorName,
  ExternalActionRequest,
  ListDealsRequest,
  NoteIdRequest,
  parseContract,
  PatchDealRequest,
  UpdateActionRequest,
  UpdateDealRequest,
  type ActionDto,
  type Caller,
  type ProvisionAccountMessage,
} from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createTestDatabase, type TestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { ActionsRepository } from '../actions/actions.repository';
import { ActionsService } from '../actions/actions.service';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { DealsRepository } from '../deals/deals.repository';
import { DealsService } from '../deals/deals.service';
import { NotesRepository } from '../notes/notes.repository';
import { NotesService } from '../notes/notes.service';
import { NotificationsRepository } from '../notifications/notifications.repository';
import { NotificationsService } from '../notifications/notifications.service';
import { contactActionsOf, dealsOfContacts, notesOfContacts, pendingDealsOfCompanies } from '../read-models';
import { todayUtc } from './record-common';

/** When this file began: a date the services set to "today" is that day's, or the current one past midnight. */
const startedOn = todayUtc();
const aToday = () => expect.stringMatching(new RegExp(`^(${startedOn}|${todayUtc()})$`));

/** The services as the handlers call them: each payload parsed into its route's request class first (as @ValidRequest does). */
function typedDeals(service: DealsService) {
  return {
    list: async (caller: Caller, payload: object) => service.list(caller, parseContract(ListDealsRequest, payload)),
    get: async (caller: Caller, payload: object) => service.get(caller, parseContract(GetDealRequest, payload)),
    create: async (caller: Caller, payload: object) => service.create(caller, parseContract(CreateDealRequest, payload)),
    update: async (caller: Caller, payload: object, mode: 'put' | 'patch') =>
      service.update(caller, mode === 'put' ? parseContract(UpdateDealRequest, payload) : parseContract(PatchDealRequest, payload), mode),
    delete: async (caller: Caller, payload: object) => service.delete(caller, parseContract(DealIdRequest, payload)),
  };
}

function typedNotes(service: NotesService) {
  return {
    get: async (caller: Caller, payload: object) => service.get(caller, parseContract(NoteIdRequest, payload)),
    create: async (caller: Caller, payload: object) => service.create(caller, parseContract(CreateNoteRequest, payload)),
  };
}

function typedActions(service: ActionsService) {
  const byId = (payload: object) => parseContract(ActionIdRequest, payload);
  return {
    create: async (caller: Caller, payload: object) => service.create(caller, parseContract(CreateActionRequest, payload)),
    update: async (caller: Caller, payload: object) => service.update(caller, parseContract(UpdateActionRequest, payload)),
    delete: async (caller: Caller, payload: object) => service.delete(caller, byId(payload)),
    markAsDone: async (caller: Caller, payload: object) => service.markAsDone(caller, byId(payload)),
    undoCompletion: async (caller: Caller, payload: object) => service.undoCompletion(caller, byId(payload)),
    swap: async (caller: Caller, payload: object) => service.swap(caller, byId(payload)),
    unlink: async (caller: Caller, payload: object) => service.unlink(caller, byId(payload)),
    upsertExternal: async (caller: Caller, payload: object) =>
      service.upsertExternal(caller, parseContract(ExternalActionRequest, payload)),
  };
}

function provisionMessage(name: string): ProvisionAccountMessage {
  return {
    account: { id: newId(), name, region: 'us' },
    admin: {
      id: newId(),
      first_name: 'Ada',
      last_name: name,
      email: `${name.toLowerCase()}-${newId()}@example.test`,
      role: 'admin',
      account_rights: [],
      permissions: ['delete_contacts'],
    },
  };
}

/** Deals, notes and actions against a real PostgreSQL: state rules, events and concurrent writes. */
describe('records (real PostgreSQL)', () => {
  let db: TestDatabase;
  let ds: DataSource;
  let deals: ReturnType<typeof typedDeals>;
  let notes: ReturnType<typeof typedNotes>;
  let actions: ReturnType<typeof typedActions>;
  let acme: Caller;
  let member: Caller;
  let other: Caller;

  beforeAll(async () => {
    db = await createTestDatabase('crm_records');
    const config = Object.assign(new CrmCoreConfig(), {
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: 30,
    });
    ds = crmDataSource(config);
    await runMigrations(ds);
    const accounts = new AccountsService(ds, new AccountsRepository(), config);
    const [a, b] = [provisionMessage('Acme'), provisionMessage('Other')];
    await accounts.provision(a);
    await accounts.provision(b);
    acme = {
      account_id: a.account.id,
      user_id: a.admin.id,
      role: 'admin',
      auth_method: 'api_key',
      scopes: ['crm'],
    };
    other = {
      account_id: b.account.id,
      user_id: b.admin.id,
      role: 'admin',
      auth_method: 'api_key',
      scopes: ['crm'],
    };
    const memberId = newId();
    await ds.query(
      "INSERT INTO crm.users (id, account_id, first_name, last_name, email, role, bcc_email) VALUES ($1, $2, 'Uma', 'User', $3, 'user', $3)",
      [memberId, acme.account_id, `${memberId}@example.test`],
    );
    member = { ...acme, user_id: memberId, role: 'user' };
    deals = typedDeals(new DealsService(ds, new DealsRepository()));
    notes = typedNotes(new NotesService(ds, new NotesRepository(), new NotificationsService(ds, new NotificationsRepository())));
    actions = typedActions(new ActionsService(ds, new ActionsRepository()));
  });

  afterAll(async () => {
    if (ds?.isInitialized) await ds.destroy();
    await db?.drop();
  });

  async function contact(caller: Caller, last = 'Lee', companyId: string | null = null): Promise<string> {
    const [lead] = await ds.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [caller.account_id]);
    const id = newId();
    await ds.query(
      "INSERT INTO crm.contacts (id, account_id, owner_id, first_name, last_name, status_id, sort_name, letter, company_id, company_name) VALUES ($1, $2, $3, 'Ann', $4::varchar, $5, lower($4::varchar), 'l', $6, $7)",
      [id, caller.account_id, caller.user_id, last, lead.id, companyId, companyId ? 'Globex' : ''],
    );
    return id;
  }

  const events = (
    recordId: string,
  ): Promise<
    Array<{
      type: string;
      reason: string;
      data: Record<string, Record<string, unknown>>;
      contact_status_id: string;
    }>
  > => ds.query('SELECT type, reason, data, contact_status_id FROM crm.outbox WHERE record_id = $1 ORDER BY seq', [recordId]);

  const openActions = (
    contactId: string,
  ): Promise<
    Array<{
      id: string;
      assignee_id: string;
      status: string;
      position: number;
      date: string | null;
    }>
  > =>
    ds.query(
      "SELECT id, assignee_id, status, position, date FROM crm.actions WHERE contact_id = $1 AND status <> 'done' ORDER BY assignee_id, position, id",
      [contactId],
    );

  describe('deals', () => {
    it('creates with the defaults and writes the created event', async () => {
      const contactId = await contact(acme);
      const { deal } = await deals.create(acme, {
        contact_id: contactId,
        name: `  ${'N'.repeat(70)}  `,
        amount: 100,
        months: 3,
        cost: 10,
      });
      const today = aToday();
      expect(deal).toMatchObject({
        status: 'pending',
        stage: 10,
        date: today,
        expected_close_date: today,
        close_date: today,
        owner_id: acme.user_id,
        contact_id: contactId,
        total_amount: 300,
        total_cost: 30,
        margin: 270,
        linked_contacts: [],
        has_deal_items: false,
        has_related_notes: false,
      });
      expect(deal.name).toBe('N'.repeat(60));
      // The response (built without reading the deal back) is what a read shows.
      expect((await deals.get(acme, { deal_id: deal.id })).deal).toEqual(deal);
      expect(deal).not.toHaveProperty('last_stage');
      expect(deal).not.toHaveProperty('previous_pipeline_stages');
      expect(deal.owner).toEqual({
        id: acme.user_id,
        name: 'Ada Acme',
        email: expect.stringContaining('@example.test'),
      });
      expect(deal.contact_info).toEqual({
        contact_name: 'Ann Lee',
        company: '',
      });
      const [pipeline] = await ds.query("SELECT id FROM crm.pipelines WHERE account_id = $1 AND kind = 'pipeline' AND is_default", [
        acme.account_id,
      ]);
      expect(deal.pipeline_id).toBe(pipeline.id);
      const [event] = await events(deal.id);
      expect(event).toMatchObject({
        type: 'deal',
        reason: 'created',
        data: { deal: { id: deal.id, stage: 10, expected_close_date: today } },
      });
      const [status] = await ds.query('SELECT status_id FROM crm.contacts WHERE id = $1', [contactId]);
      expect(event.contact_status_id).toBe(status.status_id);
    });

    it('moves pending -> won -> lost -> pending with last_stage, close_date and changed_to_ events', async () => {
      const contactId = await contact(acme);
      const { deal } = await deals.create(acme, {
        contact_id: contactId,
        name: 'Move',
        stage: 40,
        close_date: '2020-01-01',
      });
      const won = (await deals.update(acme, { deal_id: deal.id, status: 'won' }, 'patch')).deal;
      expect(won).toMatchObject({
        status: 'won',
        stage: 0,
        last_stage: 40,
        close_date: aToday(),
      });
      const lost = (
        await deals.update(
          acme,
          {
            deal_id: deal.id,
            status: 'lost',
            stage: 77,
            close_date: '2021-05-05',
          },
          'patch',
        )
      ).deal;
      expect(lost).toMatchObject({
        status: 'lost',
        stage: 0,
        last_stage: 40,
        close_date: '2021-05-05',
      });
      const reopened = (await deals.update(acme, { deal_id: deal.id, status: 'pending' }, 'patch')).deal;
      expect(reopened).toMatchObject({ status: 'pending', stage: 40 });
      expect(reopened).not.toHaveProperty('last_stage');
      const renamed = (await deals.update(acme, { deal_id: deal.id, name: 'Renamed' }, 'patch')).deal;
      expect(renamed).toMatchObject({
        name: 'Renamed',
        status: 'pending',
        stage: 40,
      });
      expect((await events(deal.id)).map((e) => e.reason)).toEqual([
        'created',
        'changed_to_won',
        'changed_to_lost',
        'changed_to_pending',
        'updated',
      ]);
      const [wonEvent] = (await events(deal.id)).filter((e) => e.reason === 'changed_to_won');
      expect(wonEvent.data.deal).toMatchObject({
        last_stage: 40,
        close_date: aToday(),
        status: 'won',
      });
    });

    it('refuses bad input with errors keyed by field, and other accounts with 404', async () => {
      const contactId = await contact(acme);
      const bad: Array<[Record<string, unknown>, string]> = [
        [{ stage: 0 }, 'stage'],
        [{ stage: 100 }, 'stage'],
        [{ status: 'open' }, 'status'],
        [{ date: '2024-02-30' }, 'date'],
        [{ expected_close_date: '01/02/2024' }, 'expected_close_date'],
        [{ months: 0 }, 'months'],
        [{ deal_items: [{ name: 'x', qty: -1 }] }, 'deal_items.0.qty'],
        [{ name: undefined }, 'name'],
      ];
      for (const [body, key] of bad) {
        const error = await deals.create(acme, { contact_id: contactId, name: 'x', ...body }).catch((e) => e);
        expect(error).toMatchObject({
          errorName: ErrorName.InvalidRequestData,
        });
        expect(Object.keys(error.errors)).toContain(key);
      }
      await expect(deals.create(other, { contact_id: contactId, name: 'x' })).rejects.toMatchObject({
        errorName: ErrorName.ResourceNotFound,
      });
      const { deal } = await deals.create(acme, {
        contact_id: contactId,
        name: 'Mine',
      });
      await expect(deals.get(other, { deal_id: deal.id })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
      await expect(deals.update(other, { deal_id: deal.id, name: 'x' }, 'put')).rejects.toMatchObject({
        errorName: ErrorName.ResourceNotFound,
      });
      await expect(deals.delete(other, { deal_id: deal.id })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
      await expect(deals.update(acme, { deal_id: deal.id, stage: 100 }, 'patch')).rejects.toMatchObject({
        errorName: ErrorName.InvalidRequestData,
        errors: { stage: expect.any(String) },
      });
    });

    it('derives amounts from deal items, links contacts and lists them for contacts and companies', async () => {
      const [company] = await ds.query("INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, 'Globex') RETURNING id", [
        newId(),
        acme.account_id,
      ]);
      const primary = await contact(acme, 'Primary', company.id);
      const linked = await contact(acme, 'Linked');
      const { deal } = await deals.create(acme, {
        contact_id: primary,
        name: 'Items',
        months: 2,
        linked_contact_ids: [linked, primary],
        commission_type: 'percentage',
        commission_base: 'margin',
        commission_percentage: 10,
        deal_items: [
          { name: 'A', price: 10, cost: 4, qty: 3 },
          { name: 'B', price: 5.5, qty: 2 },
        ],
      });
      expect(deal).toMatchObject({
        amount: 41,
        cost: 12,
        total_amount: 82,
        total_cost: 24,
        margin: 58,
        commission: 5.8,
        has_deal_items: true,
      });
      expect(deal.deal_items.map((i) => [i.name, i.amount, i.position])).toEqual([
        ['A', 30, 0],
        ['B', 11, 1],
      ]);
      expect(deal.linked_contacts).toEqual([{ id: linked, contact_name: 'Ann Linked', company: '', photo_url: '' }]);
      const kept = deal.deal_items[1];
      const patched = (
        await deals.update(
          acme,
          {
            deal_id: deal.id,
            deal_items: [{ id: kept.id, name: 'B2', price: 1, qty: 1 }],
          },
          'patch',
        )
      ).deal;
      expect(patched.deal_items).toEqual([expect.objectContaining({ id: kept.id, name: 'B2', amount: 1 })]);
      expect(patched.amount).toBe(1);
      expect((await dealsOfContacts(ds.manager, acme.account_id, [primary, linked])).get(primary)?.map((e) => e.deal.id)).toEqual([
        deal.id,
      ]);
      expect((await pendingDealsOfCompanies(ds.manager, acme.account_id, [company.id])).get(company.id)?.map((e) => e.deal.id)).toEqual([
        deal.id,
      ]);
      await deals.update(acme, { deal_id: deal.id, status: 'won' }, 'patch');
      expect((await pendingDealsOfCompanies(ds.manager, acme.account_id, [company.id])).get(company.id)).toBeUndefined();
    });

    it('lets only admins change deal fields', async () => {
      const [field] = await ds.query(
        "INSERT INTO crm.fields (id, account_id, field_set, name, type, position) VALUES ($1, $2, 'deal_fields', 'Region', 'text', 1) RETURNING id",
        [newId(), acme.account_id],
      );
      const contactId = await contact(acme);
      const { deal } = await deals.create(acme, {
        contact_id: contactId,
        name: 'F',
        deal_fields: [{ deal_field: { id: field.id }, value: 'EMEA' }],
      });
      expect(deal.deal_fields).toEqual([
        {
          deal_field: {
            id: field.id,
            name: 'Region',
            type: 'text',
            position: 1,
          },
          value: 'EMEA',
        },
      ]);
      await expect(
        deals.update(
          member,
          {
            deal_id: deal.id,
            deal_fields: [{ deal_field: { id: field.id }, value: 'APAC' }],
          },
          'patch',
        ),
      ).rejects.toMatchObject({ errorName: ErrorName.NoPermission });
      // Sending the current values back is fine; a PUT without deal_fields keeps them for a member.
      await expect(
        deals.update(
          member,
          {
            deal_id: deal.id,
            deal_fields: [{ deal_field: { id: field.id }, value: 'EMEA' }],
          },
          'patch',
        ),
      ).resolves.toBeDefined();
      expect((await deals.update(member, { deal_id: deal.id, name: 'F2' }, 'put')).deal.deal_fields).toHaveLength(1);
      await expect(
        deals.create(member, {
          contact_id: contactId,
          name: 'G',
          deal_fields: [{ deal_field: { id: field.id }, value: 'x' }],
        }),
      ).rejects.toMatchObject({ errorName: ErrorName.NoPermission });
      await expect(
        deals.create(acme, {
          contact_id: contactId,
          name: 'G',
          deal_fields: [{ deal_field: { id: field.id }, value: 3 }],
        }),
      ).rejects.toMatchObject({
        errorName: ErrorName.InvalidRequestData,
        errors: { 'deal_fields.0.value': expect.any(String) },
      });
    });

    it('remembers the stage of the pipeline a deal leaves (include_history) and restores it on return', async () => {
      const [enterprise] = await ds.query(
        "INSERT INTO crm.pipelines (id, account_id, name, kind, stages) VALUES ($1, $2, 'Enterprise', 'pipeline', '[]') RETURNING id",
        [newId(), acme.account_id],
      );
      const [sales] = await ds.query(
        "INSERT INTO crm.pipelines (id, account_id, name, kind) VALUES ($1, $2, 'Other sales', 'sales') RETURNING id",
        [newId(), acme.account_id],
      );
      const contactId = await contact(acme);
      const { deal } = await deals.create(acme, {
        contact_id: contactId,
        name: 'Mover',
        stage: 45,
      });
      const moved = (await deals.update(acme, { deal_id: deal.id, pipeline_id: enterprise.id, stage: 20 }, 'patch')).deal;
      expect(moved).toMatchObject({ pipeline_id: enterprise.id, stage: 20 });
      const listed = await deals.list(acme, {
        contact_id: contactId,
        include_history: 'true',
      });
      expect(listed.deals[0].deal.previous_pipeline_stages).toEqual({
        [deal.pipeline_id]: 45,
      });
      const back = (await deals.update(acme, { deal_id: deal.id, pipeline_id: deal.pipeline_id }, 'patch')).deal;
      expect(back).toMatchObject({ pipeline_id: deal.pipeline_id, stage: 45 });
      expect(
        (
          await deals.list(acme, {
            contact_id: contactId,
            include_history: true,
          })
        ).deals[0].deal.previous_pipeline_stages,
      ).toEqual({ [deal.pipeline_id]: 45, [enterprise.id]: 20 });
      // GET /deals/{id}?include_history=true answers the same history; without it, none.
      expect((await deals.get(acme, { deal_id: deal.id, include_history: 'true' })).deal.previous_pipeline_stages).toEqual({
        [deal.pipeline_id]: 45,
        [enterprise.id]: 20,
      });
      expect((await deals.get(acme, { deal_id: deal.id })).deal).not.toHaveProperty('previous_pipeline_stages');
      // A sales pipeline is not a deal pipeline (and the reverse), and another account's is unknown.
      await expect(deals.update(acme, { deal_id: deal.id, pipeline_id: sales.id }, 'patch')).rejects.toMatchObject({
        errorName: ErrorName.ResourceNotFound,
      });
      await expect(deals.update(acme, { deal_id: deal.id, sales_pipeline_id: sales.id }, 'patch')).resolves.toMatchObject({
        deal: { sales_pipeline_id: sales.id },
      });
      await expect(
        deals.create(other, {
          contact_id: await contact(other),
          name: 'x',
          pipeline_id: enterprise.id,
        }),
      ).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
    });

    it('keeps the deal consistent under concurrent status changes', async () => {
      const contactId = await contact(acme);
      const { deal } = await deals.create(acme, {
        contact_id: contactId,
        name: 'Race',
        stage: 30,
        amount: 50,
      });
      const statuses = [
        'won',
        'lost',
        'pending',
        'won',
        'pending',
        'lost',
        'won',
        'pending',
        'lost',
        'pending',
        'won',
        'lost',
        'pending',
        'won',
        'pending',
        'lost',
      ];
      await Promise.all(statuses.map((status, i) => deals.update(acme, { deal_id: deal.id, status, amount: 50 + i }, 'patch')));
      const log = await events(deal.id);
      // Every event saw the state the previous one left: a changed_to_ event names a real change, in order.
      let previous = 'pending';
      for (const event of log.slice(1)) {
        const status = event.data.deal.status as string;
        if (event.reason === 'updated') expect(status).toBe(previous);
        else expect([event.reason, status !== previous]).toEqual([`changed_to_${status}`, true]);
        if (status === 'pending') expect(event.data.deal.stage).toBe(30);
        else expect(event.data.deal.last_stage).toBe(30);
        previous = status;
      }
      expect(log).toHaveLength(statuses.length + 1);
      const [row] = await ds.query('SELECT status, stage, last_stage FROM crm.deals WHERE id = $1', [deal.id]);
      expect(row.status).toBe(previous);
      expect(row.status === 'pending' ? row.stage : row.last_stage).toBe(30);
      // The contact's aggregates follow the one row.
      const [agg] = await ds.query(
        "SELECT count(*) FILTER (WHERE status = 'pending')::int AS pending, count(*)::int AS total FROM crm.deals WHERE contact_id = $1",
        [contactId],
      );
      expect(agg).toEqual({
        pending: previous === 'pending' ? 1 : 0,
        total: 1,
      });
    });
  });

  describe('notes', () => {
    it('logs a note: linked_deal_id "" when none, last activity, notifications, related notes', async () => {
      const contactId = await contact(acme);
      const { note } = await notes.create(acme, {
        contact_id: contactId,
        text: '[b]bold[/b] and [i]it[/i]',
        user_ids_to_notify: [member.user_id, acme.user_id],
      });
      expect(note).toMatchObject({
        text: '[b]bold[/b] and [i]it[/i]',
        linked_deal_id: '',
        linked_deal_name: '',
        date: aToday(),
        author: 'Ada Acme',
      });
      expect((await notes.get(acme, { note_id: note.id })).note).toEqual(note);
      const [c] = await ds.query('SELECT last_activity_at FROM crm.contacts WHERE id = $1', [contactId]);
      expect(c.last_activity_at).not.toBeNull();
      expect(await ds.query('SELECT user_id FROM crm.notifications WHERE record_id = $1', [note.id])).toEqual([
        { user_id: member.user_id },
      ]);
      expect((await events(note.id))[0].data.note.linked_deal_id).toBe('');
      const { deal } = await deals.create(acme, {
        contact_id: contactId,
        name: 'Linked',
      });
      const linked = (
        await notes.create(acme, {
          contact_id: contactId,
          text: 'about it',
          linked_deal_id: deal.id,
        })
      ).note;
      expect(linked).toMatchObject({
        linked_deal_id: deal.id,
        linked_deal_name: 'Linked',
      });
      expect((await notes.get(acme, { note_id: linked.id })).note).toEqual(linked);
      expect((await deals.get(acme, { deal_id: deal.id })).deal.has_related_notes).toBe(true);
      expect((await notesOfContacts(ds.manager, acme.account_id, [contactId])).get(contactId)).toHaveLength(2);
      const elsewhere = await contact(acme);
      await expect(
        notes.create(acme, {
          contact_id: elsewhere,
          text: 'x',
          linked_deal_id: deal.id,
        }),
      ).rejects.toMatchObject({ errorName: ErrorName.InvalidRequestData });
      await expect(
        notes.create(acme, {
          contact_id: contactId,
          text: 'x',
          user_ids_to_notify: [other.user_id],
        }),
      ).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
      await deals.delete(acme, { deal_id: deal.id });
      expect((await notes.get(acme, { note_id: linked.id })).note.linked_deal_id).toBe('');
    });
  });

  describe('actions', () => {
    const mine = (contactId: string, extra: Record<string, unknown>) =>
      actions.create(acme, { contact_id: contactId, text: 'Call', ...extra });

    it('keeps one next action per assignee: a new one queues the former at the front', async () => {
      const contactId = await contact(acme);
      const first = (await mine(contactId, { date: '2030-01-10' })).action;
      expect(first).toMatchObject({
        status: 'date',
        position: 0,
        assignee_id: acme.user_id,
      });
      const queued = (
        await mine(contactId, {
          status: 'queued_with_date',
          date: '2030-02-01',
        })
      ).action;
      expect(queued.position).toBe(1);
      const second = (await mine(contactId, { status: 'waiting' })).action;
      expect(second).toMatchObject({ status: 'waiting', date: '' });
      expect(await openActions(contactId)).toEqual([
        expect.objectContaining({
          id: second.id,
          status: 'waiting',
          position: 0,
        }),
        expect.objectContaining({
          id: first.id,
          status: 'queued_with_date',
          position: 1,
          date: '2030-01-10',
        }),
        expect.objectContaining({ id: queued.id, position: 2 }),
      ]);
      expect((await events(first.id)).map((e) => e.reason)).toEqual(['created', 'updated']);
      // Another assignee has a next action of their own.
      expect(
        (
          await actions.create(acme, {
            contact_id: contactId,
            text: 'Theirs',
            assignee_id: member.user_id,
            date: '2030-01-01',
          })
        ).action.status,
      ).toBe('date');
    });

    it('lists date conflicts and swaps them (403 for others, 409 without a conflict)', async () => {
      const contactId = await contact(acme);
      const next = (await mine(contactId, { date: '2030-03-10' })).action;
      const early = (
        await mine(contactId, {
          status: 'queued_with_date',
          date: '2030-03-01',
        })
      ).action;
      const late = (
        await mine(contactId, {
          status: 'queued_with_date',
          date: '2030-04-01',
          position: 1,
        })
      ).action;
      expect((await openActions(contactId)).map((a) => [a.id, a.position])).toEqual([
        [next.id, 0],
        [late.id, 1],
        [early.id, 2],
      ]);
      const parts = (await contactActionsOf(ds.manager, acme.account_id, acme.user_id, [contactId])).get(contactId)!;
      expect(parts.next_action?.id).toBe(next.id);
      expect(parts.next_action_conflicts.map((a: ActionDto) => a.id)).toEqual([early.id]);
      await expect(actions.swap(acme, { action_id: late.id })).rejects.toMatchObject({ errorName: ErrorName.Conflict });
      await expect(actions.swap(member, { action_id: early.id })).rejects.toMatchObject({ errorName: ErrorName.NoPermission });
      await expect(actions.swap(other, { action_id: early.id })).rejects.toMatchObject({ errorName: ErrorName.ResourceNotFound });
      const swapped = (await actions.swap(acme, { action_id: early.id })).action;
      expect(swapped).toMatchObject({
        id: early.id,
        status: 'date',
        position: 0,
      });
      expect((await openActions(contactId)).map((a) => [a.id, a.status, a.position])).toEqual([
        [early.id, 'date', 0],
        [late.id, 'queued_with_date', 1],
        [next.id, 'queued_with_date', 2],
      ]);
    });

    it('completes (no date key, the first queued action follows) and undoes a completion', async () => {
      const contactId = await contact(acme);
      const next = (
        await mine(contactId, {
          status: 'date_time',
          exact_time: 1_900_000_000,
        })
      ).action;
      expect(next.date).toBe('2030-03-17');
      const queued = (
        await mine(contactId, {
          status: 'queued_with_date',
          date: '2030-05-01',
        })
      ).action;
      const done = (await actions.markAsDone(acme, { action_id: next.id })).action;
      expect(done).toMatchObject({
        status: 'done',
        done: true,
        done_at: aToday(),
      });
      expect(done).not.toHaveProperty('date');
      const completed = (await events(next.id)).find((e) => e.reason === 'completed');
      expect(completed?.data.action).not.toHaveProperty('date');
      expect(await openActions(contactId)).toEqual([expect.objectContaining({ id: queued.id, status: 'date', position: 0 })]);
      const undone = (await actions.undoCompletion(acme, { action_id: next.id })).action;
      expect(undone).toMatchObject({
        status: 'date_time',
        done: false,
        done_at: '',
        date: '2030-03-17',
        exact_time: 1_900_000_000,
      });
      expect((await openActions(contactId)).map((a) => [a.id, a.status, a.position])).toEqual([
        [next.id, 'date_time', 0],
        [queued.id, 'queued_with_date', 1],
      ]);
      await expect(actions.undoCompletion(acme, { action_id: next.id })).rejects.toMatchObject({ errorName: ErrorName.Conflict });
    });

    it('mirrors external actions: 409 on controlled fields until unlinked', async () => {
      const contactId = await contact(acme);
      const created = await actions.upsertExternal(acme, {
        provider: 'gcal',
        external_id: 'evt-1',
        contact_id: contactId,
        text: 'Meeting',
        date: '2030-01-01',
      });
      expect(created.created).toBe(true);
      const id = created.data.action.id;
      expect(created.data.action).toMatchObject({
        externally_controlled: true,
        status: 'date',
      });
      const again = await actions.upsertExternal(acme, {
        provider: 'gcal',
        external_id: 'evt-1',
        contact_id: contactId,
        text: 'Moved',
        date: '2030-01-02',
      });
      expect(again).toMatchObject({
        created: false,
        data: { action: { id, text: 'Moved', date: '2030-01-02' } },
      });
      for (const attempt of [
        () =>
          actions.update(acme, {
            action_id: id,
            text: 'Mine now',
            partial: true,
          }),
        () =>
          actions.update(acme, {
            action_id: id,
            date: '2031-01-01',
            partial: true,
          }),
        () => actions.markAsDone(acme, { action_id: id }),
        () => actions.delete(acme, { action_id: id }),
        () => mine(contactId, { date: '2030-01-05' }),
      ]) {
        await expect(attempt()).rejects.toMatchObject({
          errorName: ErrorName.Conflict,
        });
      }
      // Writes that leave the controlled fields alone pass.
      await expect(
        actions.update(acme, {
          action_id: id,
          text: 'Moved',
          assignee_id: member.user_id,
          partial: true,
        }),
      ).resolves.toMatchObject({ action: { assignee_id: member.user_id } });
      expect((await actions.unlink(acme, { action_id: id })).action.externally_controlled).toBe(false);
      await expect(
        actions.update(acme, {
          action_id: id,
          text: 'Mine now',
          partial: true,
        }),
      ).resolves.toMatchObject({ action: { text: 'Mine now' } });
      await expect(actions.markAsDone(acme, { action_id: id })).resolves.toMatchObject({ action: { status: 'done' } });
      const fresh = await actions.upsertExternal(acme, {
        provider: 'gcal',
        external_id: 'evt-1',
        contact_id: contactId,
        text: 'Recreated',
        date: '2030-01-01',
      });
      expect(fresh.created).toBe(true);
      expect(fresh.data.action.id).not.toBe(id);
    });

    it('never leaves two next actions for one contact and assignee under concurrent writes', async () => {
      const contactId = await contact(acme);
      const results = await Promise.allSettled(
        Array.from({ length: 24 }, (_, i) =>
          i % 3 === 0
            ? mine(contactId, { status: 'waiting' })
            : i % 3 === 1
              ? mine(contactId, {
                  date: `2030-01-${String((i % 28) + 1).padStart(2, '0')}`,
                })
              : mine(contactId, {
                  status: 'queued_with_date',
                  date: '2030-06-01',
                  position: 1,
                }),
        ),
      );
      expect(results.filter((r) => r.status === 'rejected')).toEqual([]);
      const open = await openActions(contactId);
      expect(open.filter((a) => a.status !== 'queued_with_date')).toHaveLength(1);
      expect(open.filter((a) => a.status === 'queued_with_date').map((a) => a.position)).toEqual(
        Array.from({ length: 23 }, (_, i) => i + 1),
      );
      // Concurrent completions, deletions and swaps keep it: at most one next action, queue 1..n.
      const ids = open.map((a) => a.id);
      await Promise.allSettled([
        ...ids.slice(0, 8).map((id) => actions.markAsDone(acme, { action_id: id })),
        ...ids.slice(8, 14).map((id) => actions.delete(acme, { action_id: id })),
        ...ids.slice(14).map((id) => actions.swap(acme, { action_id: id })),
      ]);
      const after = await openActions(contactId);
      expect(after.filter((a) => a.status !== 'queued_with_date')).toHaveLength(1);
      expect(after.filter((a) => a.status === 'queued_with_date').map((a) => a.position)).toEqual(
        Array.from({ length: after.length - 1 }, (_, i) => i + 1),
      );
      expect(after).toHaveLength(ids.length - 14);
    });
  });
});
