import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { CacheKeys, namespacedSubject, Subjects } from '@crm/contracts';
import { natsClientOptions, natsPermissions, natsServerConfig, NATS_SERVICES, type NatsService } from '@crm/messaging';
import { resolveTestInfra, startPrivateNats, uniqueNamespace, type PrivateServer } from '@crm/testing';
import { Redis } from 'ioredis';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { calls, setupE2e, type Json } from './setup';
import { startReceiver, until } from './webhook-helpers';

/**
 * The four services on a private nats-server with the generated users and permissions (the
 * machine's shared NATS has no users and is never reconfigured): everything works end to end,
 * requests, provisioning, the events stream and webhook deliveries, while each user is held to
 * its own subjects.
 */
describe('the services with per-service NATS users and permissions (e2e)', () => {
  const namespace = uniqueNamespace('perm');
  // A letter first: nats-server parses a $VARIABLE's value, and one that starts like a number is not a string.
  const passwords = Object.fromEntries(NATS_SERVICES.map((s) => [s, `p${randomBytes(18).toString('hex')}`])) as Record<NatsService, string>;
  let nats: PrivateServer;
  const urlOf = (service: NatsService) => nats.url.replace('nats://', `nats://${service}:${passwords[service]}@`);

  const { services, admin } = setupE2e({
    services: async () => {
      const env = Object.fromEntries(natsPermissions(namespace).map((p) => [p.passwordVariable, passwords[p.user]]));
      nats = await startPrivateNats({ config: natsServerConfig(namespace), env });
      return {
        namespace,
        infra: { natsUrl: nats.url },
        appEnv: Object.fromEntries(NATS_SERVICES.map((s) => [s, { NATS_URL: urlOf(s) }])),
        env: { WEBHOOK_ALLOW_PRIVATE: 'true' },
      };
    },
  });
  const { ok } = calls(services);
  const open: NatsConnection[] = [];

  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close().catch(() => undefined)));
    await nats?.destroy();
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
      const contact = (await ok(admin, 'POST', '/contacts', { last_name: 'Permitted' }, 201)) as Json;
      const id = contact.contact.id as string;
      const hook = await until('the contact webhook', () =>
        receiver.received.find((h) => h.json.type === 'contact' && JSON.stringify(h.json.data).includes(id)),
      );
      expect(hook.json.reason).toBe('created');
    } finally {
      await receiver.close();
    }
  });

  it('asks the auth-server for a credential record Redis does not have', async () => {
    const redis = new Redis(resolveTestInfra().redisUrl, { maxRetriesPerRequest: 1 });
    try {
      await redis.del(CacheKeys.credentials(namespace, admin.user.id));
    } finally {
      redis.disconnect();
    }
    // auth.credentials.resolve from the gateway, answered by the auth-server.
    expect(await ok(admin, 'GET', '/users')).toBeDefined();
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

  it('ran every service without a permission violation', () => {
    for (const proc of services.processes)
      expect({ name: proc.name, violations: /Permissions Violation/.test(readFileSync(proc.logFile, 'utf8')) }).toEqual({
        name: proc.name,
        violations: false,
      });
  });
});
