import 'reflect-metadata';
import { Controller, Module, UseInterceptors, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern } from '@nestjs/microservices';
import { namespacedSubject, RpcHeaders, type Caller } from '@crm/contracts';
import { createLogger, createMetricsRegistry } from '@crm/observability';
import { METRICS_REGISTRY, ServiceKitModule } from '@crm/service-kit';
import { uniqueNamespace } from '@crm/testing';
import { connect, headers as natsHeaders, type NatsConnection } from '@nats-io/transport-node';
import type { Registry } from 'prom-client';
import { attachNatsServer } from './attach-nats-server';
import { decodeReply, encodeRequest } from './nats-wire';
import { RpcCaller } from './rpc-params.decorators';
import { RpcClient } from './rpc-client';
import { RpcReplyInterceptor } from './rpc-reply.interceptor';
import type { RpcConsumer } from './rpc-consumers';
import { generateCallerKeys, MAX_SIGNATURE_TTL_MS, RpcSigner } from './rpc-signature';

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const logger = createLogger('rpc-signature-test', 'silent');
const gatewayKeys = generateCallerKeys();
const nextKeys = generateCallerKeys();
const strangerKeys = generateCallerKeys();
/** The test's subjects (test.*) are answered here, as crm-core: signers use crm-core's key for them. */
const signer = (keys: { signingKey: string }, now: () => number = Date.now, consumer: RpcConsumer = 'crm-core') =>
  new RpcSigner(keys.signingKey, now, () => consumer);

/** Requests that reached a handler: a refused one must never appear here. */
const handled: Caller[] = [];

@Controller()
@UseInterceptors(RpcReplyInterceptor)
class WhoAmIHandler {
  @MessagePattern('test.whoami.v1')
  whoami(@RpcCaller() caller: Caller) {
    handled.push(caller);
    return { account_id: caller.account_id, user_id: caller.user_id };
  }

  @MessagePattern('test.other.v1')
  other(@RpcCaller() caller: Caller) {
    handled.push(caller);
    return { other: true };
  }
}

const registry = createMetricsRegistry('rpc-signature-test');

@Module({
  imports: [ServiceKitModule.forRoot({ service: 'rpc-signature-test', logger, registry })],
  controllers: [WhoAmIHandler],
})
class WhoAmIModule {}

const caller = (account: string): Caller => ({
  account_id: account,
  user_id: `${account}-user`,
  role: 'admin',
  auth_method: 'api_key',
  scopes: ['crm'],
});

describe('signed NATS requests (real NATS)', () => {
  const namespace = uniqueNamespace('sig');
  let nc: NatsConnection;
  let app: INestApplication;

  /** Publishes `data` with `headers` as a raw NATS client would, and returns the decoded reply. */
  async function raw(subject: string, data: Uint8Array, signature?: string) {
    const h = natsHeaders();
    h.set(RpcHeaders.timeout, '2000');
    if (signature !== undefined) h.set(RpcHeaders.signature, signature);
    const msg = await nc.request(namespacedSubject(namespace, subject), data, { timeout: 2000, headers: h });
    return decodeReply(msg.data);
  }

  const refusedCount = async (reason: string) => {
    const metric = await app.get<Registry>(METRICS_REGISTRY).getSingleMetric('nats_requests_refused_total')!.get();
    return metric.values.filter((v) => v.labels.reason === reason).reduce((sum, v) => sum + v.value, 0);
  };

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl });
    app = await NestFactory.create(WhoAmIModule, { logger: false });
    // Two keys during a rotation: the current one and its successor.
    await attachNatsServer(app, {
      service: 'rpc-signature-test',
      url: natsUrl,
      namespace,
      queue: 'rpc-signature-test',
      logger,
      shutdownTimeoutMs: 5000,
      verifyKeys: `${gatewayKeys.verifyKeys['crm-core']}, ${nextKeys.verifyKeys['crm-core']}`,
    });
    await app.init();
  });

  beforeEach(() => {
    handled.length = 0;
  });

  afterAll(async () => {
    await app?.close().catch(() => undefined);
    await nc?.drain();
  });

  it('answers a request signed with either configured key', async () => {
    for (const keys of [gatewayKeys, nextKeys]) {
      const client = new RpcClient(nc, { namespace, timeoutMs: 2000, logger, signer: signer(keys) });
      expect(await client.call('test.whoami.v1', { caller: caller('a1'), payload: {} })).toEqual({
        ok: true,
        data: { account_id: 'a1', user_id: 'a1-user' },
      });
    }
    expect(handled).toHaveLength(2);
  });

  it("refuses an unsigned request, one signed by another key and one signed with another consumer's key, before any handler", async () => {
    const unsigned = new RpcClient(nc, { namespace, timeoutMs: 2000, logger });
    const stranger = new RpcClient(nc, { namespace, timeoutMs: 2000, logger, signer: signer(strangerKeys) });
    // The right signing key, but the auth-server's key: what a request re-targeted from it carries.
    const otherConsumer = new RpcClient(nc, { namespace, timeoutMs: 2000, logger, signer: signer(gatewayKeys, Date.now, 'auth-server') });
    for (const client of [unsigned, stranger, otherConsumer]) {
      const reply = await client.call('test.whoami.v1', { caller: caller('victim'), payload: {} });
      expect(reply).toEqual({
        ok: false,
        error: { error_name: 'internal_server_error', error_message: expect.stringContaining('refused'), errors: {} },
      });
    }
    expect(handled).toEqual([]);
    expect(await refusedCount('unsigned')).toBeGreaterThanOrEqual(1);
    expect(await refusedCount('unknown_key')).toBeGreaterThanOrEqual(2);
  });

  it('refuses a signed request whose caller was changed on the way, or which is re-sent to another subject', async () => {
    const data = encodeRequest({ caller: caller('a1'), payload: {} });
    const signature = signer(gatewayKeys).sign(namespacedSubject(namespace, 'test.whoami.v1'), data, 2000);
    const forged = encodeRequest({ caller: caller('victim'), payload: {} });
    expect(await raw('test.whoami.v1', forged, signature)).toMatchObject({ ok: false });
    expect(await raw('test.other.v1', data, signature)).toMatchObject({ ok: false });
    expect(await refusedCount('bad_signature')).toBeGreaterThanOrEqual(2);
    expect(handled).toEqual([]);
    // The original, untouched, is taken once; the same message again is a replay.
    expect(await raw('test.whoami.v1', data, signature)).toMatchObject({ ok: true });
    expect(await raw('test.whoami.v1', data, signature)).toMatchObject({ ok: false });
    expect(await refusedCount('replayed')).toBeGreaterThanOrEqual(1);
    expect(handled).toHaveLength(1);
  });

  it('refuses an expired signature and one that claims to live too long', async () => {
    const past = new RpcClient(nc, {
      namespace,
      timeoutMs: 2000,
      logger,
      signer: signer(gatewayKeys, () => Date.now() - 60_000),
    });
    const future = new RpcClient(nc, {
      namespace,
      timeoutMs: 2000,
      logger,
      signer: signer(gatewayKeys, () => Date.now() + MAX_SIGNATURE_TTL_MS),
    });
    expect(await past.call('test.whoami.v1', { caller: caller('a1'), payload: {} })).toMatchObject({ ok: false });
    expect(await future.call('test.whoami.v1', { caller: caller('a1'), payload: {} })).toMatchObject({ ok: false });
    expect(await refusedCount('expired')).toBeGreaterThanOrEqual(1);
    expect(await refusedCount('too_far_ahead')).toBeGreaterThanOrEqual(1);
    expect(handled).toEqual([]);
  });

  it('refuses garbage in the signature header', async () => {
    const data = encodeRequest({ caller: caller('a1'), payload: {} });
    const expiry = Date.now() + 5000;
    for (const header of [
      'v2',
      'v2.x.1.y',
      `v1.abc.${expiry}.${'A'.repeat(86)}`,
      `v3.abc.${expiry}.${'A'.repeat(43)}`,
      'v2.abc.notanumber.sig',
    ])
      expect(await raw('test.whoami.v1', data, header)).toMatchObject({ ok: false });
    expect(await refusedCount('malformed')).toBeGreaterThanOrEqual(5);
    expect(handled).toEqual([]);
  });
});
