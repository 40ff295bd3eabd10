import 'reflect-metadata';
import { eventsStreamName } from '@crm/contracts';
import { uniqueNamespace } from '@crm/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureEventsStream } from './outbox';

// EVENTS_STREAM_REPLICAS reaches the server (real NATS: the test infrastructure's single server).
describe('events stream replicas (EVENTS_STREAM_REPLICAS, real NATS)', () => {
  let nc: NatsConnection;
  const namespaces: string[] = [];
  const fresh = () => {
    const ns = uniqueNamespace('stream');
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

  const replicasOf = async (ns: string) => (await (await jetstreamManager(nc)).streams.info(eventsStreamName(ns))).config.num_replicas;

  it('creates the stream with one replica by default, and again (update) without change', async () => {
    const ns = fresh();
    await ensureEventsStream(nc, ns);
    expect(await replicasOf(ns)).toBe(1);
    await ensureEventsStream(nc, ns, 1);
    expect(await replicasOf(ns)).toBe(1);
  });

  it('asks the server for the configured replicas: three are refused by a single, non-clustered server', async () => {
    const ns = fresh();
    // The error is the server's, not a missing stream's: the value was sent and judged.
    await expect(ensureEventsStream(nc, ns, 3)).rejects.toThrow(/replicas > 1 not supported in non-clustered mode/);
  });
});
