import { newId } from '@crm/common';
import { createTestDatabase } from '@crm/testing';
import { openWebhooksDatabase, type WebhooksMediumDatabase } from '../database/webhooks.medium-fixture';
import { DeliveriesRepository } from '../deliveries/deliveries.repository';
import { WebhooksRepository, type WebhookWrite } from './webhooks.repository';

const write = (over: Partial<WebhookWrite> = {}): WebhookWrite => ({
  name: 'Orders',
  hook_url: 'https://hooks.example.com/orders',
  secretkey: 'k1',
  types: ['contact', 'deal'],
  status_id: null,
  active: true,
  ...over,
});

/** The registrations' statements against the real PostgreSQL. */
describe('webhooks repository (real PostgreSQL)', () => {
  let fx: WebhooksMediumDatabase;
  const repo = new WebhooksRepository();
  let deliveries: DeliveriesRepository;

  beforeAll(async () => {
    fx = await openWebhooksDatabase(await createTestDatabase('webhooks_repository'));
    deliveries = new DeliveriesRepository(fx.dataSource);
  });

  afterAll(async () => {
    await fx?.close();
  });

  it("inserts and finds a webhook of its account only; another account's is not found", async () => {
    const account = newId();
    const id = newId();
    await repo.insert(fx.db, { ...write({ status_id: 'ab'.repeat(12) }), id, account_id: account, signing_secret: 'whsec_a' });
    expect(await repo.find(fx.db, account, id)).toEqual({
      id,
      name: 'Orders',
      hook_url: 'https://hooks.example.com/orders',
      secretkey: 'k1',
      types: ['contact', 'deal'],
      status_id: 'ab'.repeat(12),
      active: true,
      created_at: expect.any(Date),
      modified_at: expect.any(Date),
      signing_secret: 'whsec_a',
    });
    expect(await repo.find(fx.db, newId(), id)).toBeUndefined();
  });

  it('counts and pages an account in creation order, and nothing of other accounts', async () => {
    const account = newId();
    const ids: string[] = [];
    for (let n = 0; n < 5; n += 1) ids.push(await fx.newWebhook(account, { name: `Hook ${n}` }));
    await fx.newWebhook(newId());
    expect(await repo.count(fx.db, account)).toBe(5);
    expect((await repo.page(fx.db, account, 2, 0)).map((r) => r.id)).toEqual(ids.slice(0, 2));
    expect((await repo.page(fx.db, account, 2, 4)).map((r) => r.id)).toEqual(ids.slice(4));
    expect(await repo.page(fx.db, account, 2, 6)).toEqual([]);
  });

  it('updates the writable columns and moves modified_at, leaving created_at and the secret', async () => {
    const account = newId();
    const id = await fx.newWebhook(account);
    const before = (await repo.find(fx.db, account, id))!;
    await repo.update(fx.db, id, write({ name: 'Renamed', types: ['note'], status_id: 'cd'.repeat(12), active: false, secretkey: 'k2' }));
    const after = (await repo.find(fx.db, account, id))!;
    expect(after).toMatchObject({ name: 'Renamed', types: ['note'], status_id: 'cd'.repeat(12), active: false, secretkey: 'k2' });
    expect(after.created_at).toEqual(before.created_at);
    expect(after.signing_secret).toBe(before.signing_secret);
    expect(after.modified_at.getTime()).toBeGreaterThan(before.modified_at.getTime());
  });

  it('holds a second lock on the same account until the first transaction ends; other accounts pass', async () => {
    const account = newId();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const firstLocked = new Promise<void>((resolve) => (locked = resolve));
    const first = fx.dataSource.transaction(async (tx) => {
      await repo.lockAccount(tx, account);
      locked();
      await held;
    });
    await firstLocked;
    // Another account is not held up.
    await fx.dataSource.transaction((tx) => repo.lockAccount(tx, newId()));
    let secondDone = false;
    const second = fx.dataSource.transaction(async (tx) => {
      await repo.lockAccount(tx, account);
      secondDone = true;
    });
    // The second waits on the advisory lock (PostgreSQL shows it not granted) while the first holds it.
    for (;;) {
      const [{ waiting }] = await fx.dataSource.query(
        `SELECT count(*)::int AS waiting FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      );
      if (waiting > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(secondDone).toBe(false);
    release();
    await first;
    await second;
    expect(secondDone).toBe(true);
  });

  it('rotates the secret: the previous one signs too until the overlap ends', async () => {
    const account = newId();
    const id = await fx.newWebhook(account);
    const old = (await repo.find(fx.db, account, id))!.signing_secret;
    await repo.rotateSecret(fx.db, id, 'whsec_new', '24 hours');
    expect((await repo.find(fx.db, account, id))!.signing_secret).toBe('whsec_new');
    const [target] = await deliveries.activeWebhooksOf([account]);
    expect(target.secrets).toEqual(['whsec_new', old]);
    const [{ hours }] = await fx.dataSource.query(
      `SELECT round(extract(epoch FROM previous_secret_expires_at - now()) / 3600)::int AS hours FROM webhooks.webhooks WHERE id = $1`,
      [id],
    );
    expect(hours).toBe(24);
    // An overlap that has ended: only the current secret signs.
    await repo.rotateSecret(fx.db, id, 'whsec_newer', '-1 second');
    expect((await deliveries.activeWebhooksOf([account]))[0].secrets).toEqual(['whsec_newer']);
  });

  describe('with deliveries', () => {
    async function deliveriesOf(webhookId: string, statuses: Array<'claimed' | 'pending' | 'delivered'>): Promise<string[]> {
      const ids = statuses.map(() => newId());
      // Each delivery its own event (one delivery per event and webhook).
      for (const [n, status] of statuses.entries()) {
        const eventId = newId();
        await deliveries.ingest(
          [
            {
              event_id: eventId,
              account_id: newId(),
              type: 'contact',
              reason: 'created',
              record_id: newId(),
              timestamp: 1,
              published_at_ms: Date.now(),
              stream_seq: n + 1,
              data_json: '{}',
              request_id: null,
              traceparent: null,
            },
          ],
          [{ id: ids[n], event_id: eventId, webhook_id: webhookId, record_id: newId(), event_seq: n + 1, claim: status !== 'pending' }],
          4242,
        );
        if (status === 'delivered')
          await deliveries.recordAttempts([
            {
              delivery_id: ids[n],
              claim_key: 4242,
              status: 'delivered',
              attempted_at: new Date(),
              duration_ms: 3,
              response_code: 200,
              error: null,
              delay_ms: null,
            },
          ]);
      }
      return ids;
    }

    const statusOf = async (ids: string[]) =>
      (
        await fx.dataSource.query<Array<{ id: string; status: string; last_error: string | null }>>(
          'SELECT id, status, last_error FROM webhooks.deliveries WHERE id = ANY($1)',
          [ids],
        )
      ).sort((a, b) => ids.indexOf(a.id) - ids.indexOf(b.id));

    it('fails the pending deliveries nobody attempts, not the one being attempted nor those finished', async () => {
      const id = await fx.newWebhook(newId());
      const other = await fx.newWebhook(newId());
      const ids = await deliveriesOf(id, ['pending', 'claimed', 'delivered']);
      const [untouched] = await deliveriesOf(other, ['pending']);
      await repo.failPendingDeliveries(fx.db, id, 'webhook switched off');
      expect(await statusOf([...ids, untouched])).toEqual([
        { id: ids[0], status: 'failed', last_error: 'webhook switched off' },
        { id: ids[1], status: 'pending', last_error: null },
        { id: ids[2], status: 'delivered', last_error: null },
        { id: untouched, status: 'pending', last_error: null },
      ]);
    });

    it('deletes a webhook with its deliveries', async () => {
      const account = newId();
      const id = await fx.newWebhook(account);
      const ids = await deliveriesOf(id, ['pending', 'delivered']);
      await repo.delete(fx.db, id);
      expect(await repo.find(fx.db, account, id)).toBeUndefined();
      expect(await statusOf(ids)).toEqual([]);
    });
  });
});
