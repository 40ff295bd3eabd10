import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import pg from 'pg';
import { openWebhooksDatabase, type WebhooksMediumDatabase } from '../database/webhooks.medium-fixture';
import { DeliveriesRepository } from './deliveries.repository';
import {
  DUE_CHANNEL,
  freeClaimsOf,
  listenForDispatcherNotifications,
  lockReplicaKey,
  notifyDue,
  tryLockReplicaKey,
  unlockReplicaKey,
  WEBHOOKS_CHANGED_CHANNEL,
} from './replica-session.repository';

/** A replica's own session against the real PostgreSQL: its locks, notifications and freeing a dead replica's claims. */
describe('replica session repository (real PostgreSQL)', () => {
  let fx: WebhooksMediumDatabase;
  const sessions: pg.Client[] = [];

  async function session(): Promise<pg.Client> {
    const client = new pg.Client({ connectionString: fx.url });
    await client.connect();
    sessions.push(client);
    return client;
  }

  beforeAll(async () => {
    fx = await openWebhooksDatabase(await createTestDatabase('webhooks_replica_session'));
  });

  afterAll(async () => {
    for (const client of sessions) await client.end().catch(() => undefined);
    await fx?.close();
  });

  it("holds a replica's key for its session: others see it taken until the session ends", async () => {
    const replica = await session();
    const other = await session();
    await lockReplicaKey(replica, 7);
    expect(await tryLockReplicaKey(other, 7)).toBe(false);
    expect(await tryLockReplicaKey(other, 8)).toBe(true);
    await unlockReplicaKey(other, 8);
    await replica.end();
    // The server drops the session's locks as its backend exits, just after the client has closed.
    while (!(await tryLockReplicaKey(other, 7))) await new Promise((r) => setTimeout(r, 10));
    // Now the other holds it: a third waits for it until it is unlocked.
    const third = await session();
    expect(await tryLockReplicaKey(third, 7)).toBe(false);
    await unlockReplicaKey(other, 7);
    expect(await tryLockReplicaKey(third, 7)).toBe(true);
  });

  it('hears due deliveries from another replica and webhook changes from the trigger', async () => {
    const listener = await session();
    await listenForDispatcherNotifications(listener);
    const heard: Array<{ channel: string; payload?: string }> = [];
    const wait = (n: number) =>
      new Promise<void>((resolve) => {
        const check = () => (heard.length >= n ? resolve() : undefined);
        listener.on('notification', (m) => {
          heard.push({ channel: m.channel, payload: m.payload });
          check();
        });
        check();
      });
    const two = wait(2);
    await notifyDue(await session());
    const account = newId();
    await fx.newWebhook(account);
    await two;
    expect(heard).toEqual([
      { channel: DUE_CHANNEL, payload: '' },
      { channel: WEBHOOKS_CHANGED_CHANNEL, payload: account },
    ]);
  });

  it('frees the claims of one replica only, and says how many', async () => {
    const deliveries = new DeliveriesRepository(fx.dataSource);
    const hook = await fx.newWebhook(newId());
    const claim = async (key: number) => {
      const e = { event_id: newId(), record_id: newId() };
      await deliveries.ingest(
        [
          {
            ...e,
            account_id: newId(),
            type: 'contact',
            reason: 'created',
            timestamp: 1,
            published_at_ms: Date.now(),
            stream_seq: 1,
            data_json: '{}',
            request_id: null,
            traceparent: null,
          },
        ],
        [{ id: newId(), ...e, webhook_id: hook, event_seq: 1, claim: true }],
        key,
      );
    };
    await claim(11);
    await claim(11);
    await claim(12);
    expect(await freeClaimsOf(await session(), 11)).toBe(2);
    expect(await deliveries.claimHolders(0)).toEqual([12]);
  });
});
