import { eventsStreamName } from '@crm/contracts';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { getFreePort, resolveTestInfra, uniqueNamespace } from './infra';
import { deleteEventsStream } from './streams';

describe('deleteEventsStream (real NATS)', () => {
  const { natsUrl } = resolveTestInfra();
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl });
  });
  afterAll(async () => nc?.close());

  it("removes a namespace's events stream and leaves the others", async () => {
    const jsm = await jetstreamManager(nc);
    const [gone, kept] = [uniqueNamespace('del'), uniqueNamespace('keep')];
    for (const ns of [gone, kept]) await jsm.streams.add({ name: eventsStreamName(ns), subjects: [`${ns}.events.>`] });
    await deleteEventsStream(natsUrl, gone);
    await expect(jsm.streams.info(eventsStreamName(gone))).rejects.toThrow();
    await expect(jsm.streams.info(eventsStreamName(kept))).resolves.toMatchObject({ config: { name: eventsStreamName(kept) } });
    await jsm.streams.delete(eventsStreamName(kept));
  });

  it('never throws: no such stream, or no server', async () => {
    await expect(deleteEventsStream(natsUrl, uniqueNamespace('none'))).resolves.toBeUndefined();
    await expect(deleteEventsStream(`nats://127.0.0.1:${await getFreePort()}`, 'x')).resolves.toBeUndefined();
  });
});
