import { auth as sdkAuth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { basicAuth, createAccount, createUser, type CreatedAccount } from '@crm/testing';
import { Webhook } from 'standardwebhooks';
import { registerPublicClient, restAccessToken, signInAndConsent, TEST_REDIRECT_URI } from '../e2e/oauth-helpers';
import { startReceiver, until } from '../e2e/webhook-helpers';
import { checkDrill, describeFigures, type DrillFigures } from './drill-checks';
import { progress, REPLICAS, SUBSTITUTIONS, type App, type Topology, startTopology } from './topology';
import { ReadProbe, WriteLoad } from './write-load';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Json = any;

const PASSWORD = 'correct horse battery staple';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An assistant's OAuth state for the MCP SDK's own auth(): PKCE, the token kept in memory. */
class AssistantAuth implements OAuthClientProvider {
  authorizationUrl?: URL;
  private verifier = '';
  private saved?: OAuthTokens;
  constructor(private readonly client: OAuthClientInformationMixed) {}
  get redirectUrl() {
    return TEST_REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'Topology assistant', redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: 'none', scope: 'mcp' };
  }
  clientInformation() {
    return this.client;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrl = url;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
}

/**
 * The production shape (deploy/k8s/overlays/production, deploy/redis, deploy/postgres) as
 * processes on loopback (topology.ts), one journey through it over HTTP, and four fault drills
 * under a steady write load (~50 notes/s, each with an Idempotency-Key, retried as a careful
 * client does). After each drill: every acknowledged write exists exactly once, every record's
 * event reaches the webhook receiver (at least once, signed), account B sees nothing of A's, and
 * the errors the client saw stay inside the drill's window. Each drill prints one line of figures.
 */
describe('the production topology: journey and fault drills (topology)', () => {
  let topo: Topology;
  let owner: CreatedAccount;
  let stranger: CreatedAccount;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let drillSecret: string;
  const api = () => `${topo.gatewayUrl}/api/v3`;
  const operator = () => ({ operatorUrl: topo.operatorUrl(), operatorToken: topo.operatorToken, authUrl: topo.authUrl });
  const all: DrillFigures[] = [];

  const teardown: { destroy?: () => Promise<void> } = {};

  beforeAll(async () => {
    topo = await startTopology(teardown);
    receiver = await startReceiver();
    [owner, stranger] = await Promise.all([
      createAccount(operator(), { name: 'Topology A', password: PASSWORD }),
      createAccount(operator(), { name: 'Topology B', password: PASSWORD }),
    ]);
    // The drills' receiver: note events of account A.
    const res = await fetch(`${api()}/webhooks`, {
      method: 'POST',
      headers: { authorization: basicAuth(owner.user.id, owner.user.api_key), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Drills', hook_url: `${receiver.url}/drills`, types: ['note'] }),
    });
    if (res.status !== 201) throw new Error(`POST /webhooks answered ${res.status}: ${await res.text()}`);
    drillSecret = ((await res.json()) as Json).data.webhook.signing_secret;
    // About 1.5 minutes on an idle 2-core machine; several times that when the machine is busy.
  }, 600_000);

  afterAll(async () => {
    await receiver?.close();
    await teardown.destroy?.();
    if (all.length > 0) for (const f of all) progress(describeFigures(f).replace('[topology] ', 'summary: '));
  }, 120_000);

  it('runs the overlay with only addresses, ports, secrets, file paths, pod names and one stated policy substituted', () => {
    expect(SUBSTITUTIONS.filter((s) => s.what === 'policy').map((s) => s.variable)).toEqual(['WEBHOOK_ALLOW_PRIVATE']);
    expect(
      topo.pods
        .filter((p) => p.running())
        .map((p) => p.app)
        .sort(),
    ).toEqual((['api-gateway', 'auth-server', 'crm-core', 'webhook-dispatcher'] as App[]).flatMap((a) => Array(REPLICAS).fill(a)).sort());
    expect(topo.eventsStreamReplicas).toBe(3);
  });

  it('keeps the events stream on all three NATS servers, led by one of them', async () => {
    const leader = await topo.nats.streamLeader(topo.eventsStream, topo.natsUser('crm-core'));
    expect(topo.nats.nodes.map((n) => n.name)).toContain(leader.name);
    expect([leader.name, ...leader.replicas].sort()).toEqual(topo.nats.nodes.map((n) => n.name).sort());
  });

  it('journey: operator account, OAuth sign-in with PKCE, contact, deal, note, file, signed webhook, MCP tool call', async () => {
    // The operator creates an account (the operator API, OPERATOR_TOKEN).
    const account = await createAccount(operator(), { name: 'Journey Ltd', password: PASSWORD });
    const admin = { authorization: basicAuth(account.user.id, account.user.api_key) };
    const hooks = await fetch(`${api()}/webhooks`, {
      method: 'POST',
      headers: { ...admin, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Journey', hook_url: `${receiver.url}/journey`, types: ['contact', 'deal', 'note'] }),
    });
    expect(hooks.status).toBe(201);
    const signingSecret = ((await hooks.json()) as Json).data.webhook.signing_secret as string;

    // An OAuth app signs the admin in (authorization code with PKCE) through the auth front.
    const token = await restAccessToken(operator(), account, PASSWORD, 'crm');
    const bearer = { authorization: `Bearer ${token}` };
    const call = async (method: string, pathname: string, body?: unknown) => {
      const res = await fetch(`${api()}${pathname}`, {
        method,
        headers: { ...bearer, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: res.status, body: (await res.json()) as Json };
    };
    const contact = await call('POST', '/contacts', { first_name: 'Grace', last_name: 'Hopper', company_name: 'Topology Inc' });
    expect(contact.status).toBe(201);
    const contactId = contact.body.data.contact.id as string;
    const deal = await call('POST', `/contacts/${contactId}/deals`, { name: 'Compiler', amount: 1200 });
    expect(deal.status).toBe(201);
    const note = await call('POST', '/notes', { contact_id: contactId, text: 'Met at the conference' });
    expect(note.status).toBe(201);
    const noteId = note.body.data.note.id as string;

    // A file attached to the note and downloaded again, byte for byte.
    const bytes = Buffer.from(`id,name\n1,${contactId}\n`);
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'contacts.csv');
    const uploaded = await fetch(`${api()}/notes/${noteId}/attachments`, { method: 'POST', headers: bearer, body: form });
    expect(uploaded.status).toBe(201);
    const attachment = ((await uploaded.json()) as Json).data.attachment;
    const downloaded = await fetch(attachment.url);
    expect(downloaded.status).toBe(200);
    expect(Buffer.from(await downloaded.arrayBuffer()).equals(bytes)).toBe(true);

    // The contact's event arrives signed (Standard Webhooks, checked with the standardwebhooks package).
    const hook = await until('the contact webhook', () =>
      receiver.on('/journey').find((h) => h.json.type === 'contact' && (h.json.data.contact as Json)?.id === contactId),
    );
    expect(new Webhook(signingSecret).verify(hook.body, hook.headers)).toMatchObject({ type: 'contact', reason: 'created' });
    await until('the deal and note webhooks', () =>
      ['deal', 'note'].every((type) => receiver.on('/journey').some((h) => h.json.type === type)),
    );

    // An assistant calls an MCP tool with its own token (the SDK's OAuth flow, resource = /mcp).
    const mcpUrl = new URL(`${topo.gatewayUrl}/mcp`);
    const assistant = new AssistantAuth({ client_id: await registerPublicClient(operator(), 'mcp') });
    expect(await sdkAuth(assistant, { serverUrl: mcpUrl, scope: 'mcp' })).toBe('REDIRECT');
    const code = await signInAndConsent(operator(), assistant.authorizationUrl!, account, PASSWORD);
    expect(await sdkAuth(assistant, { serverUrl: mcpUrl, scope: 'mcp', authorizationCode: code })).toBe('AUTHORIZED');
    const client = new Client({ name: 'topology', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: assistant }));
    try {
      const found = (await client.callTool({ name: 'search_contacts', arguments: { search: 'Hopper' } })) as Json;
      expect(found.isError).toBeFalsy();
      expect(found.structuredContent.contacts[0].contact).toMatchObject({ id: contactId, last_name: 'Hopper' });
    } finally {
      await client.close();
    }
  });

  /** A contact of account A for one drill's notes. */
  async function drillContact(name: string): Promise<string> {
    for (let attempt = 0; ; attempt += 1) {
      const res = await fetch(`${api()}/contacts`, {
        method: 'POST',
        headers: { authorization: basicAuth(owner.user.id, owner.user.api_key), 'content-type': 'application/json' },
        body: JSON.stringify({ last_name: `Drill ${name}` }),
      });
      if (res.status === 201) return ((await res.json()) as Json).data.contact.id;
      if (attempt > 20) throw new Error(`POST /contacts answered ${res.status}: ${await res.text()}`);
      await sleep(500);
    }
  }

  /**
   * One drill: ~5 s of steady load, the fault (resolves once the system is back), load until
   * `loadMs` in all, then the checks. Returns the figures (also printed as one line).
   */
  async function drill(
    name: string,
    fault: (writer: CreatedAccount) => Promise<void>,
    loadMs = 25_000,
  ): Promise<{ f: DrillFigures; faultAt: number; recoveredAt: number }> {
    const contactId = await drillContact(name);
    // Its own user of account A: the gateway's limits are per user, so what one drill leaves in them
    // (e.g. concurrency leases) is not counted against the next drill.
    const writer = await createUser(operator(), owner, { role: 'admin' });
    const authorization = basicAuth(writer.user.id, writer.user.api_key);
    const load = new WriteLoad({ apiUrl: api(), authorization, contactId, tag: WriteLoad.keyPrefix(name) });
    const reads = new ReadProbe({ apiUrl: api(), authorization, contactId });
    const failedBefore = topo.surroundings.gatewayFront.failedConnections();
    const began = Date.now();
    load.start();
    reads.start();
    await sleep(5000);
    const faultAt = Date.now();
    await fault(writer);
    const recoveredAt = Date.now();
    await sleep(Math.max(0, began + loadMs - Date.now()));
    await Promise.all([load.stop(), reads.stop()]);
    const f = await checkDrill({
      drill: name,
      apiUrl: api(),
      owner,
      stranger,
      contactId,
      load,
      moreErrors: reads.errors,
      hooks: () => receiver.on('/drills'),
      signingSecret: drillSecret,
      faultAt,
      failedConnections: topo.surroundings.gatewayFront.failedConnections() - failedBefore,
    });
    all.push(f);
    console.log(`${describeFigures(f)} (fault took ${((recoveredAt - faultAt) / 1000).toFixed(1)} s, reads ${reads.reads})`);
    return { f, faultAt, recoveredAt };
  }

  /**
   * What holds after every drill. At-least-once bound on duplicate deliveries: one webhook-id is
   * delivered at most twice, and at most `maxDuplicates` times in all (a dispatcher stopped
   * mid-send may send again what it had in flight: WEBHOOK_RECEIVER_CONCURRENCY (32) per replica).
   */
  function expectInvariants(f: DrillFigures, maxDuplicates: number) {
    expect({ drill: f.drill, missing: f.missing, duplicates: f.duplicates, idMismatches: f.idMismatches }).toEqual({
      drill: f.drill,
      missing: [],
      duplicates: [],
      idMismatches: 0,
    });
    expect(f.recordsPerKeyMax).toBe(1);
    expect(f.acknowledged).toBeGreaterThan(0);
    expect({ gaveUp: f.gaveUp, refused: f.refused, unacknowledgedRecords: f.unacknowledgedRecords }).toEqual({
      gaveUp: 0,
      refused: 0,
      unacknowledgedRecords: 0,
    });
    expect(f.undelivered).toEqual([]);
    expect(f.eventsDelivered).toBe(f.eventsExpected);
    expect(f.badSignatures).toBe(0);
    expect(f.notesUnderTwoIds).toBe(0);
    expect(f.maxDeliveriesPerId).toBeLessThanOrEqual(2);
    expect(f.duplicateDeliveries).toBeLessThanOrEqual(maxDuplicates);
    expect(f.tenantLeaks).toBe(0);
  }

  /** Every error the client saw fell within [fault, fault end + afterMs]. */
  function expectErrorsWithin(f: DrillFigures, faultMs: number, afterMs: number) {
    if (!f.errorWindow) return;
    expect(f.errorWindow[0]).toBeGreaterThanOrEqual(0);
    expect(f.errorWindow[1] * 1000).toBeLessThanOrEqual(faultMs + afterMs);
  }

  it('drill 1: the NATS server leading the events stream is SIGKILLed, then comes back', async () => {
    const credentials = topo.natsUser('crm-core');
    const leader = await topo.nats.streamLeader(topo.eventsStream, credentials);
    const { f, faultAt, recoveredAt } = await drill('nats-leader-kill', async () => {
      await topo.nats.kill(leader.index);
      // The other two elect a new leader (quorum 2 of 3).
      await until(
        'a new stream leader',
        async () => {
          const now = await topo.nats.streamLeader(topo.eventsStream, credentials).catch(() => null);
          return now !== null && now.name !== leader.name;
        },
        30_000,
        250,
      );
      await sleep(5000);
      await topo.nats.restart(leader.index);
    });
    expectInvariants(f, 0);
    // Errors only while the server is gone and within 10 s of its return (reconnects, RPC timeouts of requests it held).
    expectErrorsWithin(f, recoveredAt - faultAt, 10_000);
    const after = await topo.nats.streamLeader(topo.eventsStream, credentials);
    expect([after.name, ...after.replicas].sort()).toEqual(topo.nats.nodes.map((n) => n.name).sort());
  });

  it('drill 2: a Redis primary is SIGKILLed and its replica takes over', async () => {
    if (!topo.redis) throw new Error("the production overlay's REDIS_CLUSTER is not true: no Redis Cluster to fail over");
    const redis = topo.redis;
    let killed = 0;
    const { f, faultAt, recoveredAt } = await drill('redis-primary-kill', async (writer) => {
      // The primary holding the writer's rate-limit keys (one hash tag, the user): every request of the drill touches it.
      killed = (await redis.killPrimaryOf(`crm:gw:rate:{${writer.user.id}}:0`)).killed.port;
    });
    expectInvariants(f, 0);
    // Errors only until the replica is promoted (cluster-node-timeout 2 s + the election) and 5 s after.
    expectErrorsWithin(f, recoveredAt - faultAt, 5000);
    await redis.restart(killed);
  });

  it('drill 3: the PostgreSQL replica is stopped, then restarted', async () => {
    const { f, faultAt, recoveredAt } = await drill('pg-replica-restart', async () => {
      await topo.postgres.stopReplica();
      await sleep(8000);
      await topo.postgres.startReplica();
    });
    expectInvariants(f, 0);
    // Reads move to the primary while the replica is away: errors, if any, only while it is down and 5 s after.
    expectErrorsWithin(f, recoveredAt - faultAt, 5000);
  });

  it('drill 4: every Deployment rolls one replica at a time (maxSurge 1, maxUnavailable 0) with SIGTERM, without one error', async () => {
    const before = topo.pods.filter((p) => p.running());
    const exits: Array<{ name: string; code: number | string }> = [];
    const { f } = await drill(
      'rolling-restart',
      async () => {
        // The four Deployments one after the other (as `kubectl rollout restart` of each, waiting
        // for its status), each one replica at a time: a new pod ready, then the old one out of its
        // front, its preStop sleep, SIGTERM. One new process starting at a time: on two cores, four
        // starting at once slowed crm-core past the 5 s RPC deadline.
        for (const app of ['auth-server', 'crm-core', 'webhook-dispatcher', 'api-gateway'] as App[]) {
          for (const old of before.filter((p) => p.app === app)) {
            await topo.startPod(app);
            exits.push({ name: old.name, code: await topo.terminatePod(old) });
          }
        }
      },
      10_000,
    );
    progress(`rolling restart: old pods exited with ${JSON.stringify(exits)}`);
    expectInvariants(f, 64);
    expect(exits.map((e) => e.code)).toEqual(before.map(() => 0));
    expect({ errors: f.errors, kinds: f.errorKinds, failedConnections: f.failedConnections }).toEqual({
      errors: 0,
      kinds: {},
      failedConnections: 0,
    });
    expect(topo.pods.filter((p) => p.running())).toHaveLength(before.length);
    // Eight pods started one at a time: about two minutes on an idle 2-core machine.
  }, 480_000);
});
