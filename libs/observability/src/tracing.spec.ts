import { Writable } from 'node:stream';
import { headers as natsHeaders } from '@nats-io/transport-node';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace-node';
import { createLogger } from './logger';
import {
  activeTraceIds,
  contextOfTraceparent,
  currentTraceparent,
  extractTraceContext,
  injectTraceHeaders,
  runInSpan,
  SpanKind,
  startSpan,
  startTracing,
  traced,
  tracingEnabled,
  type TracingHandle,
} from './tracing';

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

describe('tracing off (no OTLP endpoint)', () => {
  it('registers nothing and every helper is a no-op', async () => {
    const handle = startTracing({ service: 'test' });
    expect(handle.enabled).toBe(false);
    expect(tracingEnabled()).toBe(false);
    expect(startSpan('x', SpanKind.INTERNAL)).toBeUndefined();
    const written: string[] = [];
    injectTraceHeaders((name) => written.push(name));
    expect(written).toEqual([]);
    expect(currentTraceparent()).toBeUndefined();
    expect(activeTraceIds()).toBeUndefined();
    expect(await traced('x', SpanKind.INTERNAL, {}, async (span) => span)).toBeUndefined();
    await handle.shutdown();
  });
});

describe('trace header propagation', () => {
  const exporter = new InMemorySpanExporter();
  let tracing: TracingHandle;
  beforeAll(() => {
    tracing = startTracing({ service: 'test', exporter });
  });
  afterAll(() => tracing.shutdown());

  it('writes the W3C traceparent of the active span, and a receiver continues that trace', () => {
    const parent = startSpan('send', SpanKind.CLIENT)!;
    const headers = natsHeaders();
    runInSpan(parent, () => injectTraceHeaders((name, value) => headers.set(name, value)));
    const [, traceId, spanId] = TRACEPARENT.exec(headers.get('traceparent'))!;
    expect(traceId).toBe(parent.spanContext().traceId);
    expect(spanId).toBe(parent.spanContext().spanId);

    // The other side: a NATS message's headers (get answers "" for a missing one).
    const child = startSpan(
      'receive',
      SpanKind.SERVER,
      {},
      extractTraceContext((name) => headers.get(name)),
    )!;
    expect(child.spanContext().traceId).toBe(traceId);
    expect(child.spanContext().spanId).not.toBe(spanId);
    child.end();
    parent.end();
  });

  it('carries tracestate along with traceparent', () => {
    const incoming: Record<string, string> = {
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      tracestate: 'vendor=abc',
    };
    const span = startSpan(
      'hop',
      SpanKind.SERVER,
      {},
      extractTraceContext((name) => incoming[name]),
    )!;
    const out: Record<string, string> = {};
    runInSpan(span, () => injectTraceHeaders((name, value) => (out[name] = value)));
    expect(out.traceparent).toMatch(/^00-0af7651916cd43dd8448eb211c80319c-[0-9a-f]{16}-01$/);
    expect(out.tracestate).toBe('vendor=abc');
    span.end();
  });

  it('round-trips a stored traceparent (outbox row, delivery) into a child span of the same trace', () => {
    const span = startSpan('write', SpanKind.SERVER)!;
    const stored = runInSpan(span, () => currentTraceparent())!;
    expect(stored).toMatch(TRACEPARENT);
    const later = startSpan('publish', SpanKind.PRODUCER, {}, contextOfTraceparent(stored))!;
    expect(later.spanContext().traceId).toBe(span.spanContext().traceId);
    later.end();
    span.end();
  });

  it('starts a new trace from a malformed or absent traceparent', () => {
    for (const bad of ['garbage', '00-00000000000000000000000000000000-b7ad6b7169203331-01', '', undefined]) {
      const span = startSpan('x', SpanKind.SERVER, {}, contextOfTraceparent(bad))!;
      expect(span.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
      expect(span.spanContext().traceId).not.toBe('00000000000000000000000000000000');
      span.end();
    }
    const fresh = startSpan(
      'y',
      SpanKind.SERVER,
      {},
      extractTraceContext(() => undefined),
    )!;
    expect(fresh.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    fresh.end();
  });

  it('traced() ends the span, marks a throw as failed and rethrows it', async () => {
    exporter.reset();
    await expect(
      traced('failing', SpanKind.INTERNAL, { 'crm.k': 1 }, async () => {
        throw new TypeError('boom');
      }),
    ).rejects.toThrow('boom');
    await traced('fine', SpanKind.INTERNAL, {}, async (span) => expect(span).toBeDefined());
    await tracing.flush();
    const spans = exporter.getFinishedSpans();
    expect(spans.find((s) => s.name === 'failing')?.status).toMatchObject({ code: 2, message: 'TypeError' });
    expect(spans.find((s) => s.name === 'fine')?.status.code).toBe(0);
  });

  it('puts trace_id and span_id on log lines written inside a span, and none outside', () => {
    const lines: Array<Record<string, unknown>> = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
        done();
      },
    });
    const logger = createLogger('test', 'info', sink);
    const span = startSpan('logged', SpanKind.INTERNAL)!;
    runInSpan(span, () => logger.info('inside'));
    logger.info('outside');
    span.end();
    expect(lines[0]).toMatchObject({ trace_id: span.spanContext().traceId, span_id: span.spanContext().spanId });
    expect(lines[1]).not.toHaveProperty('trace_id');
  });
});
