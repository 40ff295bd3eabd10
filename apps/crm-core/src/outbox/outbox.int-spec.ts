import 'reflect-metadata';
import { eventsStreamName, type DomainEvent } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createLogger } from '@crm/observability';
import { createTestDatabase, uniqueNamespace, type TestDatabase } from '@crm/testing';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { ensureEventsStream, OutboxRelay, writeEvent } from './outbox';
import { OutboxListener } from './outbox-listener';

const logger = createLogger('outbox-test', 'silent');
const ACCOUNT = 'a'.repeat(24);

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

  afterAll(async () => {
    await (await jetstreamManager(nc)).streams.delete(eventsStreamName(namespace)).catch(() => undefined);
    await nc?.drain();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

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

  it('relays only committed events, each once, with two relays running at once', async () => {
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

    const relays = [new OutboxRelay(dataSource, nc, namespace, logger), new OutboxRelay(dataSource, nc, namespace, logger)];
    const counts = await Promise.all(
      relays.map(async (relay) => {
        let total = 0;
        for (let n = await relay.relayBatch(25); n > 0; n = await relay.relayBatch(25)) total += n;
        return total;
      }),
    );
    expect(counts[0] + counts[1]).toBe(120);

    const events = await streamEvents();
    expect(events).toHaveLength(120);
    expect(new Set(events.map((e) => e.event_id)).size).toBe(120);
    expect(events.some((e) => e.type === 'deal')).toBe(false);
    expect(events[0]).toMatchObject({ account_id: ACCOUNT, type: 'contact', reason: 'created', data: { contact: { id: '0'.repeat(24) } } });
    expect(typeof events[0].timestamp).toBe('number');
    const [{ pending }] = await dataSource.query('SELECT count(*)::int AS pending FROM crm.outbox WHERE published_at IS NULL');
    expect(pending).toBe(0);
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
    const relay = new OutboxRelay(dataSource, nc, namespace, logger);
    expect(await relay.relayBatch()).toBe(1);
    await dataSource.query('UPDATE crm.outbox SET published_at = NULL WHERE event_id = $1', [eventId]);
    expect(await relay.relayBatch()).toBe(1);
    const ack = await jetstream(nc).publish(`${namespace}.events.note.created`, '{}', { msgID: eventId });
    expect(ack.duplicate).toBe(true);
    expect((await streamEvents()).filter((e) => e.event_id === eventId)).toHaveLength(1);
  });

  it('two running relays keep the stream in outbox order, woken by the commit (not by their poll)', async () => {
    const relays = [new OutboxRelay(dataSource, nc, namespace, logger), new OutboxRelay(dataSource, nc, namespace, logger)];
    const listeners = relays.map((relay) => new OutboxListener(db.url, logger, () => relay.wake()));
    listeners.forEach((l) => l.start());
    // Idle polls of a minute: only the NOTIFY of a commit can make them publish in time.
    const loops = relays.map((relay) => relay.run(60_000));
    await new Promise((r) => setTimeout(r, 300)); // the listeners LISTEN
    const before = (await streamEvents()).length;
    const started = Date.now();
    const written: string[] = [];
    for (let batch = 0; batch < 10; batch += 1) {
      await dataSource.transaction(async (m) => {
        for (let i = 0; i < 20; i += 1)
          written.push(
            await writeEvent(m, {
              account_id: ACCOUNT,
              type: 'deal',
              reason: 'updated',
              record_id: 'd'.repeat(24),
              data: { deal: { id: 'd'.repeat(24), n: batch * 20 + i } },
            }),
          );
      });
    }
    const deadline = Date.now() + 5000;
    while ((await streamEvents()).length < before + 200 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(Date.now() - started).toBeLessThan(5000);
    await Promise.all(loops.map((l) => l.stop()));
    await Promise.all(listeners.map((l) => l.stop()));
    const relayed = (await streamEvents()).slice(before).map((e) => e.event_id);
    expect(relayed).toEqual(written);
  });
});
