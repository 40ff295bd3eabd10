import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import { createMetricsRegistry, httpMetrics } from '@crm/observability';
import { requestContextMiddleware, UNMATCHED_ROUTE } from './request-context.middleware';

/** One request through the middleware: `route` is what Express matched (none for an unknown path). */
function serve(middleware: ReturnType<typeof requestContextMiddleware>, path: string, route?: string, status = 404): void {
  const req = { method: 'GET', path, url: path, header: () => undefined, route: route ? { path: route } : undefined } as unknown as Request;
  const res = Object.assign(new EventEmitter(), { statusCode: status, setHeader: () => undefined }) as unknown as Response;
  middleware(req, res, (() => undefined) as NextFunction);
  res.emit('finish');
}

const seriesOf = async (registry: ReturnType<typeof createMetricsRegistry>) =>
  (await registry.metrics()).split('\n').filter((line) => line.startsWith('http_request'));

describe('requestContextMiddleware route label', () => {
  it('labels 10,000 unknown paths with one constant: no series added after the first', async () => {
    const registry = createMetricsRegistry('test');
    const middleware = requestContextMiddleware(httpMetrics(registry));
    serve(middleware, '/probe-first');
    const before = await seriesOf(registry);
    for (let i = 0; i < 10_000; i += 1) serve(middleware, `/probe-${i}/${'x'.repeat(i % 50)}`);
    const after = await seriesOf(registry);
    expect(after).toHaveLength(before.length);
    expect(after.join('\n')).toContain(`route="${UNMATCHED_ROUTE}"`);
    expect(after.join('\n')).not.toContain('probe');
  });

  it("uses the service's own route first, then the matched template, never the raw path", async () => {
    const registry = createMetricsRegistry('test');
    const middleware = requestContextMiddleware(httpMetrics(registry), (req) => (req.path === '/api/v3/users/7' ? 'getUser' : undefined));
    serve(middleware, '/api/v3/users/7', undefined, 200);
    serve(middleware, '/operator/accounts/abc', '/operator/accounts/:accountId', 200);
    serve(middleware, '/operator/accounts/def', '/operator/accounts/:accountId', 200);
    const text = (await seriesOf(registry)).filter((line) => line.startsWith('http_requests_total')).join('\n');
    expect(text).toMatch(/route="getUser",status="200",service="test"\} 1$/m);
    expect(text).toMatch(/route="\/operator\/accounts\/:accountId",status="200",service="test"\} 2$/m);
    expect(text).not.toMatch(/abc|def|users\/7/);
  });
});
