import 'reflect-metadata';
import { newId } from '@crm/common';
import { eventsStreamConfig, eventSubject, type DomainEvent } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createLogger } from '@crm/observability';
import { createTestDatabase, resolveTestInfra, uniqueNamespace, type TestDatabase } from '@crm/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { Webhook } from 'standardwebhooks';
import type { DataSource } from 'typeorm';
import { DispatcherConfig } from '../config/dispatcher.config';
import { webhooksDataSource } from '../database/webhooks-data-source';
import { newSigningSecret } from '../webhooks/webhook.rules';
import { DeliveryDispatcher } from './delivery-dispatcher';

const logger = createLogger('dispatcher-test', (process.env.TEST_LOG_LEVEL ?? 'silent') as 'silent');
const ACCOUNT = 'a'.repeat(24);
const OTHER_ACCOUNT = 'b'.repeat(24);
const STATUS = 'c'.repeat(24);
const LEAD = 'd'.repeat(24);

interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

/** A local receiver: records every request; `answer` decides the status (or never answers). */
async function startReceiver(
  answer: (req: Received, count: number) => { status: number; headers?: Record<string, string>; delayMs?: number } | 'hang',
) {
  const received: Received[] = [];
  const counts = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r: Received = { path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString(), at: Date.now() };
      received.push(r);
      const id = String(req.headers['webhook-id']);
      counts.set(id, (counts.get(id) ?? 0) + 1);
      const a = answer(r, counts.get(id)!);
      if (a === 'hang') return;
      setTimeout(() => res.writeHead(a.status, a.headers).end('ok'), a.delayMs ?? 0);
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('webhook delivery pipeline (real PostgreSQL, NATS and HTTP receivers)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let nc: NatsConnection;
  const namespace = uniqueNamespace('wh');
  const dispatchers: DeliveryDispatcher[] = [];

  function config(overrides: Partial<DispatcherConfig> = {}): DispatcherConfig {
    return Object.assign(new DispatcherConfig(), {
      DATABASE_URL: db.url,
      NATS_URL: resolveTestInfra().natsUrl,
      CRM_NAMESPACE: namespace,
      WEBHOOK_ALLOW_PRIVATE: true,
      WEBHOOK_RETRY_SCALE: 0.001,
      WEBHOOK_TIMEOUT_MS: 1000,
      WEBHOOK_RECEIVER_CONCURRENCY: 4,
      ...overrides,
    });
  }

  async function startDispatcher(overrides: Partial<DispatcherConfig> = {}): Promise<DeliveryDispatcher> {
    const dispatcher = new DeliveryDispatcher({
      dataSource,
      config: config(overrides),
      logger,
      registry: new Registry(),
      pollIntervalMs: 50,
    });
    await dispatcher.start();
    dispatchers.push(dispatcher);
    return dispatcher;
  }

  async function addWebhook(fields: {
    hook_url: string;
    account_id?: string;
    types?: string[];
    status_id?: string | null;
    active?: boolean;
    secretkey?: string;
  }): Promise<{ id: string; secret: string }> {
    const id = newId();
    const secret = newSigningSecret();
    await dataSource.query(
      'INSERT INTO webhooks.webhooks (id, account_id, name, hook_url, secretkey, types, status_id, active, signing_secret) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [
        id,
        fields.account_id ?? ACCOUNT,
        'test',
        fields.hook_url,
        fields.secretkey ?? '',
        fields.types ?? [],
        fields.status_id ?? null,
        fields.active ?? true,
        secret,
      ],
    );
    return { id, secret };
  }

  let recordCounter = 0;
  function event(overrides: Partial<DomainEvent> = {}): DomainEvent {
    const record = overrides.record_id ?? String((recordCounter += 1)).padStart(24, '0');
    return {
      event_id: newId(),
      account_id: ACCOUNT,
      type: 'contact',
      reason: 'created',
      record_id: record,
      contact_status_id: LEAD,
      timestamp: Math.floor(Date.now() / 1000),
      data: { contact: { id: record } },
      ...overrides,
    };
  }

  async function publish(...events: DomainEvent[]): Promise<void> {
    const js = jetstream(nc);
    await Promise.all(events.map((e) => js.publish(eventSubject(namespace, e.type, e.reason), JSON.stringify(e), { msgID: e.event_id })));
  }

  const attemptsOf = async (webhookId: string) =>
    dataSource.query<Array<{ event_id: string; status: string; attempt_count: number; codes: Array<number | null> }>>(
      `SELECT d.event_id, d.status, d.attempt_count, array(SELECT a.response_code FROM webhooks.delivery_attempts a WHERE a.delivery_id = d.id ORDER BY a.id) || CASE WHEN d.last_attempted_at IS NULL THEN ARRAY[]::int[] ELSE ARRAY[d.last_response_code] END AS codes FROM webhooks.deliveries d WHERE d.webhook_id = $1`,
      [webhookId],
    );

  beforeAll(async () => {
    db = await createTestDatabase('wh_pipeline');
    dataSource = await webhooksDataSource(config()).initialize();
    await runMigrations(webhooksDataSource(config()));
    nc = await connect({ servers: resolveTestInfra().natsUrl });
  });

  // Each test's receivers close at its end: its webhooks must not get the next tests' events.
  afterEach(async () => {
    await dataSource.query('UPDATE webhooks.webhooks SET active = false');
  });

  afterAll(async () => {
    await Promise.all(dispatchers.map((d) => d.stop(2000)));
    await (await jetstreamManager(nc)).streams.delete(eventsStreamConfig(namespace).name).catch(() => undefined);
    await nc?.drain();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  it('delivers each event to the webhooks that want it, signed, with exactly the five body keys', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    const all = await addWebhook({ hook_url: `${receiver.url}/all`, secretkey: 'shh' });
    const deals = await addWebhook({ hook_url: `${receiver.url}/deals`, types: ['deal'] });
    const byStatus = await addWebhook({ hook_url: `${receiver.url}/status`, status_id: STATUS });
    const off = await addWebhook({ hook_url: `${receiver.url}/off`, active: false });
    const other = await addWebhook({ hook_url: `${receiver.url}/other`, account_id: OTHER_ACCOUNT });
    await startDispatcher();

    const contact = event();
    const deal = event({
      type: 'deal',
      reason: 'changed_to_won',
      contact_status_id: STATUS,
      data: { deal: { id: 'x', last_stage: 50, close_date: '2026-01-02' } },
    });
    const deleted = event({ reason: 'deleted', data: { id: 'y' } });
    await publish(contact, deal, deleted);

    await until('five deliveries', () => receiver.received.length >= 5 && receiver.received);
    // An event's deliveries are written with it, in one statement: once the three are stored, no other delivery can come.
    const eventIds = [contact, deal, deleted].map((e) => e.event_id);
    await until(
      'the three events stored',
      async () =>
        (await dataSource.query('SELECT count(*)::int AS n FROM webhooks.events WHERE event_id = ANY($1)', [eventIds]))[0].n === 3,
    );
    expect(await attemptsOf(off.id)).toEqual([]);
    expect(await attemptsOf(other.id)).toEqual([]);
    const byPath = (path: string) =>
      receiver.received.filter((r) => r.path === path).map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(
      byPath('/all')
        .map((b) => b.reason)
        .sort(),
    ).toEqual(['changed_to_won', 'created', 'deleted']);
    expect(byPath('/deals')).toEqual([
      { type: 'deal', reason: 'changed_to_won', timestamp: deal.timestamp, secretkey: '', data: deal.data },
    ]);
    expect(byPath('/status').map((b) => b.type)).toEqual(['deal']);
    expect(byPath('/off')).toEqual([]);
    expect(byPath('/other')).toEqual([]);
    expect(receiver.received).toHaveLength(5);

    const first = receiver.received.find((r) => r.path === '/all' && r.body.includes('"deleted"'))!;
    expect(Object.keys(JSON.parse(first.body))).toEqual(['type', 'reason', 'timestamp', 'secretkey', 'data']);
    expect(JSON.parse(first.body)).toMatchObject({ secretkey: 'shh', data: { id: 'y' } });
    expect(first.headers['content-type']).toBe('application/json');
    expect(new Webhook(all.secret).verify(first.body, first.headers as Record<string, string>)).toBeTruthy();
    expect(() => new Webhook(deals.secret).verify(first.body, first.headers as Record<string, string>)).toThrow();
    expect(byStatus.id).toBeDefined();

    // The receiver answers before the dispatcher records the attempt: wait until the three are settled.
    const log = await until('the three deliveries settled', async () => {
      const rows = await attemptsOf(all.id);
      return rows.length === 3 && rows.every((d) => d.status === 'delivered' || d.status === 'failed') && rows;
    });
    expect(log.every((d) => d.status === 'delivered' && d.attempt_count === 1 && d.codes[0] === 200)).toBe(true);
    await receiver.close();
  });

  it('never delivers the internal status event; webhooks filtering on a deleted status fall back to lead', async () => {
    const receiver = await startReceiver(() => ({ status: 204 }));
    const gone = 'e'.repeat(24);
    const hook = await addWebhook({ hook_url: receiver.url, status_id: gone });
    await publish(
      event({
        type: 'status' as never,
        reason: 'deleted',
        record_id: gone,
        contact_status_id: null,
        data: { status: { id: gone }, lead_status_id: LEAD },
      }),
      event({ contact_status_id: LEAD }),
    );
    await until(
      'the event of a lead contact reaches the webhook that filtered on the deleted status',
      () => receiver.received.length === 1,
    );
    const [{ status_id }] = await dataSource.query('SELECT status_id FROM webhooks.webhooks WHERE id = $1', [hook.id]);
    expect(status_id).toBe(LEAD);
    expect(JSON.parse(receiver.received[0].body).type).toBe('contact');
    await receiver.close();
  });

  it('retries a receiver answering 500 twice, then 200, and records every attempt', async () => {
    const receiver = await startReceiver((_r, n) => ({ status: n <= 2 ? 500 : 200 }));
    const hook = await addWebhook({ hook_url: receiver.url });
    await publish(event());
    await until('the third attempt is recorded as delivered', async () => (await attemptsOf(hook.id))[0]?.status === 'delivered');
    const [delivery] = await attemptsOf(hook.id);
    expect(delivery.codes).toEqual([500, 500, 200]);
    const ids = new Set(receiver.received.map((r) => r.headers['webhook-id']));
    expect(ids.size).toBe(1); // the same webhook-id on every retry
    await receiver.close();
  });

  it('disables a webhook whose receiver answers 410, and honours Retry-After on 429', async () => {
    const gone = await startReceiver(() => ({ status: 410 }));
    const goneHook = await addWebhook({ hook_url: gone.url });
    const busy = await startReceiver((_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
    const busyHook = await addWebhook({ hook_url: busy.url, types: ['note'] });
    await publish(event({ type: 'note', data: { note: { id: 'n', linked_deal_id: '' } } }));
    await until(
      '410 switches the webhook off',
      async () => (await dataSource.query('SELECT active FROM webhooks.webhooks WHERE id = $1', [goneHook.id]))[0].active === false,
    );
    const [goneDelivery] = await until('the 410 delivery recorded as failed', async () => {
      const rows = await attemptsOf(goneHook.id);
      return rows[0]?.status === 'failed' && rows;
    });
    expect(goneDelivery).toMatchObject({ status: 'failed', codes: [410] });

    await until('the 429 is retried', () => busy.received.length >= 2, 10_000);
    expect(busy.received[1].at - busy.received[0].at).toBeGreaterThanOrEqual(950);
    await until('delivered after Retry-After', async () => (await attemptsOf(busyHook.id))[0]?.status === 'delivered');
    await gone.close();
    await busy.close();
  });

  it('keeps first attempts of one record in stream order across two replicas', async () => {
    await startDispatcher();
    const seen = new Map<string, number[]>();
    const receiver = await startReceiver((r) => {
      const body = JSON.parse(r.body) as { data: { contact: { id: string; n: number } } };
      const list = seen.get(body.data.contact.id) ?? [];
      list.push(body.data.contact.n);
      seen.set(body.data.contact.id, list);
      return { status: 200, delayMs: Math.floor(Math.random() * 5) };
    });
    await addWebhook({ hook_url: receiver.url, types: ['contact'], account_id: 'f'.repeat(24) });
    const events: DomainEvent[] = [];
    for (let n = 0; n < 15; n += 1)
      for (let r = 0; r < 20; r += 1)
        events.push(
          event({ account_id: 'f'.repeat(24), record_id: `r${String(r).padStart(23, '0')}`, data: { contact: { id: `r${r}`, n } } }),
        );
    await publish(...events);
    await until('300 deliveries', () => receiver.received.length >= 300, 30_000);
    for (const [, order] of seen) expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(seen.size).toBe(20);
    await receiver.close();
  });

  it('a hanging receiver holds only its own slots: the others are delivered meanwhile', async () => {
    const hanging = await startReceiver(() => 'hang');
    const healthy = await startReceiver(() => ({ status: 200 }));
    const account = '9'.repeat(24);
    const stuck = await addWebhook({ hook_url: hanging.url, account_id: account });
    await addWebhook({ hook_url: healthy.url, account_id: account });
    await publish(...Array.from({ length: 60 }, () => event({ account_id: account })));
    await until('every event reaches the healthy receiver', () => healthy.received.length >= 60, 30_000);
    // Meanwhile the hanging receiver, a few slots at a time of 1 s each, has not been tried with all of its events.
    expect((await attemptsOf(stuck.id)).filter((d) => d.attempt_count === 0).length).toBeGreaterThan(0);
    await until(
      'the hanging receiver times out and is scheduled for retry',
      async () => (await attemptsOf(stuck.id)).some((d) => d.codes.length > 0 && d.codes[0] === null),
      10_000,
    );
    await hanging.close();
    await healthy.close();
  });

  it('a re-published or redelivered event adds no second delivery (unique event and webhook)', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    const account = '8'.repeat(24);
    const hook = await addWebhook({ hook_url: receiver.url, account_id: account });
    const e = event({ account_id: account });
    await publish(e);
    await until('delivered', () => receiver.received.length === 1);
    // Past JetStream's duplicate window this is a new message with the same event id.
    await jetstream(nc).publish(eventSubject(namespace, e.type, e.reason), JSON.stringify(e));
    // Events are ingested in stream order: once a later event is delivered, the repeat has been ingested too.
    const marker = event({ account_id: account });
    await publish(marker);
    await until('the later event delivered', () => receiver.received.some((r) => r.body.includes(marker.record_id)));
    expect((await attemptsOf(hook.id)).map((d) => d.event_id).sort()).toEqual([e.event_id, marker.event_id].sort());
    expect(receiver.received).toHaveLength(2);
    await receiver.close();
  });

  it('frees the claims of a replica that is gone and delivers them', async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    const account = '7'.repeat(24);
    const hook = await addWebhook({ hook_url: receiver.url, account_id: account });
    const e = event({ account_id: account });
    // A delivery claimed by a replica key no live session holds (the replica was killed mid-attempt).
    await dataSource.query(
      `INSERT INTO webhooks.events (event_id, account_id, type, reason, record_id, occurred_at, published_at, stream_seq, data) VALUES ($1, $2, 'contact', 'created', $3, 1, now(), 1, '{}')`,
      [e.event_id, account, e.record_id],
    );
    await dataSource.query(
      `INSERT INTO webhooks.deliveries (id, event_id, webhook_id, record_id, event_seq, next_attempt_at, locked_by) VALUES ($1, $2, $3, $4, 1, now(), 12345)`,
      [newId(), e.event_id, hook.id, e.record_id],
    );
    await until('the orphaned delivery is sent', () => receiver.received.length === 1, 10_000);
    await until('and recorded', async () => (await attemptsOf(hook.id))[0]?.status === 'delivered');
    await receiver.close();
  });

  it('refuses receivers on private addresses at delivery unless allowed', async () => {
    const strict = new DeliveryDispatcher({
      dataSource,
      config: config({ WEBHOOK_ALLOW_PRIVATE: false }),
      logger,
      registry: new Registry(),
      pollIntervalMs: 50,
    });
    // Only the strict replica runs for this test.
    await Promise.all(dispatchers.splice(0).map((d) => d.stop(2000)));
    await strict.start();
    dispatchers.push(strict);
    const receiver = await startReceiver(() => ({ status: 200 }));
    const account = '6'.repeat(24);
    const byName = await addWebhook({ hook_url: receiver.url.replace('127.0.0.1', 'localhost'), account_id: account });
    await publish(event({ account_id: account }));
    await until('the attempt is refused', async () => (await attemptsOf(byName.id))[0]?.attempt_count >= 1);
    const [{ last_error }] = await dataSource.query('SELECT last_error FROM webhooks.deliveries WHERE webhook_id = $1', [byName.id]);
    // A category, not what the name resolved to (the delivery log is shown to the account).
    expect(last_error).toBe('blocked: private address');
    expect(receiver.received).toHaveLength(0);
    await receiver.close();
  });
});
