import type { NextFunction, Request, Response } from 'express';
import { acceptRequestId, runWithRequestId, type HttpMetrics } from '@crm/observability';

/**
 * First middleware of every HTTP service: accepts or assigns X-Request-Id, echoes it, runs the
 * rest of the request inside its context (so every log line carries it) and records metrics.
 */
export function requestContextMiddleware(metrics: HttpMetrics, routeLabel: (req: Request) => string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const requestId = acceptRequestId(req.header('x-request-id'));
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.once('finish', () => {
      const labels = { method: req.method, route: routeLabel(req), status: String(res.statusCode) };
      metrics.requests.inc(labels);
      metrics.duration.observe(labels, Number(process.hrtime.bigint() - started) / 1e9);
    });
    runWithRequestId(requestId, next);
  };
}
