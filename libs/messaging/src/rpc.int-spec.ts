import pino from 'pino';
import 'reflect-metadata';
import { Controller, Module, UseInterceptors, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  ApiError,
  ErrorName,
  GetUserRequest,
  namespacedSubject,
  RPC_REPLY_LIMITS,
  RpcHeaders,
  Subjects,
  type Caller,
} from '@crm/contracts';
import {
  createLogger,
  currentIfMatch,
  currentRequestId,
  createMetricsRegistry,
  deadlinePassed,
  runWithRequestId,
} from '@crm/observability';
import { IsInt, Max, Min } from 'class-validator';
import { METRICS_REGISTRY, ServiceKitModule } from '@crm/service-kit';
import type { Registry } from 'prom-client';
import { uniqueNamespace } from '@crm/testing';
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { attachNatsServer } from './attach-nats-server';
import { RpcClient } from './rpc-client';
import { RpcReplyInterceptor } from './rpc-reply.interceptor';
import { RpcCaller, ValidMessage, ValidRequest } from './rpc-params.decorators';
import { generateCallerKeys, RpcSigner } from './rpc-signature';

class EchoRequest {
  @IsInt()
  @Min(0)
  @Max(100)
  value!: number;
}

let abandoned: boolean | null = null;

const natsUrl = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const logger = createLogger('rpc-test', 'silent');
const keys = generateCallerKeys();
/** The test's subjects are answered here as crm-core's are: signed with crm-core's key. */
const signer = new RpcSigner(keys.signingKey, Date.now, () => 'crm-core');

let release: () => void = () => undefined;

@Controller()
@UseInterceptors(RpcReplyInterceptor)
class EchoHandler {
  @MessagePattern('test.echo.v1')
  echo(@Payload() body: { value: number }) {
    return { value: body.value, requestId: currentRequestId(), ifMatch: currentIfMatch() ?? null, pid: process.pid };
  }

  @MessagePattern('test.fail.v1')
  fail() {
    throw new ApiError(ErrorName.ResourceNotFound, 'nothing here');
  }

  @MessagePattern('test.crash.v1')
  crash() {
    throw new Error('secret internals');
  }

  @MessagePattern('test.valid.v1')
  valid(@RpcCaller() caller: Caller, @ValidRequest(EchoRequest) request: EchoRequest) {
    return { value: request.value, typed: request instanceof EchoRequest, user: caller.user_id };
  }

  @MessagePattern('test.message.v1')
  message(@ValidMessage(EchoRequest) message: EchoRequest) {
    return { value: message.value, typed: message instanceof EchoRequest };
  }

  /** A declared API route: the request class comes from the route table. */
  @MessagePattern(Subjects.UsersGet)
  route(@ValidRequest() request: GetUserRequest) {
    return { user_id: request.user_id, typed: request instanceof GetUserRequest };
  }

  @MessagePattern('test.abandon.v1')
  async abandon() {
    await new Promise((resolve) => setTimeout(resolve, 400));
    abandoned = deadlinePassed();
    return { abandoned };
  }

  /** About 3 MiB of JSON (several NATS messages), two-byte characters included: parts may split one. */
  @MessagePattern('test.huge.v1')
  huge(@Payload() body: { seed: number }) {
    return { seed: body.seed, text: `${'x'.repeat(1024 * 1024 + body.seed)}${'é'.repeat(1024 * 1024)}`, end: 'done' };
  }

  /** Over RPC_REPLY_LIMITS.maxBytes (16 MiB). */
  @MessagePattern('test.giant.v1')
  giant() {
    return { text: 'x'.repeat(RPC_REPLY_LIMITS.maxBytes) };
  }

  @MessagePattern('test.slow.v1')
  slow() {
    return new Promise((resolve) => (release = () => resolve({ done: true })));
  }
}

@Module({
  imports: [ServiceKitModule.forRoot({ service: 'rpc-test', logger, registry: createMetricsRegistry('rpc-test') })],
  controllers: [EchoHandler],
})
class EchoModule {}

async function startReplica(namespace: string): Promise<INestApplication> {
  const app = await NestFactory.create(EchoModule, { logger: false });
  await attachNatsServer(app, {
    service: 'rpc-test',
    url: natsUrl,
    namespace,
    queue: 'rpc-test',
    logger,
    shutdownTimeoutMs: 5000,
    verifyKeys: keys.verifyKeys['crm-core'],
  });
  await app.init();
  return app;
}

describe('RPC over NATS (real NATS)', () => {
  const namespace = uniqueNamespace('rpc');
  let nc: NatsConnection;
  let client: RpcClient;
  let replica: INestApplication;

  beforeAll(async () => {
    nc = await connect({ servers: natsUrl });
    client = new RpcClient(nc, { namespace, timeoutMs: 2000, logger, signer });
    replica = await startReplica(namespace);
  });

  afterAll(async () => {
    await replica?.close().catch(() => undefined);
    await nc?.drain();
  });

  /** The replica's nats_server_large_replies_total for `subject` and `kind`. */
  const largeReplies = async (subject: string, kind: string) =>
    (await replica.get<Registry>(METRICS_REGISTRY).getSingleMetric('nats_server_large_replies_total')!.get()).values.find(
      (v) => v.labels.subject === subject && v.labels.kind === kind,
    )?.value ?? 0;

  it('delivers the payload and carries the request id in headers', async () => {
    const reply = await runWithRequestId('req-42', () => client.call<{ value: number; requestId: string }>('test.echo.v1', { value: 7 }));
    expect(reply).toEqual({ ok: true, data: expect.objectContaining({ value: 7, requestId: 'req-42' }) });
  });

  it('answers equal requests sent at once: each is signed with its own nonce, none is a replay', async () => {
    const replies = await Promise.all(Array.from({ length: 20 }, () => client.call('test.echo.v1', { value: 5 })));
    expect(replies.filter((reply) => !reply.ok)).toEqual([]);
  });

  it("carries a write's If-Match into the handler's request context, and none when not sent", async () => {
    const conditional = await client.call<{ ifMatch: string | null }>('test.echo.v1', { value: 1 }, undefined, {
      ifMatch: '"kx1.abc", W/"ky2.def"',
    });
    expect(conditional).toEqual({ ok: true, data: expect.objectContaining({ ifMatch: '"kx1.abc", W/"ky2.def"' }) });
    const plain = await client.call<{ ifMatch: string | null }>('test.echo.v1', { value: 2 });
    expect(plain).toEqual({ ok: true, data: expect.objectContaining({ ifMatch: null }) });
  });

  it('returns an ApiError as data, and an unexpected error as internal_server_error without details', async () => {
    const failed = await client.call('test.fail.v1', {});
    expect(failed).toEqual({ ok: false, error: { error_name: 'resource_not_found', error_message: 'nothing here', errors: {} } });
    const crashed = await client.call('test.crash.v1', {});
    expect(crashed.ok).toBe(false);
    expect(JSON.stringify(crashed)).not.toContain('secret internals');
    expect(!crashed.ok && crashed.error.error_name).toBe('internal_server_error');
  });

  it('hands handlers a validated instance of the request class, and refuses bad input before the handler', async () => {
    const caller = { user_id: 'u1', account_id: 'a1', role: 'user', auth_method: 'api_key', scopes: ['crm'] };
    const ok = await client.call('test.valid.v1', { caller, payload: { value: 7 } });
    expect(ok).toEqual({ ok: true, data: { value: 7, typed: true, user: 'u1' } });
    const bad = await client.call('test.valid.v1', { caller, payload: { value: 'seven' } });
    expect(bad).toMatchObject({ ok: false, error: { error_name: 'invalid_request_data', errors: { value: expect.any(String) } } });
    const routed = await client.call(Subjects.UsersGet, { caller, payload: { user_id: 'abc' } });
    expect(routed).toEqual({ ok: true, data: { user_id: 'abc', typed: true } });
    expect(await client.call('test.message.v1', { value: 3 })).toEqual({ ok: true, data: { value: 3, typed: true } });
    expect(await client.call('test.message.v1', { value: -1 })).toMatchObject({
      ok: false,
      error: { errors: { value: expect.any(String) } },
    });
    // An API route's payload was validated by the gateway and arrived signed: it is only transformed, not validated again.
    const trusted = await client.call(Subjects.UsersGet, { caller, payload: { user_id: 42 } });
    expect(trusted).toEqual({ ok: true, data: { user_id: 42, typed: true } });
  });

  it('tells a handler when its caller has stopped waiting', async () => {
    abandoned = null;
    await expect(client.call('test.abandon.v1', {}, 100)).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    for (let i = 0; i < 50 && abandoned === null; i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(abandoned).toBe(true);
    const patient = await client.call<{ abandoned: boolean }>('test.abandon.v1', {}, 3000);
    expect(patient).toEqual({ ok: true, data: { abandoned: false } });
  });

  it('delivers a reply larger than one NATS message in parts, joined byte for byte, several at once', async () => {
    const maxPayload = nc.info!.max_payload;
    const replies = await Promise.all(
      [0, 1, 2].map((seed) => client.call<{ seed: number; text: string; end: string }>('test.huge.v1', { seed }, 10_000)),
    );
    replies.forEach((reply, seed) => {
      expect(reply.ok).toBe(true);
      if (!reply.ok) return;
      expect(reply.data.seed).toBe(seed);
      expect(reply.data.end).toBe('done');
      expect(reply.data.text).toBe(`${'x'.repeat(1024 * 1024 + seed)}${'é'.repeat(1024 * 1024)}`);
      // More than one message's worth: the reply really came in parts.
      expect(Buffer.byteLength(JSON.stringify(reply.data))).toBeGreaterThan(2 * maxPayload);
    });
    // As the gateway reads it: `data` passed on as the JSON text crm-core wrote.
    const raw = await client.call('test.huge.v1', { seed: 3 }, 10_000, { rawData: true });
    expect(raw.ok && JSON.parse((raw.data as unknown as { json: string }).json).text.length).toBe(2 * 1024 * 1024 + 3);
    expect(await largeReplies('test.huge.v1', 'parts')).toBe(4);
  });

  it('takes a reply in parts only as sent: a part missing, or more parts than allowed, is no reply (503)', async () => {
    const ns = uniqueNamespace('parts');
    const rawClient = new RpcClient(nc, { namespace: ns, timeoutMs: 2000, logger });
    const part = (key: string, value: string) => {
      const h = headers();
      h.set(key, value);
      return { headers: h };
    };
    const sub = nc.subscribe(namespacedSubject(ns, 'test.raw.v1'), {
      callback: (_error, msg) => {
        const { mode } = JSON.parse(new TextDecoder().decode(msg.data)) as { mode: string };
        if (mode === 'skip') {
          nc.publish(msg.reply!, '{"ok":true,', part(RpcHeaders.replyParts, '3'));
          nc.publish(msg.reply!, '"data":1}', part(RpcHeaders.replyPart, '2'));
        } else if (mode === 'many') {
          nc.publish(msg.reply!, '{"ok":true}', part(RpcHeaders.replyParts, String(RPC_REPLY_LIMITS.maxParts + 1)));
        } else {
          nc.publish(msg.reply!, '{"ok":true,', part(RpcHeaders.replyParts, '2'));
          nc.publish(msg.reply!, '"data":{"joined":true}}', part(RpcHeaders.replyPart, '1'));
        }
      },
    });
    await nc.flush();
    expect(await rawClient.call('test.raw.v1', { mode: 'whole' })).toEqual({ ok: true, data: { joined: true } });
    await expect(rawClient.call('test.raw.v1', { mode: 'skip' })).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    await expect(rawClient.call('test.raw.v1', { mode: 'many' })).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    sub.unsubscribe();
  });

  it('answers a reply over the 16 MiB reply limit with a clean 400 naming the cause, at once', async () => {
    const reply = await client.call('test.giant.v1', {}, 10_000);
    expect(reply).toMatchObject({
      ok: false,
      error: { error_name: 'invalid_request_data', errors: { reply: expect.stringContaining('16 MiB') } },
    });
    expect(await largeReplies('test.giant.v1', 'too_large')).toBe(1);
    const after = await client.call('test.echo.v1', { value: 1 });
    expect(after.ok).toBe(true);
  });

  it('answers 503 at once when no replica listens (NATS says so; the timeout is not waited for)', async () => {
    const lines: Array<{ reason?: string; detail?: string }> = [];
    const capture = pino(
      { level: 'warn' },
      { write: (line: string) => lines.push(JSON.parse(line) as { reason?: string; detail?: string }) },
    );
    // A timeout far beyond the test's own: only NATS's no-responders answer can end this call.
    await expect(
      new RpcClient(nc, { namespace: uniqueNamespace('none'), timeoutMs: 600_000, logger: capture }).call('test.echo.v1', {}),
    ).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    expect(lines.map((l) => `${l.reason} ${l.detail}`).join('\n')).toMatch(/no.?responders/i);
  });

  it('answers 503 after the timeout when the handler is too slow', async () => {
    await expect(client.call('test.slow.v1', {}, 300)).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    release();
  });

  it('on close stops taking requests but finishes the one in flight', async () => {
    const ns = uniqueNamespace('drain');
    const app = await startReplica(ns);
    const drainClient = new RpcClient(nc, { namespace: ns, timeoutMs: 5000, logger, signer });
    /** Polls `check` every 10 ms until it holds; fails after 5 s. */
    const poll = async (what: string, check: () => boolean | Promise<boolean>) => {
      const deadline = Date.now() + 5000;
      while (!(await check())) {
        if (Date.now() > deadline) throw new Error(`${what}: not within 5 s`);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    // The replica answers before the slow request is sent: its subscription has reached the server
    // (under load a request sent at once could find no responder yet and never start the handler).
    await poll('the replica answers', () =>
      drainClient.call('test.echo.v1', { value: 1 }, 500).then(
        (reply) => reply.ok,
        () => false,
      ),
    );
    // The slow handler hands out a new `release` when it starts: the signal that the request is in flight.
    const idle = release;
    const slow = drainClient.call('test.slow.v1', {});
    slow.catch(() => undefined); // asserted below; never an unhandled rejection if an earlier expect fails
    await poll('the slow handler runs', () => release !== idle);
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    // A new request during the drain is not taken: once the replica has unsubscribed, no responder is left.
    await poll('a new request finds no responder', () =>
      drainClient.call('test.echo.v1', { value: 1 }, 500).then(
        () => false,
        (error: { errorName?: string }) => error.errorName === ErrorName.ServiceUnavailable,
      ),
    );
    // The handler cannot end before release(): the close is still waiting for it.
    expect(closed).toBe(false);
    release();
    await expect(slow).resolves.toEqual({ ok: true, data: { done: true } });
    await closing;
    expect(closed).toBe(true);
  });
});
