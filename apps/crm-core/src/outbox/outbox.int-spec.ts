import 'reflect-metadata';
import { newId } from '@crm/common';
import { eventsStreamName, MAX_EVENT_DATA_BYTES, type DomainEvent } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createLogger, runInSpan, runWithRequestId, SpanKind, startSpan, startTracing } from '@crm/observability';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { createTestDatabase, uniqueNamespace, type TestDatabase } from '@crm/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { Registry } from 'prom-client';
import type { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { ensureEventsStream, MAX_PUBLISH_ATTEMPTS, OutboxRelay, writeEvent, type OutboxPublisher } from './outbox';
import { OutboxListener } from './outbox-listener';
import { OutboxMetrics } from './outbox-metrics';
import { outboxBacklog } from './outbox.repository';

const logger = createLogger('outbox-test', 'silent');
const ACCOUNT = 'a'.repeat(24);
const OTHER_ACCOUNT = 'b'.repeat(24);

describe('transactional outbox relayed to JetStream (real PostgreSQL and NATS)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let nc: NatsConnection;
  const namespace = uniqueNamespace('outbox');

  beforeAll(async () => {
    db = await createTestDatabase('crm_outbox');
    dataSource = crmDataSource(Object.assign(new CrmCoreConfig(), { DATABASE_URL: db.url }));
    await runMigrations(dataSource);
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    await ensureEventsStream(nc, namespace);
    await ensureEventsStream(nc, namespace); // idempotent
  });

  afterEach(async () => {
    // Each test starts with nothing pending (parked rows stay: they are never claimed).
    await dataSource.query('UPDATE crm.outbox SET published_at = now() WHERE published_at IS NULL AND parked_at IS NULL');
  });

  afterAll(async () => {
    await (await jetstreamManager(nc)).streams.delete(eventsStreamName(namespace)).catch(() => undefined);
    await nc?.drain();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  const relay = (extra: { metrics?: OutboxMetrics; publisher?: OutboxPublisher; slowClaimMs?: number } = {}) =>
    new OutboxRelay({ dataSource, nc, namespace, logger, ...extra });

  /** Relays until a batch settles nothing. */
  async function drain(r: OutboxRelay, limit = 100): Promise<number> {
    let total = 0;
    for (let n = await r.relayBatch(limit); n > 0; n = await r.relayBatch(limit)) total += n;
    return total;
  }

  async function streamEvents(): Promise<DomainEvent[]> {
    const name = eventsStreamName(namespace);
    const jsm = await jetstreamManager(nc);
    const { state } = await jsm.streams.info(name);
    const events: DomainEvent[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq += 1) {
      const msg = await jsm.streams.getMessage(name, { seq });
      if (msg) events.push(msg.json<DomainEvent>());
    }
    return events;
  }

  const write = (record: string, n: number, account = ACCOUNT, data: Record<string, unknown> = { deal: { id: record, n } }) =>
    dataSource.transaction((m) => writeEvent(m, { account_id: account, type: 'deal', reason: 'updated', record_id: record, data }));

  /** Commits a row as an older writer (without the size cap) would have: `data` of about `bytes`. */
  async function writeRaw(record: string, bytes: number): Promise<string> {
    const eventId = newId();
    await dataSource.query(
      `INSERT INTO crm.outbox (event_id, account_id, type, reason, record_id, data) VALUES ($1, $2, 'deal', 'updated', $3, $4)`,
      [eventId, ACCOUNT, record, JSON.stringify({ deal: { id: record, description: 'x'.repeat(bytes) } })],
    );
    return eventId;
  }

  const sample = async (registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number> => {
    const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
    const values = (metric?.values ?? []) as Array<{ value: number; labels: Record<string, string | number> }>;
    return values.filter((v) => Object.entries(labels).every(([k, want]) => v.labels[k] === want)).reduce((sum, v) => sum + v.value, 0);
  };

  it("publishes the writing request's id and trace context as message headers, in a producer span of that trace, and records the relay lag", async () => {
    const exporter = new InMemorySpanExporter();
    const tracing = startTracing({ service: 'crm-core-test', exporter });
    try {
      const registry = new Registry();
      const metrics = new OutboxMetrics(registry);
      const writer = startSpan('deals.update', SpanKind.SERVER)!;
      const eventId = await runWithRequestId('req-outbox-trace', () => runInSpan(writer, () => write('traced', 1)));
      writer.end();
      // An event written outside any request carries no headers at all.
      const plainId = await write('untraced', 1);
      expect(await drain(relay({ metrics }))).toBe(2);

      const jsm = await jetstreamManager(nc);
      const { state } = await jsm.streams.info(eventsStreamName(namespace));
      const messages = await Promise.all(
        Array.from({ length: state.messages }, (_, i) => jsm.streams.getMessage(eventsStreamName(namespace), { seq: state.first_seq + i })),
      );
      const traced = messages.find((m) => m?.json<DomainEvent>().event_id === eventId)!;
      const plain = messages.find((m) => m?.json<DomainEvent>().event_id === plainId)!;
      expect(traced.header.get('X-Request-Id')).toBe('req-outbox-trace');
      const [, traceId, parentId] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/.exec(traced.header.get('traceparent'))!;
      expect(traceId).toBe(writer.spanContext().traceId);
      expect(plain.header?.get('X-Request-Id') ?? '').toBe('');
      expect(plain.header?.get('traceparent') ?? '').toBe('');

      await tracing.flush();
      const publish = exporter.getFinishedSpans().find((span) => span.name === 'outbox publish deal.updated');
      expect(publish?.spanContext()).toMatchObject({ traceId, spanId: parentId });
      expect(publish?.parentSpanContext?.spanId).toBe(writer.spanContext().spanId);
      const lag = (await registry.getMetricsAsJSON()).find((m) => m.name === 'crm_outbox_relay_lag_seconds');
      expect(
        (lag?.values as Array<{ metricName?: string; value: number }>).find((v) => v.metricName === 'crm_outbox_relay_lag_seconds_count')
          ?.value,
      ).toBe(2);
    } finally {
      await tracing.shutdown();
    }
  });

  it('refreshes the outbox statistics after a slow claim (a misjudged backlog), at most once a minute', async () => {
    const analyses = async () =>
      Number(
        (
          await dataSource.query(
            `SELECT analyze_count + autoanalyze_count AS n FROM pg_stat_user_tables WHERE schemaname = 'crm' AND relname = 'outbox'`,
          )
        )[0].n,
      );
    const before = await analyses();
    await write('stats-1', 1);
    // Every claim counts as slow here; only the first within the minute analyzes.
    const r = relay({ slowClaimMs: 0 });
    await drain(r);
    await write('stats-2', 1);
    await drain(r);
    const deadline = Date.now() + 10_000;
    let after = await analyses();
    while (after === before && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await analyses();
    }
    expect(after).toBe(before + 1);
  });

  it('relays only committed events, each once, with two relays running at once', async () => {
    const before = (await streamEvents()).length;
    await dataSource.transaction(async (m) => {
      for (let i = 0; i < 120; i += 1)
        await writeEvent(m, {
          account_id: ACCOUNT,
          type: 'contact',
          reason: 'created',
          record_id: String(i).padStart(24, '0'),
          data: { contact: { id: String(i).padStart(24, '0') } },
        });
    });
    await dataSource
      .transaction(async (m) => {
        await writeEvent(m, { account_id: ACCOUNT, type: 'deal', reason: 'created', record_id: 'f'.repeat(24), data: {} });
        throw new Error('rolled back');
      })
      .catch(() => undefined);

    const counts = await Promise.all([relay(), relay()].map((r) => drain(r, 25)));
    expect(counts[0] + counts[1]).toBe(120);

    const events = (await streamEvents()).slice(before);
    expect(events).toHaveLength(120);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(120);
    expect(events.some((e) => e.type === 'deal')).toBe(false);
    expect(events.find((e) => e.record_id === '0'.repeat(24))).toMatchObject({
      account_id: ACCOUNT,
      type: 'contact',
      reason: 'created',
      data: { contact: { id: '0'.repeat(24) } },
    });
    expect(typeof events[0].timestamp).toBe('number');
    expect((await outboxBacklog(dataSource.manager)).pending).toBe(0);
  });

  it('drops a re-publish of the same event (a crash between publish and mark)', async () => {
    const eventId = await dataSource.transaction((m) =>
      writeEvent(m, {
        account_id: ACCOUNT,
        type: 'note',
        reason: 'created',
        record_id: 'e'.repeat(24),
        data: { note: { id: 'e'.repeat(24) } },
      }),
    );
    const r = relay();
    expect(await r.relayBatch()).toBe(1);
    await dataSource.query('UPDATE crm.outbox SET published_at = NULL WHERE event_id = $1', [eventId]);
    expect(await r.relayBatch()).toBe(1);
    const ack = await jetstream(nc).publish(`${namespace}.events.note.created`, '{}', { msgID: eventId });
    expect(ack.duplicate).toBe(true);
    expect((await streamEvents()).filter((e) => e.event_id === eventId)).toHaveLength(1);
  });

  it('two running relays keep each record in outbox order, woken by the commit (not by their poll)', async () => {
    const relays = [relay(), relay()];
    const listeners = relays.map((r) => new OutboxListener(db.url, logger, () => r.wake()));
    listeners.forEach((l) => l.start());
    await Promise.all(listeners.map((l) => l.listening));
    // Idle polls of a minute: only the NOTIFY of a commit can make them publish before the deadline below.
    const loops = relays.map((r) => r.run(60_000));
    const before = (await streamEvents()).length;
    const records = ['d'.repeat(24), 'c'.repeat(24), '9'.repeat(24)];
    const written = new Map<string, string[]>(records.map((r) => [r, []]));
    for (let batch = 0; batch < 10; batch += 1) {
      await dataSource.transaction(async (m) => {
        for (let i = 0; i < 20; i += 1) {
          const record = records[i % records.length];
          written.get(record)!.push(
            await writeEvent(m, {
              account_id: ACCOUNT,
              type: 'deal',
              reason: 'updated',
              record_id: record,
              data: { deal: { id: record, n: i } },
            }),
          );
        }
      });
    }
    const deadline = Date.now() + 20_000;
    while ((await streamEvents()).length < before + 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    await Promise.all(loops.map((l) => l.stop()));
    await Promise.all(listeners.map((l) => l.stop()));
    const relayed = (await streamEvents()).slice(before);
    expect(relayed).toHaveLength(200);
    for (const record of records) expect(relayed.filter((e) => e.record_id === record).map((e) => e.event_id)).toEqual(written.get(record));
  });

  it('parks a row NATS refuses for good: counted and kept, while other records and later events of its record go on', async () => {
    const registry = new Registry();
    const metrics = new OutboxMetrics(registry);
    metrics.readBacklogFrom(() => outboxBacklog(dataSource.manager));
    const before = (await streamEvents()).length;
    const x = '1'.repeat(24);
    const y = '2'.repeat(24);
    // Over NATS's 1 MiB max_payload: what any tenant could build before events were bounded when written.
    const tooLarge = await writeRaw(x, 1_100_000);
    const xLater = await write(x, 2);
    const yEvent = await write(y, 1, OTHER_ACCOUNT);

    expect(await drain(relay({ metrics }))).toBe(3);

    const relayed = (await streamEvents()).slice(before).map((e) => e.event_id);
    expect(relayed.sort()).toEqual([xLater, yEvent].sort());
    const [row] = await dataSource.query(
      'SELECT parked_at IS NOT NULL AS parked, published_at, last_error FROM crm.outbox WHERE event_id = $1',
      [tooLarge],
    );
    expect(row).toEqual({ parked: true, published_at: null, last_error: expect.stringMatching(/max_payload/) });
    expect(await sample(registry, 'crm_outbox_events_parked_total', { reason: 'rejected' })).toBe(1);
    expect(await sample(registry, 'crm_outbox_parked_events')).toBeGreaterThanOrEqual(1);
    expect(await sample(registry, 'crm_outbox_events_published_total')).toBe(2);
    // Never tried again.
    expect(await relay({ metrics }).relayBatch()).toBe(0);
  });

  it('writes an event over the size cap in its reduced form, which is relayed (the webhook body keeps its five keys)', async () => {
    const registry = new Registry();
    const metrics = new OutboxMetrics(registry);
    const before = (await streamEvents()).length;
    const contactId = '3'.repeat(24);
    const action = (i: number) => ({ id: String(i).padStart(24, '0'), text: '\u0001'.repeat(10_000) });
    const siblings = { next_actions: [action(0)], queued_actions: Array.from({ length: 25 }, (_, i) => action(i)), next_action: action(0) };
    await dataSource.transaction((m) =>
      writeEvent(m, {
        account_id: ACCOUNT,
        type: 'contact',
        reason: 'updated',
        record_id: contactId,
        data: { contact: { id: contactId, first_name: 'Ada' }, ...siblings },
      }),
    );
    const companyId = '4'.repeat(24);
    await dataSource.transaction((m) =>
      writeEvent(m, {
        account_id: ACCOUNT,
        type: 'company',
        reason: 'updated',
        record_id: companyId,
        data: { company: { id: companyId, contacts: Array.from({ length: 30 }, () => ({ contact: { id: contactId }, ...siblings })) } },
      }),
    );
    const rows: Array<{ bytes: number; truncated_bytes: number }> = await dataSource.query(
      `SELECT octet_length(data::text) AS bytes, truncated_bytes FROM crm.outbox WHERE record_id = ANY($1) ORDER BY seq`,
      [[contactId, companyId]],
    );
    for (const row of rows) {
      expect(row.bytes).toBeLessThanOrEqual(MAX_EVENT_DATA_BYTES);
      expect(row.truncated_bytes).toBeGreaterThan(1024 * 1024);
    }

    expect(await drain(relay({ metrics }))).toBe(2);
    const [contact, company] = (await streamEvents()).slice(before);
    // The contact itself fits: it stays, its sibling arrays go.
    expect(contact.data).toEqual({ contact: { id: contactId, first_name: 'Ada' }, truncated: true });
    // The company embeds what made it too large: only its id stays.
    expect(company.data).toEqual({ company: { id: companyId }, truncated: true });
    expect(await sample(registry, 'crm_outbox_events_truncated_total')).toBe(2);
  });

  it('holds back only the record whose publish failed, retries it later, then publishes that record in order', async () => {
    const x = '5'.repeat(24);
    const y = '6'.repeat(24);
    const x1 = await write(x, 1);
    const x2 = await write(x, 2);
    const y1 = await write(y, 1);
    const js = jetstream(nc);
    let failX1 = true;
    const flaky: OutboxPublisher = {
      publish: async (subject, payload, options) => {
        if (options.msgID === x1 && failX1) throw Object.assign(new Error('timeout'), { name: 'TimeoutError' });
        return js.publish(subject, payload, options);
      },
    };
    const before = (await streamEvents()).length;

    expect(await relay({ publisher: flaky }).relayBatch()).toBe(1);
    expect((await streamEvents()).slice(before).map((e) => e.event_id)).toEqual([y1]);
    const [waiting] = await dataSource.query('SELECT attempts, retry_at > now() AS waiting FROM crm.outbox WHERE event_id = $1', [x1]);
    expect(waiting).toEqual({ attempts: 1, waiting: true });
    // While x1 waits, x2 is not taken.
    expect(await relay({ publisher: flaky }).relayBatch()).toBe(0);

    failX1 = false;
    await dataSource.query('UPDATE crm.outbox SET retry_at = now() WHERE event_id = $1', [x1]);
    expect(await drain(relay({ publisher: flaky }))).toBe(2);
    expect((await streamEvents()).slice(before).map((e) => e.event_id)).toEqual([y1, x1, x2]);
  });

  it(`parks a row after ${MAX_PUBLISH_ATTEMPTS} failed publishes, and a batch that failed whole counts against no row`, async () => {
    const registry = new Registry();
    const metrics = new OutboxMetrics(registry);
    const stuck = await write('7'.repeat(24), 1);
    const fine = await write('8'.repeat(24), 1);
    const down: OutboxPublisher = {
      publish: async () => Promise.reject(Object.assign(new Error('no responders'), { name: 'NoRespondersError' })),
    };

    // Nothing got through: NATS is away, not the rows' fault.
    await expect(relay({ metrics, publisher: down }).relayBatch()).rejects.toThrow('no responders');
    const attempts = await dataSource.query('SELECT attempts FROM crm.outbox WHERE event_id = ANY($1) ORDER BY seq', [[stuck, fine]]);
    expect(attempts).toEqual([{ attempts: 0 }, { attempts: 0 }]);

    // One row keeps failing while others go: after its last try it is parked.
    await dataSource.query('UPDATE crm.outbox SET attempts = $2 WHERE event_id = $1', [stuck, MAX_PUBLISH_ATTEMPTS - 1]);
    const js = jetstream(nc);
    const failStuck: OutboxPublisher = {
      publish: async (subject, payload, options) =>
        options.msgID === stuck
          ? Promise.reject(Object.assign(new Error('timeout'), { name: 'TimeoutError' }))
          : js.publish(subject, payload, options),
    };
    expect(await relay({ metrics, publisher: failStuck }).relayBatch()).toBe(2);
    const [row] = await dataSource.query(
      'SELECT parked_at IS NOT NULL AS parked, attempts, last_error FROM crm.outbox WHERE event_id = $1',
      [stuck],
    );
    expect(row).toEqual({ parked: true, attempts: MAX_PUBLISH_ATTEMPTS, last_error: expect.stringContaining('TimeoutError: timeout') });
    expect(await sample(registry, 'crm_outbox_events_parked_total', { reason: 'retries_exhausted' })).toBe(1);
  });
});
