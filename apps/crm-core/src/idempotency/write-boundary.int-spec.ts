import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import type { INestApplicationContext } from '@nestjs/common';
import {
  API_ROUTES,
  ErrorName,
  parseContract,
  Subjects,
  type Caller,
  type RouteDeclaration,
  type RpcReply,
  type RpcRequest,
} from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { discoverRpcHandlers, encodeReplyWithData, replyOf, RpcArgumentContext, type RpcHandler } from '@crm/messaging';
import { createLogger } from '@crm/observability';
import { createTestDatabase, uniqueNamespace, type TestDatabase } from '@crm/testing';
import { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { DataSource as DataSourceToken } from 'typeorm';
import { openMediumDatabase } from '../accounts/accounts.medium-fixture';
import { AppModule } from '../app.module';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { IdempotencyService } from './idempotency.service';

/**
 * No crm-core write commits and then answers an error (decisions.md "No commit behind an error"):
 * crm-core's own handlers, as NatsRpcServer calls them, run through the write boundary. A write of
 * each route family whose reply is over the reply limit (lowered here, to half the reply's size)
 * answers 400 `reply`, and every table of the crm schema is as it was; the same write
 * under the real limit commits. A company PATCH whose contacts carry long actions is the known case.
 */
describe('write boundary: no commit behind an error (real PostgreSQL and NATS, crm-core handlers)', () => {
  let db: TestDatabase;
  let app: INestApplicationContext;
  let dataSource: DataSource;
  let boundary: IdempotencyService;
  let handlers: Map<string, RpcHandler>;
  let caller: Caller;

  beforeAll(async () => {
    db = await createTestDatabase('crm_write_boundary');
    const config = Object.assign(new CrmCoreConfig(), {
      DATABASE_URL: db.url,
      NATS_URL: process.env.NATS_URL ?? 'nats://127.0.0.1:4222',
      CRM_NAMESPACE: uniqueNamespace('boundary'),
    });
    await runMigrations(crmDataSource(config));
    const logger = createLogger('write-boundary-test', 'silent');
    app = await NestFactory.createApplicationContext(AppModule.forRoot(config, { service: 'crm-core', logger, registry: new Registry() }), {
      logger: false,
    });
    dataSource = app.get(DataSourceToken);
    boundary = app.get(IdempotencyService);
    handlers = new Map(discoverRpcHandlers(app).map((h) => [h.subject, h]));
    const fixture = await openMediumDatabase(db);
    caller = await fixture.newAccount('Boundary');
    await fixture.dataSource.destroy();
  });

  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  const routeOf = (subject: string): RouteDeclaration => API_ROUTES.find((r) => r.subject === subject && r.method !== 'GET')!;

  /** The write as NatsRpcServer runs it: the request parsed as the gateway does, the handler inside the boundary. */
  function send(subject: string, input: Record<string, unknown>, replyLimit?: number): Promise<RpcReply> {
    const route = routeOf(subject);
    const handler = handlers.get(subject)!;
    const request = { caller, payload: parseContract(route.request, input) } as RpcRequest;
    const invoke = async () => replyOf(await handler.method.apply(handler.instance, new RpcArgumentContext(handler, request).arguments()));
    return boundary.write(route, request, invoke, replyLimit === undefined ? undefined : { replyLimit, keptLimit: replyLimit });
  }

  async function ok<T = Record<string, { id: string }>>(subject: string, input: Record<string, unknown>): Promise<T> {
    const reply = await send(subject, input);
    if (!reply.ok) throw new Error(`${subject}: ${JSON.stringify(reply.error)}`);
    return reply.data as T;
  }

  /**
   * Every table of the crm schema, as text, but the migration log, once the background work of
   * earlier writes is done (the contact documents' projector, the outbox relay).
   */
  async function snapshot(): Promise<Record<string, string>> {
    for (let i = 0; i < 400; i++) {
      const [busy]: Array<{ queued: number; sweeps: number; unpublished: number }> = await dataSource.query(
        `SELECT (SELECT count(*)::int FROM crm.contact_document_queue) AS queued,
                (SELECT count(*)::int FROM crm.contact_document_sweeps) AS sweeps,
                (SELECT count(*)::int FROM crm.outbox WHERE published_at IS NULL AND parked_at IS NULL) AS unpublished`,
      );
      if (busy.queued === 0 && busy.sweeps === 0 && busy.unpublished === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const tables: Array<{ name: string }> = await dataSource.query(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'crm' AND table_type = 'BASE TABLE' AND table_name <> 'migrations'`,
    );
    const out: Record<string, string> = {};
    for (const { name } of tables) {
      const rows: Array<{ digest: string | null; n: number }> = await dataSource.query(
        `SELECT md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest, count(*)::int AS n FROM crm."${name}" t`,
      );
      out[name] = `${rows[0].n}:${rows[0].digest ?? ''}`;
    }
    return out;
  }

  /**
   * Sends the write with a limit well below the size of its reply (measured by the same write sent
   * with `measure`'s input first, under the real limit, on a twin record when it creates one): 400
   * reply, nothing changed anywhere.
   */
  async function refusedWhenOversized(subject: string, input: Record<string, unknown>, measure: Record<string, unknown>): Promise<void> {
    const measured = await send(subject, measure);
    if (!measured.ok) throw new Error(`${subject}: ${JSON.stringify(measured.error)}`);
    const size = Buffer.byteLength(encodeReplyWithData(measured).text);
    const before = await snapshot();
    const reply = await send(subject, input, Math.floor(size / 2));
    expect(reply).toMatchObject({
      ok: false,
      error: { error_name: ErrorName.InvalidRequestData, errors: { reply: expect.stringMatching(/not applied/) } },
    });
    expect(await snapshot()).toEqual(before);
  }

  let contactId: string;
  beforeAll(async () => {
    contactId = (await ok<{ contact: { id: string } }>(Subjects.ContactsCreate, { last_name: 'Anchor' })).contact.id;
  });

  it('contacts: POST /contacts and PATCH /contacts/{id}', async () => {
    await refusedWhenOversized(Subjects.ContactsCreate, { last_name: 'Never' }, { last_name: 'Twin' });
    await refusedWhenOversized(
      Subjects.ContactsPatch,
      { contact_id: contactId, first_name: 'Never' },
      { contact_id: contactId, first_name: 'Measured' },
    );
  });

  it('companies: PATCH /companies/{id} whose contacts carry long actions', async () => {
    const { contact } = await ok<{ contact: { id: string; company_id: string } }>(Subjects.ContactsCreate, {
      last_name: 'Worker',
      company_name: 'Longwinded Ltd',
    });
    for (let i = 0; i < 3; i++)
      await ok(Subjects.ActionsCreate, {
        contact_id: contact.id,
        text: `${'Call back about the long contract '.repeat(20)}${i}`,
        status: 'asap',
      });
    const companyId = contact.company_id;
    expect(companyId).toEqual(expect.any(String));
    await refusedWhenOversized(
      Subjects.CompaniesPatch,
      { company_id: companyId, description: 'Never' },
      { company_id: companyId, description: 'Measured' },
    );
  });

  it('deals: POST /deals', async () => {
    await refusedWhenOversized(
      Subjects.DealsCreate,
      { contact_id: contactId, name: 'Never', amount: 10 },
      { contact_id: contactId, name: 'Twin', amount: 10 },
    );
  });

  it('notes, calls and meetings: POST /notes, /calls, /meetings', async () => {
    await refusedWhenOversized(Subjects.NotesCreate, { contact_id: contactId, text: 'Never' }, { contact_id: contactId, text: 'Twin' });
    await refusedWhenOversized(
      Subjects.CallsCreate,
      { contact_id: contactId, text: 'Never', call_result: 'interested' },
      { contact_id: contactId, text: 'Twin', call_result: 'interested' },
    );
    await refusedWhenOversized(Subjects.MeetingsCreate, { contact_id: contactId, text: 'Never' }, { contact_id: contactId, text: 'Twin' });
  });

  it('actions: POST /actions', async () => {
    await refusedWhenOversized(
      Subjects.ActionsCreate,
      { contact_id: contactId, text: 'Never', status: 'asap' },
      { contact_id: contactId, text: 'Twin', status: 'asap' },
    );
  });

  it('configuration records: POST /custom_fields and POST /statuses', async () => {
    await refusedWhenOversized(Subjects.CustomFieldsCreate, { name: 'Never', type: 'text' }, { name: 'Twin', type: 'text' });
    await refusedWhenOversized(Subjects.StatusesCreate, { text: 'Never', color: '#123456' }, { text: 'Twin', color: '#654321' });
  });

  it('under the real limit the same writes commit', async () => {
    const before = await snapshot();
    const { note } = await ok<{ note: { id: string } }>(Subjects.NotesCreate, { contact_id: contactId, text: 'Kept' });
    expect(note.id).toEqual(expect.any(String));
    expect((await snapshot()).notes).not.toEqual(before.notes);
  });
});
