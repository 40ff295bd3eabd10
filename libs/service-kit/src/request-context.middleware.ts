import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request } from 'express';
import {
  acceptRequestId,
  endSpan,
  extractTraceContext,
  runInSpan,
  runWithRequestId,
  SpanKind,
  startSpan,
  tracingEnabled,
  type HttpMetrics,
} from '@crm/observability';
import type { Logger } from 'pino';

/** Liveness and readiness probes, asked every few seconds: counted in the metrics, not access-logged. */
const PROBE_PATHS = new Set(['/healthz', '/readyz']);

/** The `route` label of every request no route matched: one series, however many paths are probed. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The template of the Express route that handled the request (`/operator/accounts/:accountId`), if any. */
export function matchedRoute(req: IncomingMessage): string | undefined {
  const path = (req as { route?: { path?: unknown } }).route?.path;
  if (typeof path === 'string') return path;
  return Array.isArray(path) ? path.join(',') : undefined;
}

/**
 * First middleware of every HTTP service: accepts or assigns X-Request-Id, echoes it, runs the
 * rest of the request inside its context (so every log line carries it), records metrics and,
 * given a logger, writes one access-log line per request: request id, method, route template,
 * status, duration, and the account and user ids once authenticated (never the raw path or query,
 * which may carry personal data).
 *
 * The `route` label is a template, never the raw path, so the number of series stays bounded:
 * `routeOf` (a service's own routing, e.g. the gateway's operation ids; it must answer from a
 * fixed set) first, then the matched Express route, else {@link UNMATCHED_ROUTE}.
 *
 * While tracing is on, each request (probes aside) is a server span that continues the caller's
 * W3C `traceparent`, named by method and the same route label, with the request id as an attribute.
 * It reads only node's request and response, so a handler outside Express (the gateway's API
 * edge) runs inside it too.
 */
export function requestContextMiddleware<R extends IncomingMessage = Request>(
  metrics: HttpMetrics,
  routeOf?: (req: R) => string | undefined,
  accessLog?: Logger,
) {
  return (req: R, res: ServerResponse, next: () => void): void => {
    const requestId = acceptRequestId(req.headers['x-request-id']);
    const path = pathOf(req.url ?? '');
    const method = req.method ?? '';
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    const span =
      tracingEnabled() && !PROBE_PATHS.has(path)
        ? startSpan(
            method,
            SpanKind.SERVER,
            { 'http.request.method': method, 'crm.request_id': requestId },
            extractTraceContext((name) => headerValue(req, name)),
          )
        : undefined;
    const done = (aborted: boolean) => {
      const route = routeOf?.(req) ?? matchedRoute(req) ?? UNMATCHED_ROUTE;
      const labels = { method, route, status: String(res.statusCode) };
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (!aborted) {
        metrics.requests.inc(labels);
        metrics.duration.observe(labels, seconds);
      }
      if (span) {
        span.updateName(`${method} ${route}`);
        span.setAttributes({
          'http.route': route,
          'http.response.status_code': res.statusCode,
          ...(aborted ? { 'crm.aborted': true } : {}),
        });
        endSpan(span, res.statusCode >= 500 ? `HTTP ${res.statusCode}` : undefined);
      }
      if (accessLog && !PROBE_PATHS.has(path)) {
        const caller = (req as { user?: { account_id?: unknown; user_id?: unknown } }).user;
        accessLog.info(
          {
            request_id: requestId,
            method,
            route,
            status: res.statusCode,
            duration_ms: Math.round(seconds * 10_000) / 10,
            ...(typeof caller?.account_id === 'string' ? { account_id: caller.account_id, user_id: caller.user_id } : {}),
            ...(aborted ? { aborted: true } : {}),
          },
          'request',
        );
      }
    };
    res.once('finish', () => done(false));
    // A client that went away before the answer: logged as aborted (not counted as a status).
    res.once('close', () => {
      if (!res.writableFinished) done(true);
    });
    runWithRequestId(requestId, span ? () => runInSpan(span, next) : next);
  };
}

/** The path of a request target, without its query (what Express calls `req.path`). */
function pathOf(url: string): string {
  const queryAt = url.indexOf('?');
  return queryAt < 0 ? url : url.slice(0, queryAt);
}

/** One request header as a string (a repeated header's first value), as Express's `req.header` reads it. */
function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}
