import { randomBytes } from 'node:crypto';
import { eventSubject, namespacedSubject, RPC_REPLY_LIMITS, Subjects } from '@crm/contracts';
import { startPrivateNats, uniqueNamespace, type PrivateServer } from '@crm/testing';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { natsClientOptions } from './nats-connection';
import { inboxPrefixOf, natsPermissions, natsServerConfig, NATS_SERVICES, type NatsService } from './nats-permissions';

/**
 * The generated nats.conf on a private nats-server (the machine's shared NATS runs without users
 * and is never reconfigured): each service's user may do what the service does, and nothing a
 * forger would need.
 */
describe('NATS users and permissions (private nats-server)', () => {
  const namespace = uniqueNamespace('perm');
  // A letter first: nats-server parses a $VARIABLE's value, and one that starts like a number is not a string.
  const passwords = Object.fromEntries(NATS_SERVICES.map((s) => [s, `p${randomBytes(18).toString('hex')}`])) as Record<NatsService, string>;
  const subject = (s: string) => namespacedSubject(namespace, s);
  let nats: PrivateServer;
  const open: NatsConnection[] = [];

  /** A connection as `service`, through NATS_URL with its credentials (as the services connect). */
  async function as(service: NatsService): Promise<NatsConnection> {
    const url = nats.url.replace('nats://', `nats://${service}:${passwords[service]}@`);
    const nc = await connect({ ...natsClientOptions(url, `test-${service}`), waitOnFirstConnect: false, maxReconnectAttempts: 0 });
    open.push(nc);
    return nc;
  }

  /** Resolves with the first permission error the connection reports. */
  function violation(nc: NatsConnection): Promise<string> {
    return (async () => {
      for await (const status of nc.status()) if (status.type === 'error') return String((status as { error?: unknown }).error);
      return 'closed without an error';
    })();
  }

  beforeAll(async () => {
    const env = Object.fromEntries(natsPermissions(namespace).map((p) => [p.passwordVariable, passwords[p.user]]));
    nats = await startPrivateNats({ config: natsServerConfig(namespace), env });
  });

  afterAll(async () => {
    await Promise.all(open.map((nc) => nc.close().catch(() => undefined)));
    await nats?.destroy();
  });

  it('refuses a client without a user, or with a wrong password', async () => {
    await expect(connect({ servers: nats.url, maxReconnectAttempts: 0 })).rejects.toThrow(/Authorization Violation/);
    const wrong = nats.url.replace('nats://', 'nats://api-gateway:wrong@');
    await expect(connect({ ...natsClientOptions(wrong, 'test'), waitOnFirstConnect: false, maxReconnectAttempts: 0 })).rejects.toThrow(
      /Authorization Violation/,
    );
  });

  it('lets the gateway ask crm-core, which answers in its queue group, the reply coming to the gateway inbox', async () => {
    const core = await as('crm-core');
    core.subscribe(subject(Subjects.UsersGet), {
      queue: 'crm-core',
      callback: (_e, msg) => {
        msg.respond('answer');
      },
    });
    await core.flush();
    const gateway = await as('api-gateway');
    expect((await gateway.request(subject(Subjects.UsersGet), 'question', { timeout: 2000 })).string()).toBe('answer');
  });

  it('lets crm-core answer one request in up to RPC_REPLY_LIMITS.maxParts messages (a reply in parts), and no more', async () => {
    const core = await as('crm-core');
    const refused = violation(core);
    core.subscribe(subject(Subjects.ContactsList), {
      queue: 'crm-core',
      callback: (_e, msg) => {
        for (let part = 0; part <= RPC_REPLY_LIMITS.maxParts; part += 1) core.publish(msg.reply!, String(part));
      },
    });
    await core.flush();
    const gateway = await as('api-gateway');
    const inbox = `${inboxPrefixOf('api-gateway')}.parts`;
    const received: string[] = [];
    gateway.subscribe(inbox, {
      callback: (_e, msg) => {
        received.push(msg.string());
      },
    });
    await gateway.flush();
    gateway.publish(subject(Subjects.ContactsList), 'question', { reply: inbox });
    // Bounded: without the limit no violation would ever come.
    expect(await Promise.race([refused, new Promise((resolve) => setTimeout(() => resolve('no violation within 5 s'), 5000))])).toMatch(
      /Permissions Violation/i,
    );
    await gateway.flush();
    expect(received).toEqual(Array.from({ length: RPC_REPLY_LIMITS.maxParts }, (_v, part) => String(part)));
  });

  it('does not let the gateway read the requests of crm-core', async () => {
    const gateway = await as('api-gateway');
    const sub = gateway.subscribe(subject(Subjects.UsersGet));
    expect(String(await sub.closed)).toMatch(/Permissions Violation for Subscription to "[^"]*crm\.users\.get\.v1"/);
  });

  it('does not let crm-core send as the gateway, nor read the gateway inbox or the requests of other services', async () => {
    const core = await as('crm-core');
    for (const s of [Subjects.CredentialsResolve, Subjects.WebhooksList]) {
      await expect(core.request(subject(s), '{}', { timeout: 1000 })).rejects.toThrow(/Permissions Violation for Publish/);
    }
    // Not even a crm subject: crm-core answers requests, it never sends them.
    await expect(core.request(subject(Subjects.UsersGet), '{}', { timeout: 1000 })).rejects.toThrow(/Permissions Violation for Publish/);
    for (const forbidden of ['_INBOX.api-gateway.>', subject(Subjects.CredentialsResolve), '>']) {
      const sub = core.subscribe(forbidden);
      expect(String(await sub.closed)).toMatch(/Permissions Violation for Subscription/);
    }
  });

  it('lets only the auth-server provision users, and only crm-core publish events', async () => {
    const gateway = await as('api-gateway');
    await expect(gateway.request(subject(Subjects.UsersProvision), '{}', { timeout: 1000 })).rejects.toThrow(/Permissions Violation/);
    const dispatcher = await as('webhook-dispatcher');
    const refused = violation(dispatcher);
    dispatcher.publish(eventSubject(namespace, 'contact', 'created'), '{}');
    expect(await refused).toMatch(/Permissions Violation for Publish to "[^"]*\.events\.contact\.created"/);
  });
});
