import { api, resolveTestInfra, startPrivateNats, type PrivateServer } from '@crm/testing';
import { Client } from 'pg';
import { setupE2e } from './setup';
import { metric, spawnDispatcher, startReceiver, until, type ExtraDispatcher } from './webhook-helpers';

/**
 * Delivery faults with real processes on a private NATS server (the machine's shared one is never
 * stopped): a dispatcher killed with SIGKILL mid-burst, and NATS stopped during a burst of API
 * writes. Every committed event must reach the receiver at least once.
 */
describe('webhook delivery faults (e2e)', () => {
  let nats: PrivateServer;
  let extra: ExtraDispatcher;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  // Declared before setupE2e: the extra dispatcher stops before the services do.
  afterAll(async () => {
    await extra?.stop();
  });

  const { services, admin: account } = setupE2e({
    services: async () => {
      nats = await startPrivateNats();
      return {
        infra: { natsUrl: nats.url },
        env: { WEBHOOK_RETRY_SCALE: '0.001', RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_CONCURRENT: '1000' },
      };
    },
  });

  beforeAll(async () => {
    receiver = await startReceiver();
    extra = await spawnDispatcher(services, nats.url, resolveTestInfra().redisUrl, { WEBHOOK_RETRY_SCALE: '0.001' });
  });

  afterAll(async () => {
    await receiver?.close();
    await nats?.destroy();
  });

  const call = () => api(services, account);
  const recordIds = (path: string) =>
    receiver
      .on(path)
      .map((h) => (h.json.data.note as { id: string } | undefined)?.id ?? (h.json.data.contact as { id: string } | undefined)?.id);

  it('SIGKILL of the ingesting dispatcher mid-burst of 1,000 API writes: every event still delivered, none missing', async () => {
    const hook = await call()<{ data: { webhook: { id: string } } }>('POST', '/webhooks', {
      name: 'Burst',
      hook_url: `${receiver.url}/burst`,
      types: ['note'],
    });
    expect(hook.status).toBe(201);
    const contact = await call()<{ data: { contact: { id: string } } }>('POST', '/contacts', { last_name: 'Noted' });
    expect(contact.status).toBe(201);
    const harness = services.processes.find((p) => p.app === 'webhook-dispatcher')!;
    const ingesting = await until('one replica ingests', async () => {
      if ((await metric(harness.metricsPort, 'webhook_dispatcher_ingesting')) === 1) return 'harness';
      if ((await metric(extra.metricsPort, 'webhook_dispatcher_ingesting')) === 1) return 'extra';
      return null;
    });

    // 1,000 notes written through the API by four writers; every write must succeed (only the dispatcher is hit).
    const ids: string[] = [];
    let next = 0;
    let killed = false;
    const writer = async () => {
      while (next < 1000) {
        const n = (next += 1);
        const res = await call()<{ data: { note: { id: string } } }>('POST', '/notes', {
          contact_id: contact.body.data.contact.id,
          text: `Burst ${n}`,
        });
        if (res.status !== 201) throw new Error(`POST /notes answered ${res.status}: ${res.text}`);
        ids.push(res.body.data.note.id);
      }
    };
    const burst = Promise.all([writer(), writer(), writer(), writer()]);
    burst.catch(() => undefined); // awaited below; never an unhandled rejection if an earlier step fails
    await until('a quarter of the burst delivered', () => new Set(recordIds('/burst')).size >= 250, 30_000, 5);
    expect(new Set(recordIds('/burst')).size).toBeLessThan(1000);
    if (ingesting === 'harness') await harness.stop('SIGKILL');
    else await extra.stop('SIGKILL');
    killed = true;
    await burst;
    expect(ids).toHaveLength(1000);

    await until('all 1,000 events delivered', () => new Set(recordIds('/burst')).size === 1000, 90_000, 100);
    const got = recordIds('/burst');
    expect([...new Set(got)].sort()).toEqual([...ids].sort());
    // At least once: an attempt cut off by the kill may come again (the receiver drops it by webhook-id).
    const duplicates = got.length - new Set(got).size;
    process.stderr.write(`[webhook-faults] SIGKILL mid-burst: ${got.length} requests for 1000 events, ${duplicates} duplicates\n`);
    expect(killed).toBe(true);
    expect(duplicates).toBeLessThan(1000);
  });

  it('NATS stopped during a burst of writes: writes answer 503 meanwhile, every committed event is delivered once NATS is back', async () => {
    expect((await call()('POST', '/webhooks', { name: 'Contacts', hook_url: `${receiver.url}/nats`, types: ['contact'] })).status).toBe(
      201,
    );
    const writes: Array<{ status: number; id?: string }> = [];
    let running = true;
    let n = 0;
    const writer = async () => {
      while (running) {
        const res = await call()<{ data: { contact: { id: string } } }>('POST', '/contacts', { last_name: `Burst ${(n += 1)}` }).catch(
          () => ({ status: -1, body: undefined }),
        );
        writes.push({ status: res.status, id: res.status === 201 ? res.body?.data.contact.id : undefined });
        if (res.status !== 201) await new Promise((r) => setTimeout(r, 50));
      }
    };
    const loops = [writer(), writer()];
    try {
      await until('writes flow', () => writes.filter((w) => w.status === 201).length >= 20, 20_000);
      await nats.stop();
      const downFrom = writes.length;
      await until('writes fail while NATS is down', () => writes.slice(downFrom).filter((w) => w.status === 503).length >= 3, 20_000);
      await new Promise((r) => setTimeout(r, 1500));
      await nats.start();
      const upFrom = writes.length;
      await until('writes succeed again', () => writes.slice(upFrom).filter((w) => w.status === 201).length >= 20, 60_000);
    } finally {
      // Also when a step above fails: the writers stop, so the file can end.
      running = false;
      await Promise.all(loops);
    }

    expect(new Set(writes.map((w) => w.status)).size).toBeGreaterThan(1);
    for (const w of writes) expect([201, 503]).toContain(w.status);

    // Nothing half-done: every stored contact has its event, whatever the client was answered.
    const db = new Client({ connectionString: services.database.url });
    await db.connect();
    const committed: string[] = // This test's contacts ("Burst <n>"; the note burst before wrote one contact of its own).
      (
        await db.query(
          `SELECT o.record_id FROM crm.outbox o JOIN crm.contacts c ON c.id = o.record_id
         WHERE o.account_id = $1 AND o.type = 'contact' AND o.reason = 'created' AND c.last_name LIKE 'Burst %'`,
          [account.account.id],
        )
      ).rows.map((r) => r.record_id);
    const [{ orphans }] = (
      await db.query(
        `SELECT count(*)::int AS orphans FROM crm.contacts c WHERE c.account_id = $1 AND NOT EXISTS (SELECT 1 FROM crm.outbox o WHERE o.record_id = c.id AND o.type = 'contact')`,
        [account.account.id],
      )
    ).rows;
    await db.end();
    expect(orphans).toBe(0);
    const acknowledged = writes.filter((w) => w.status === 201).map((w) => w.id!);
    expect(acknowledged.filter((id) => !committed.includes(id))).toEqual([]);

    await until('every committed event delivered', () => committed.every((id) => recordIds('/nats').includes(id)), 60_000, 100);
    expect(committed.length).toBeGreaterThanOrEqual(acknowledged.length);
  });
});
