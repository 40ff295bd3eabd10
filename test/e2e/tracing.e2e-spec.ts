import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setupE2e, calls } from './setup';
import { startOtlpReceiver, type ReceivedSpan } from './otlp-receiver';
import { startReceiver, until } from './webhook-helpers';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/**
 * One request's trace and request id from the gateway to the webhook delivery (decisions.md
 * "Tracing and metrics"): the services export OTLP/HTTP to a receiver this test runs; one
 * POST /contacts with X-Request-Id and a registered webhook give one trace with spans of the
 * gateway, crm-core's handler and outbox relay and the dispatcher's ingest and delivery, and the
 * receiver's POST carries that trace's traceparent and the request id, as do the services' logs.
 */
describe('tracing across the services (e2e)', () => {
  let otlp: Awaited<ReturnType<typeof startOtlpReceiver>>;
  const { services, admin } = setupE2e({
    services: async () => {
      otlp = await startOtlpReceiver();
      return {
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url, OTEL_BSP_SCHEDULE_DELAY: '100' },
        // Their per-request debug lines ("NATS request handled", "webhook delivered").
        appEnv: { 'crm-core': { LOG_LEVEL: 'debug' }, 'webhook-dispatcher': { LOG_LEVEL: 'debug' } },
      };
    },
  });
  const { call, ok } = calls(services);
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
    await otlp?.close();
  });

  it('follows one POST /contacts in one trace, with one request id, to the webhook POST', async () => {
    await ok(admin, 'POST', '/webhooks', { name: 'traced', hook_url: `${receiver.url}/traced`, types: ['contact'] }, 201);
    const requestId = `trace-e2e-${randomUUID()}`;
    const res = await call(admin)('POST', '/contacts', { first_name: 'Tracy', last_name: 'Spanner' }, { 'X-Request-Id': requestId });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe(requestId);
    const contactId = res.body.data.contact.id as string;

    // The webhook POST carries the request id and a traceparent.
    const hook = await until('the contact event reaches the receiver', () =>
      receiver.on('/traced').find((h) => h.json.reason === 'created' && (h.json.data.contact as { id?: string })?.id === contactId),
    );
    expect(hook.headers['x-request-id']).toBe(requestId);
    const [, traceId, deliverySpanId] = TRACEPARENT.exec(hook.headers.traceparent ?? '') ?? [];
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);

    // One trace: the gateway's request, crm-core's handler and relay, the dispatcher's ingest and delivery.
    const inTrace = () => otlp.spans.filter((s) => s.traceId === traceId);
    const find = (service: string, match: (s: ReceivedSpan) => boolean) => inTrace().find((s) => s.service === service && match(s));
    await until(
      'the spans of every hop reach the OTLP receiver',
      () =>
        find('webhook-dispatcher', (s) => s.name === 'webhook deliver') &&
        find('webhook-dispatcher', (s) => s.name === 'webhook ingest') &&
        find('crm-core', (s) => s.name.startsWith('outbox publish contact.')) &&
        find('api-gateway', (s) => s.name.startsWith('POST ')),
      20_000,
    );
    const gateway = find('api-gateway', (s) => s.name.startsWith('POST '))!;
    expect(gateway.parentSpanId).toBe('');
    expect(gateway.attributes).toMatchObject({ 'crm.request_id': requestId, 'http.response.status_code': 201 });
    const handler = find('crm-core', (s) => s.kind === 2 /* SERVER */)!;
    expect(handler).toBeDefined();
    const publish = find('crm-core', (s) => s.name.startsWith('outbox publish contact.'))!;
    const ingest = find('webhook-dispatcher', (s) => s.name === 'webhook ingest')!;
    const deliver = find('webhook-dispatcher', (s) => s.name === 'webhook deliver')!;
    // Parent links along the way: gateway -> (its NATS client span) -> handler -> publish -> ingest -> deliver.
    const byId = new Map(inTrace().map((s) => [s.spanId, s]));
    const ancestors = (span: ReceivedSpan): string[] => {
      const chain: string[] = [];
      for (let p = byId.get(span.parentSpanId); p && chain.length < 20; p = byId.get(p.parentSpanId)) chain.push(p.spanId);
      return chain;
    };
    expect(ancestors(handler)).toContain(gateway.spanId);
    expect(ancestors(publish)).toContain(handler.spanId);
    expect(ingest.parentSpanId).toBe(publish.spanId);
    expect(deliver.parentSpanId).toBe(ingest.spanId);
    // The receiver's traceparent is the delivery attempt's span.
    expect(deliverySpanId).toBe(deliver.spanId);
    expect(deliver.attributes).toMatchObject({ 'crm.request_id': requestId, 'http.response.status_code': 200 });

    // The request id, and the trace id, on each service's log lines along the way.
    const logOf = (name: string) =>
      readFileSync(services.processes.find((p) => p.name === name)!.logFile, 'utf8')
        .split('\n')
        .filter((line) => line.includes(requestId))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    await until('the dispatcher logs the delivery', () => logOf('webhook-dispatcher').some((l) => l.msg === 'webhook delivered'));
    expect(logOf('api-gateway').find((l) => l.msg === 'request')).toMatchObject({ request_id: requestId, trace_id: traceId });
    expect(logOf('crm-core').find((l) => l.msg === 'NATS request handled')).toMatchObject({ request_id: requestId, trace_id: traceId });
    expect(logOf('webhook-dispatcher').find((l) => l.msg === 'webhook delivered')).toMatchObject({
      request_id: requestId,
      trace_id: traceId,
    });
  });
});
