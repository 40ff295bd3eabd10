import { EventEmitter } from 'node:events';
import type { NextFunction, Request, Response } from 'express';
import { createMetricsRegistry, httpMetrics } from '@crm/observability';
import pino from 'pino';
import { requestContextMiddleware, UNMATCHED_ROUTE } from './request-context.middleware';

/** One request through the middleware: `route` is what Express matched (none for an unknown path). */
function serve(middleware: ReturnType<typeof requestContextMiddleware<Request>>, path: string, route?: string, status = 404): void {
  const req = { method: 'GET', path, url: path, headers: {}, route: route ? { path: route } : undefined } as unknown as Request;
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

describe('requestContextMiddleware access log', () => {
  it('writes one line per request with the request id, route template, status, duration and caller, never the raw path', () => {
    const lines: Array<Record<string, unknown>> = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) });
    const middleware = requestContextMiddleware(httpMetrics(createMetricsRegistry('test')), () => 'getContact', logger);
    const req = {
      method: 'GET',
      path: '/api/v3/contacts/secret-name',
      url: '/api/v3/contacts/secret-name?search=private',
      headers: { 'x-request-id': 'req-123' },
      user: { account_id: 'acc-1', user_id: 'user-1' },
    } as unknown as Request;
    const res = Object.assign(new EventEmitter(), { statusCode: 200, setHeader: () => undefined }) as unknown as Response;
    middleware(req, res, (() => undefined) as NextFunction);
    res.emit('finish');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request',
      request_id: 'req-123',
      method: 'GET',
      route: 'getContact',
      status: 200,
      account_id: 'acc-1',
      user_id: 'user-1',
    });
    expect(lines[0].duration_ms).toEqual(expect.any(Number));
    expect(JSON.stringify(lines[0])).not.toMatch(/secret-name|private/);
  });

  it('leaves the probes out of the access log', () => {
    const lines: unknown[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => lines.push(line) });
    const middleware = requestContextMiddleware(httpMetrics(createMetricsRegistry('test')), undefined, logger);
    for (const path of ['/healthz', '/readyz']) {
      const req = { method: 'GET', path, url: path, headers: {} } as unknown as Request;
      const res = Object.assign(new EventEmitter(), { statusCode: 200, setHeader: () => undefined }) as unknown as Response;
      middleware(req, res, (() => undefined) as NextFunction);
      res.emit('finish');
    }
    expect(lines).toEqual([]);
  });
});
