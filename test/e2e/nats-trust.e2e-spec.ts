import { createHash, createHmac, randomBytes } from 'node:crypto';
import { namespacedSubject, RpcHeaders, Subjects, type Caller } from '@crm/contracts';
import { REPO_ROOT, resolveTestInfra } from '@crm/testing';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { connect, headers as natsHeaders, type Msg, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import { calls, setupE2e, type Json } from './setup';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** The request as the gateway's RpcClient encodes it (libs/messaging nats-wire.ts: the body's JSON). */
const packet = (data: unknown): Uint8Array => encoder.encode(JSON.stringify(data));

/** A signature in the consumers' header format (v2: HMAC-SHA256) under `key`, named by its key id. */
function signatureWith(key: Buffer, subject: string, data: Uint8Array): string {
  const expiresAt = Date.now() + 10_000;
  const digest = createHash('sha256').update(data).digest('base64url');
  const mac = createHmac('sha256', key).update(`crm-rpc-signature-v2\n${subject}\n${expiresAt}\n${digest}`).digest('base64url');
  return `v2.${createHash('sha256').update(key).digest('base64url').slice(0, 12)}.${expiresAt}.${mac}`;
}

/**
 * NATS is not a trust boundary the services believe (decisions.md "NATS trust boundary"): a
 * process that reaches NATS but holds no signing key cannot act as a user of any account, nor
 * use the internal subjects, and a request the gateway signed cannot be re-sent to another
 * subject, replayed, or used after it expired.
 */
describe('NATS requests are signed by the gateway and checked by every consumer (e2e)', () => {
  const { services, admin, stranger } = setupE2e({ stranger: true, services: { env: { RPC_TIMEOUT_MS: '3000' } } });
  const { ok } = calls(services);
  let nc: NatsConnection;

  beforeAll(async () => {
    nc = await connect({ servers: resolveTestInfra().natsUrl });
  });
  afterAll(async () => {
    await nc?.drain();
  });

  /** Publishes like a process on the NATS network would, and returns the reply (an RpcReply). */
  async function publish(subject: string, data: Uint8Array, headers?: MsgHdrs): Promise<Json> {
    const msg = await nc.request(namespacedSubject(services.namespace, subject), data, { timeout: 5000, headers });
    return JSON.parse(decoder.decode(msg.data));
  }

  const refused = { ok: false, error: { error_name: 'internal_server_error', error_message: expect.stringContaining('refused') } };

  const callerOf = (who: typeof stranger): Caller => ({
    account_id: who.account.id,
    user_id: who.user.id,
    role: 'admin',
    auth_method: 'api_key',
    scopes: ['crm'],
  });

  it("refuses a forged request for another account's user, its webhooks and the internal subjects, while the gateway's requests work", async () => {
    const forged = { caller: callerOf(stranger), payload: { user_id: stranger.user.id } };
    // Unsigned, and signed with a key of the forger's own.
    for (const subject of [Subjects.UsersGet, Subjects.WebhooksList]) {
      const data = packet(forged);
      expect(await publish(subject, data)).toMatchObject(refused);
      const headers = natsHeaders();
      headers.set(RpcHeaders.signature, signatureWith(randomBytes(32), namespacedSubject(services.namespace, subject), data));
      expect(await publish(subject, data, headers)).toMatchObject(refused);
    }
    // Internal subjects without a caller: the credential record of a user, a new user in another account.
    expect(await publish(Subjects.CredentialsResolve, packet({ user_id: stranger.user.id }))).toMatchObject(refused);
    const intruder = {
      account_id: stranger.account.id,
      user: {
        id: randomBytes(12).toString('hex'),
        first_name: 'Eve',
        last_name: 'Intruder',
        email: 'eve@example.test',
        role: 'admin',
        account_rights: [],
        permissions: [],
      },
    };
    expect(await publish(Subjects.UsersProvision, packet(intruder))).toMatchObject(refused);
    const users = JSON.stringify(await ok(stranger, 'GET', '/users'));
    expect(users).toContain(stranger.user.id);
    expect(users).not.toContain(intruder.user.id);
    expect(await ok(admin, 'GET', `/users/${admin.user.id}`)).toMatchObject({ user: { id: admin.user.id } });
  });

  it("refuses requests to the auth-server and the dispatcher signed with crm-core's key (what a compromised crm-core holds)", async () => {
    const crmCoreKey = Buffer.from(services.callerKeys!.verifyKeys['crm-core'], 'base64url');
    const resolve = packet({ user_id: stranger.user.id });
    const webhooks = packet({ caller: callerOf(stranger), payload: {} });
    for (const [subject, data] of [
      [Subjects.CredentialsResolve, resolve],
      [Subjects.WebhooksList, webhooks],
    ] as const) {
      const headers = natsHeaders();
      headers.set(RpcHeaders.signature, signatureWith(crmCoreKey, namespacedSubject(services.namespace, subject), data));
      expect(await publish(subject, data, headers)).toMatchObject(refused);
    }
    // The same construction under crm-core's key is what crm-core takes: only the key is wrong above.
    const get = packet({ caller: callerOf(stranger), payload: { user_id: stranger.user.id } });
    const headers = natsHeaders();
    headers.set(RpcHeaders.signature, signatureWith(crmCoreKey, namespacedSubject(services.namespace, Subjects.UsersGet), get));
    expect(await publish(Subjects.UsersGet, get, headers)).toMatchObject({ ok: true });
  });

  it('refuses a request the gateway signed when it is re-sent to another subject, replayed, or used after it expired', async () => {
    const subject = namespacedSubject(services.namespace, Subjects.UsersGet);
    const captured = new Promise<Msg>((resolve) => {
      const sub = nc.subscribe(subject, {
        max: 1,
        callback: (_err, msg) => {
          resolve(msg);
          sub.unsubscribe();
        },
      });
    });
    await nc.flush();
    expect(await ok(admin, 'GET', `/users/${admin.user.id}`)).toMatchObject({ user: { id: admin.user.id } });
    const msg = await captured;
    expect(msg.headers?.get(RpcHeaders.signature)).toMatch(/^v2\./);

    expect(await publish(Subjects.UsersList, msg.data, msg.headers)).toMatchObject(refused);
    expect(await publish(Subjects.UsersGet, msg.data, msg.headers)).toMatchObject(refused);
    expect(await refusals('replayed')).toBeGreaterThanOrEqual(1);
    expect(await refusals('bad_signature')).toBeGreaterThanOrEqual(1);

    // Valid for RPC_TIMEOUT_MS (3 s) + 5 s: re-sent until crm-core counts it as expired.
    const deadline = Date.now() + 30_000;
    while ((await refusals('expired')) === 0) {
      if (Date.now() > deadline) throw new Error('crm-core never refused the captured request as expired');
      expect(await publish(Subjects.UsersGet, msg.data, msg.headers)).toMatchObject(refused);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(await ok(admin, 'GET', `/users/${admin.user.id}`)).toMatchObject({ user: { id: admin.user.id } });
  });

  it.each([
    ['crm-core', 'CALLER_VERIFY_KEYS'],
    ['api-gateway', 'CALLER_SIGNING_KEY'],
  ])('does not start %s without %s', async (app, variable) => {
    const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist', 'apps', app, 'src', 'main.js')], {
      cwd: REPO_ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        NODE_ENV: 'test',
        DATABASE_URL: services.database.url,
        NATS_URL: resolveTestInfra().natsUrl,
        REDIS_URL: resolveTestInfra().redisUrl,
        CRM_NAMESPACE: services.namespace,
        HTTP_PORT: '0',
        PORT: '0',
        METRICS_PORT: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect({ code, named: output.includes(`${variable} is required`) }).toEqual({ code: 1, named: true });
  });

  /** crm-core's count of refused requests for `reason`, from its /metrics. */
  async function refusals(reason: string): Promise<number> {
    const crmCore = services.processes.find((p) => p.app === 'crm-core')!;
    const text = await (await fetch(`http://127.0.0.1:${crmCore.metricsPort}/metrics`)).text();
    return text
      .split('\n')
      .filter((line) => line.startsWith('nats_requests_refused_total{') && line.includes(`reason="${reason}"`))
      .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
  }
});
