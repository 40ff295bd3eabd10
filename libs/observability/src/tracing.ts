import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
  type TextMapSetter,
  type Tracer,
} from '@opentelemetry/api';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_INSTANCE_ID, ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export { SpanKind, SpanStatusCode, type Context, type Span };

/** The W3C Trace Context headers (https://www.w3.org/TR/trace-context/), on HTTP, NATS and JetStream alike. */
export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

export interface TracingOptions {
  /** service.name (OTEL_SERVICE_NAME, else the app's name). */
  service: string;
  /** service.instance.id (SERVICE_INSTANCE), when set. */
  instance?: string;
  /**
   * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT: tracing is on only when one
   * is set. The OTLP/HTTP exporter reads the standard OTEL_EXPORTER_OTLP_* variables itself
   * (endpoint, headers, timeout), and the batch processor the OTEL_BSP_* ones.
   */
  endpoint?: string;
  /** An exporter to use instead of OTLP/HTTP (tests); turns tracing on. */
  exporter?: SpanExporter;
}

export interface TracingHandle {
  readonly enabled: boolean;
  /** Exports the spans buffered so far. */
  flush(): Promise<void>;
  /** Exports what is buffered and stops tracing (called last at shutdown). */
  shutdown(): Promise<void>;
}

/** Set only while tracing is on: every helper below checks it first and does nothing without it. */
let tracer: Tracer | undefined;
let provider: NodeTracerProvider | undefined;
const w3c = new W3CTraceContextPropagator();

/**
 * Turns tracing on for this process when an OTLP endpoint (or a test exporter) is given: a tracer
 * provider with a batch span processor, the AsyncLocalStorage context manager and the W3C
 * propagator. Without one nothing is registered: the OpenTelemetry API stays a no-op and the
 * helpers below return before creating anything (decisions.md "Tracing and metrics").
 */
export function startTracing(options: TracingOptions): TracingHandle {
  if (provider || (!options.endpoint && !options.exporter))
    return { enabled: provider !== undefined, flush: async () => undefined, shutdown: async () => undefined };
  const created = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [ATTR_SERVICE_NAME]: options.service,
      ...(options.instance ? { [ATTR_SERVICE_INSTANCE_ID]: options.instance } : {}),
    }),
    spanProcessors: [new BatchSpanProcessor(options.exporter ?? new OTLPTraceExporter())],
  });
  created.register({ propagator: w3c });
  provider = created;
  tracer = created.getTracer('crm-platform');
  return {
    enabled: true,
    flush: () => created.forceFlush(),
    shutdown: async () => {
      if (provider !== created) return;
      tracer = undefined;
      provider = undefined;
      await created.shutdown().catch(() => undefined);
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}

/** Whether spans are recorded in this process: callers skip any tracing work when not. */
export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/** Starts a span (a child of `parent`, by default of the active context); undefined while tracing is off. */
export function startSpan(name: string, kind: SpanKind, attributes?: Attributes, parent?: Context): Span | undefined {
  return tracer?.startSpan(name, { kind, attributes }, parent ?? context.active());
}

/** A W3C traceparent as stored and forwarded (version 00 layout); anything else is dropped. */
export const TRACEPARENT_PATTERN = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/** The active context (or `parent`) with `span` as its span: what to inject into an outgoing message. */
export function contextWithSpan(span: Span, parent?: Context): Context {
  return trace.setSpan(parent ?? context.active(), span);
}

/** Runs `fn` with `span` as the active span (so its log lines, calls and events belong to it); just `fn()` without one. */
export function runInSpan<T>(span: Span | undefined, fn: () => T): T {
  return span ? context.with(trace.setSpan(context.active(), span), fn) : fn();
}

/**
 * Runs `fn` with `span` (or no span) as the only trace context: for work started from unrelated
 * work's continuation (one delivery launched when another finished), which must not inherit it.
 */
export function runInOwnSpan<T>(span: Span | undefined, fn: () => T): T {
  if (!tracer) return fn();
  return context.with(span ? trace.setSpan(ROOT_CONTEXT, span) : ROOT_CONTEXT, fn);
}

/** Ends a span, marked as failed when `error` is given (a description, never a stack or personal data). */
export function endSpan(span: Span | undefined, error?: string): void {
  if (!span) return;
  if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
  span.end();
}

/**
 * Runs `fn` inside a new span that ends when it settles; a throw marks the span failed with the
 * error's name and is rethrown. Without tracing, just `fn(undefined)`.
 */
export async function traced<T>(
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  fn: (span: Span | undefined) => Promise<T>,
  parent?: Context,
): Promise<T> {
  const span = startSpan(name, kind, attributes, parent);
  if (!span) return fn(undefined);
  try {
    const result = await context.with(trace.setSpan(parent ?? context.active(), span), () => fn(span));
    span.end();
    return result;
  } catch (error) {
    endSpan(span, error instanceof Error ? error.name : 'error');
    throw error;
  }
}

const setter: TextMapSetter<(name: string, value: string) => void> = { set: (set, key, value) => set(key, value) };
const getter: TextMapGetter<(name: string) => string | null | undefined> = {
  get: (get, key) => get(key) || undefined,
  keys: () => [...TRACE_HEADERS],
};

/**
 * Writes the W3C `traceparent` (and `tracestate`) of `ctx` (by default the active one) through
 * `set`: NATS headers, JetStream headers, an HTTP request. Nothing while tracing is off.
 */
export function injectTraceHeaders(set: (name: string, value: string) => void, ctx?: Context): void {
  if (!tracer) return;
  w3c.inject(ctx ?? context.active(), set, setter);
}

/** The trace context a message or request carries (`get` reads one of its headers); the empty root context without one or while tracing is off. */
export function extractTraceContext(get: (name: string) => string | null | undefined): Context {
  if (!tracer) return ROOT_CONTEXT;
  return w3c.extract(ROOT_CONTEXT, get, getter);
}

/** The context of a stored `traceparent` (an outbox row, a delivery), to continue its trace later. */
export function contextOfTraceparent(traceparent: string | null | undefined): Context {
  if (!tracer || !traceparent) return ROOT_CONTEXT;
  return extractTraceContext((name) => (name === 'traceparent' ? traceparent : undefined));
}

/** The `traceparent` of the active span, to be stored with work done later (an outbox row); undefined without one. */
export function currentTraceparent(ctx?: Context): string | undefined {
  if (!tracer) return undefined;
  let value: string | undefined;
  w3c.inject(
    ctx ?? context.active(),
    (name: string, v: string) => {
      if (name === 'traceparent') value = v;
    },
    setter,
  );
  return value;
}

/** trace_id and span_id of the active span, for log lines; undefined without one or while tracing is off. */
export function activeTraceIds(): { trace_id: string; span_id: string } | undefined {
  if (!tracer) return undefined;
  const span = trace.getSpan(context.active());
  if (!span) return undefined;
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}
