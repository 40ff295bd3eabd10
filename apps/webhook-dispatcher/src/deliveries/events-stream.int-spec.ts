import 'reflect-metadata';
import { eventsStreamName, WEBHOOK_DISPATCHER_CONSUMER } from '@crm/contracts';
import { uniqueNamespace } from '@crm/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureDispatcherConsumer } from './event-ingestor';

// EVENTS_STREAM_REPLICAS when the dispatcher creates the stream first (real NATS: the test
// infrastructure's single server).
describe('the events stream created by the dispatcher (EVENTS_STREAM_REPLICAS, real NATS)', () => {
  let nc: NatsConnection;
  const namespaces: string[] = [];
  const fresh = () => {
    const ns = uniqueNamespace('dstream');
    namespaces.push(ns);
    return ns;
  };

  beforeAll(async () => {
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
  });

  afterAll(async () => {
    const jsm = await jetstreamManager(nc);
    for (const ns of namespaces) await jsm.streams.delete(eventsStreamName(ns)).catch(() => undefined);
    await nc?.drain();
  });

  it('creates the stream with one replica by default and its durable consumer inherits it', async () => {
    const ns = fresh();
    await ensureDispatcherConsumer(nc, ns);
    await ensureDispatcherConsumer(nc, ns, 1); // idempotent
    const jsm = await jetstreamManager(nc);
    expect((await jsm.streams.info(eventsStreamName(ns))).config.num_replicas).toBe(1);
    expect((await jsm.consumers.info(eventsStreamName(ns), WEBHOOK_DISPATCHER_CONSUMER)).config.num_replicas ?? 0).toBe(0);
  });

  it('asks the server for the configured replicas: three are refused by a single, non-clustered server', async () => {
    // The server's own error, not a missing stream's: the value was sent and judged.
    await expect(ensureDispatcherConsumer(nc, fresh(), 3)).rejects.toThrow(/replicas > 1 not supported in non-clustered mode/);
  });
});
