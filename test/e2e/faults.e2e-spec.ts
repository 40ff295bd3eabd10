import { api, startPrivateNats, startPrivatePostgres, startPrivateRedis, type PrivateServer } from '@crm/testing';
import { setupE2e } from './setup';

/**
 * Dependency restarts under steady load, on private PostgreSQL, Redis and NATS instances (never the
 * machine's shared ones): the services reconnect by themselves, readiness goes false and back,
 * every write answered 2xx is stored, and every failed request got a clear 503.
 */
describe('PostgreSQL, Redis and NATS restarts under load (e2e)', () => {
  let pg: PrivateServer;
  let redis: PrivateServer;
  let nats: PrivateServer;
  const writes: Array<{ name: string; status: number; phase: string }> = [];
  const reads: Array<{ status: number; phase: string }> = [];
  let phase = 'steady';
  let running = true;
  let loops: Promise<void>[] = [];

  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  const portOf = (name: string) => services.processes.find((p) => p.name === name)!.port;
  const ready = async (port: number) => {
    try {
      return (await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2000) })).status === 200;
    } catch {
      return false;
    }
  };
  async function until(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await check()) return;
      await sleep(100);
    }
    throw new Error(`${what}: not within ${timeoutMs} ms`);
  }

  // Declared before setupE2e: the load loops end before the services stop.
  afterAll(async () => {
    running = false;
    await Promise.all(loops);
  });

  const { services, admin: account } = setupE2e({
    services: async () => {
      [pg, redis, nats] = await Promise.all([startPrivatePostgres(), startPrivateRedis(), startPrivateNats()]);
      // Rate limits are not under test here: the load loops would reach the default per-user ceiling.
      return {
        crmCoreReplicas: 1,
        infra: { databaseUrl: pg.url, redisUrl: redis.url, natsUrl: nats.url },
        env: { RATE_LIMIT_PER_MINUTE: '1000000' },
      };
    },
  });

  beforeAll(async () => {
    const client = api(services, account);
    let n = 0;
    const writer = async () => {
      while (running) {
        const name = `field-${(n += 1)}`;
        const current = phase;
        const res = await client('POST', '/custom_fields', { name, type: 'text' }).catch(() => ({ status: -1 }));
        writes.push({ name, status: res.status, phase: current });
        if (res.status !== 201) await sleep(50);
      }
    };
    const reader = async () => {
      while (running) {
        const current = phase;
        const res = await client('GET', `/users/${account.user.id}`).catch(() => ({ status: -1 }));
        reads.push({ status: res.status, phase: current });
        if (res.status !== 200) await sleep(50);
      }
    };
    loops = [writer(), writer(), reader()];
  });

  afterAll(async () => {
    await Promise.all([pg, redis, nats].map((s) => s?.destroy()));
  });

  async function restart(server: PrivateServer, watched: string): Promise<void> {
    await sleep(1000);
    phase = `${server.name} down`;
    await server.stop();
    try {
      await until(`${watched} reports not ready while ${server.name} is down`, async () => !(await ready(portOf(watched))), 10_000);
      await sleep(1500);
    } finally {
      await server.start();
    }
    phase = `${server.name} back`;
    await until(
      `every service ready again after ${server.name} restarted`,
      async () => (await Promise.all(services.processes.map((p) => ready(p.port)))).every(Boolean),
      30_000,
    );
    const writesBefore = writes.length;
    await until(
      `writes succeed again after ${server.name} restarted`,
      async () => writes.slice(writesBefore).some((w) => w.status === 201),
      15_000,
    );
    phase = 'steady';
  }

  it('survives a Redis restart (the auth-server, which needs Redis, is not ready meanwhile)', async () => {
    await restart(redis, 'auth-server');
  });

  it('survives a NATS restart (readiness of crm-core drops and returns)', async () => {
    await restart(nats, 'crm-core');
  });

  it('survives a PostgreSQL restart (readiness of crm-core drops and returns)', async () => {
    await restart(pg, 'crm-core');
  });

  it('lost no acknowledged write and answered every failure with 503', async () => {
    running = false;
    await Promise.all(loops);
    const statuses = new Set([...writes, ...reads].map((r) => r.status));
    for (const status of statuses) expect([200, 201, 503]).toContain(status);
    expect(writes.filter((w) => w.status === 201).length).toBeGreaterThan(20);
    expect(reads.filter((r) => r.status === 200).length).toBeGreaterThan(20);

    const stored = new Set<string>();
    for (let page = 1; ; page += 1) {
      const res = await api(services, account)<{ data: { custom_fields: Array<{ custom_field: { name: string } }>; max_page: number } }>(
        'GET',
        `/custom_fields?per_page=100&page=${page}`,
      );
      expect(res.status).toBe(200);
      for (const f of res.body.data.custom_fields) stored.add(f.custom_field.name);
      if (page >= res.body.data.max_page) break;
    }
    const acknowledged = writes.filter((w) => w.status === 201).map((w) => w.name);
    expect(acknowledged.filter((name) => !stored.has(name))).toEqual([]);
    // Failed writes may or may not have been stored (the reply can be lost after the commit), never twice.
    expect(stored.size).toBeLessThanOrEqual(writes.length);
  });
});
