import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CacheInvalidation, CacheKeys, namespacedSubject, Subjects } from '@crm/contracts';
import { natsClientOptions, natsPermissions, natsServerConfig, NATS_SERVICES, type NatsService } from '@crm/messaging';
import path from 'node:path';
import { REPO_ROOT, startPrivateNats, startPrivateRedis, uniqueNamespace, type PrivateServer } from '@crm/testing';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { calls, setupE2e, type Json } from './setup';
import { startReceiver, until } from './webhook-helpers';

/** deploy/redis/users.acl for `namespace`, with a password per user. */
function redisAcl(namespace: string, passwords: Record<string, string>): string {
  return readFileSync(path.join(REPO_ROOT, 'deploy', 'redis', 'users.acl'), 'utf8')
    .split('\n')
    .map((line) => line.replace('>REPLACE_ME', `>${passwords[line.split(' ')[1]!]}`).replace(/([~&])crm:/g, `$1${namespace}:`))
    .join('\n');
}

/**
 * The four services on a private nats-server with the generated users and permissions, and a
 * private Redis with the users of deploy/redis/users.acl (the machine's shared servers have no
 * users and are never reconfigured): everything works end to end, requests, provisioning, the
 * events stream and webhook deliveries, while each user is held to its own subjects and keys.
 */
describe('the services with their own NATS and Redis users and permissions (e2e)', () => {
  const namespace = uniqueNamespace('perm');
  // A letter first: nats-server parses a $VARIABLE's value, and one that starts like a number is not a string.
  const passwords = Object.fromEntries(NATS_SERVICES.map((s) => [s, `p${randomBytes(18).toString('hex')}`])) as Record<NatsService, string>;
  const redisPasswords = { 'crm-gateway': randomBytes(18).toString('hex'), 'crm-auth': randomBytes(18).toString('hex') };
  let nats: PrivateServer;
  let redis: PrivateServer;
  const redisUrlOf = (user: keyof typeof redisPasswords) => redis.url.replace('redis://', `redis://${user}:${redisPasswords[user]}@`);
  const urlOf = (service: NatsService) => nats.url.replace('nats://', `nats://${service}:${passwords[service]}@`);

  const { services, admin } = setupE2e({
    services: async () => {
      const env = Object.fromEntries(natsPermissions(namespace).map((p) => [p.passwordVariable, passwords[p.user]]));
      nats = await startPrivateNats({ config: natsServerConfig(namespace), env });
      redis = await startPrivateRedis({ acl: redisAcl(namespace, redisPasswords) });
      const redisUrls: Partial<Record<NatsService, string>> = {
        'api-gateway': redisUrlOf('crm-gateway'),
        'auth-server': redisUrlOf('crm-auth'),
      };
      return {
        namespace,
        // crm-core and the dispatcher use no Redis: theirs admits nobody.
        infra: { natsUrl: nats.url, redisUrl: redis.url },
        appEnv: Object.fromEntries(
          NATS_SERVICES.map((s) => [s, { NATS_URL: urlOf(s), ...(redisUrls[s] ? { REDIS_URL: redisUrls[s] } : {}) }]),
        ),
        env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
      };
    },
  });
  const { ok, call } = calls(services);
  const open: NatsConnection[] = [];

  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close().catch(() => undefined)));
    await nats?.destroy();
    await redis?.destroy();
  });

  async function as(service: NatsService): Promise<NatsConnection> {
    const nc = await connect({ ...natsClientOptions(urlOf(service), `test-${service}`), maxReconnectAttempts: 0 });
    open.push(nc);
    return nc;
  }

  it('provisions accounts, answers requests and delivers webhooks from the events stream', async () => {
    // The account of `admin` was provisioned over NATS by the auth-server (crm.accounts.provision).
    expect(await ok(admin, 'GET', `/users/${admin.user.id}`)).toMatchObject({ user: { id: admin.user.id } });
    const receiver = await startReceiver();
    try {
      await ok(admin, 'POST', '/webhooks', { name: 'Sync', hook_url: `${receiver.url}/hook` }, 201);
      // With an Idempotency-Key: the gateway's keys in Redis (gw:idem), besides its rate limits.
      const created = await call(admin)(
        'POST',
        '/contacts',
        { last_name: 'Permitted' },
        { 'idempotency-key': randomBytes(8).toString('hex') },
      );
      expect(created.status).toBe(201);
      const id = (created.body as Json).data.contact.id as string;
      const hook = await until('the contact webhook', () =>
        receiver.received.find((h) => h.json.type === 'contact' && JSON.stringify(h.json.data).includes(id)),
      );
      expect(hook.json.reason).toBe('created');
    } finally {
      await receiver.close();
    }
  });

  it("lets the auth-server change an account's settings in crm-core (crm.accounts.settings.update)", async () => {
    const res = await fetch(`${services.operatorUrl}/operator/accounts/${admin.account.id}/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${services.operatorToken}` },
      body: JSON.stringify({ settings: { time_zone: 'Asia/Tokyo' } }),
    });
    expect(res.status).toBe(200);
    expect((await ok(admin, 'GET', '/bootstrap')).settings.time_zone).toBe('Asia/Tokyo');
  });

  it('asks the auth-server for a credential record Redis does not have', async () => {
    const auth = new Redis(redisUrlOf('crm-auth'), { maxRetriesPerRequest: 1 });
    try {
      await auth.del(CacheKeys.credentials(namespace, admin.user.id));
      // As the auth-server announces every removal: the gateways drop the record they hold in memory.
      expect(await auth.publish(CacheKeys.invalidations(namespace), CacheInvalidation.user(admin.user.id))).toBeGreaterThan(0);
    } finally {
      auth.disconnect();
    }
    // auth.credentials.resolve from the gateway, answered by the auth-server, which puts the record
    // back (once the gateway has heard the announcement, its next request misses its memory).
    const reader = new Redis(redisUrlOf('crm-gateway'), { maxRetriesPerRequest: 1 });
    try {
      await until('the auth-server refills the credential record', async () => {
        expect(await ok(admin, 'GET', '/users')).toBeDefined();
        return (await reader.get(CacheKeys.credentials(namespace, admin.user.id))) !== null;
      });
    } finally {
      reader.disconnect();
    }
  });

  it("does not let the gateway's Redis user write a credential record, nor a client without a user in", async () => {
    const gateway = new Redis(redisUrlOf('crm-gateway'), { maxRetriesPerRequest: 1 });
    const anonymous = new Redis(redis.url, { maxRetriesPerRequest: 1, enableReadyCheck: false, retryStrategy: () => null });
    anonymous.on('error', () => undefined);
    try {
      const key = CacheKeys.credentials(namespace, admin.user.id);
      expect(await gateway.get(key)).not.toBeNull();
      await expect(gateway.set(key, '{"role":"admin"}')).rejects.toThrow(/NOPERM/);
      await expect(gateway.get(`other:${key}`)).rejects.toThrow(/NOPERM/);
      await expect(anonymous.get(key)).rejects.toThrow(/NOAUTH/);
    } finally {
      gateway.disconnect();
      anonymous.disconnect();
    }
  });

  it("does not let the gateway's NATS user read crm-core's requests", async () => {
    const gateway = await as('api-gateway');
    const sub = gateway.subscribe(namespacedSubject(namespace, Subjects.UsersGet));
    expect(String(await sub.closed)).toMatch(/Permissions Violation for Subscription/);
  });

  it("does not let crm-core's NATS user send the gateway's requests", async () => {
    const core = await as('crm-core');
    for (const subject of [Subjects.UsersGet, Subjects.CredentialsResolve, Subjects.WebhooksList])
      await expect(core.request(namespacedSubject(namespace, subject), '{}', { timeout: 2000 })).rejects.toThrow(
        /Permissions Violation for Publish/,
      );
  });

  it("answers a read larger than one NATS message in parts, within crm-core's allowed responses", async () => {
    // 30 notes of 100,000 characters: about 3 MB, four or more messages to the gateway's inbox.
    const contact = (await ok(admin, 'POST', '/contacts', { last_name: 'Long notes' }, 201)).contact.id as string;
    const text = (i: number) => `${i}`.padEnd(100_000, 'n');
    for (let i = 0; i < 30; i += 1) await ok(admin, 'POST', `/contacts/${contact}/notes`, { text: text(i) }, 201);
    const res = await call(admin)<Json>('GET', `/notes?contact_id=${contact}&per_page=100`);
    expect(res.status).toBe(200);
    expect((res.body.data.notes as Json[]).map((n) => n.note.text).sort()).toEqual(Array.from({ length: 30 }, (_v, i) => text(i)).sort());
  });

  it('ran every service without a permission violation', () => {
    for (const proc of services.processes)
      expect({ name: proc.name, violations: /Permissions Violation|NOPERM|NOAUTH/.test(readFileSync(proc.logFile, 'utf8')) }).toEqual({
        name: proc.name,
        violations: false,
      });
  });
});
