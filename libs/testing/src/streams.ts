import 'reflect-metadata';
import { eventsStreamName } from '@crm/contracts';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';

/**
 * Deletes the events stream of a test or benchmark system's namespace, so the shared NATS does not
 * keep one stream (and its messages) per run. Never throws: a server already gone, or a stream
 * never made, leaves nothing to delete.
 */
export async function deleteEventsStream(natsUrl: string, namespace: string): Promise<void> {
  const nc = await connect({ servers: natsUrl, timeout: 2000, reconnect: false }).catch(() => undefined);
  if (!nc) return;
  try {
    const jsm = await jetstreamManager(nc);
    await jsm.streams.delete(eventsStreamName(namespace));
  } catch {
    // no stream, or no JetStream on that server
  } finally {
    await nc.close().catch(() => undefined);
  }
}
