import type { NextFunction, Request, Response } from 'express';
import { acceptRequestId, runWithRequestId, type HttpMetrics } from '@crm/observability';

/** The `route` label of every request no route matched: one series, however many paths are probed. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The template of the Express route that handled the request (`/operator/accounts/:accountId`), if any. */
export function matchedRoute(req: Request): string | undefined {
  const path = (req as { route?: { path?: unknown } }).route?.path;
  if (typeof path === 'string') return path;
  return Array.isArray(path) ? path.join(',') : undefined;
}

/**
 * First middleware of every HTTP service: accepts or assigns X-Request-Id, echoes it, runs the
 * rest of the request inside its context (so every log line carries it) and records metrics.
 *
 * The `route` label is a template, never the raw path, so the number of series stays bounded:
 * `routeOf` (a service's own routing, e.g. the gateway's operation ids; it must answer from a
 * fixed set) first, then the matched Express route, else {@link UNMATCHED_ROUTE}.
 */
export function requestContextMiddleware(metrics: HttpMetrics, routeOf?: (req: Request) => string | undefined) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = acceptRequestId(req.header('x-request-id'));
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const route = routeOf?.(req) ?? matchedRoute(req) ?? UNMATCHED_ROUTE;
      const labels = { method: req.method, route, status: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    runWithRequestId(requestId, next);
  };
}
