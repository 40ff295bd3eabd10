import { ApiError, ErrorName, Subjects, type Caller, type RouteDeclaration } from '@crm/contracts';
import { createLogger } from '@crm/observability';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { ApiPipeline } from '../api/api-pipeline';
import type { ApiInput } from '../api/api.service';
import type { ReadPositions } from '../api/read-positions';
import type { ApiAuthenticator } from '../auth/api-authenticator';
import { GatewayConfig } from '../config/gateway.config';
import type { BrowserOriginPolicy } from '../cors/browser-origins';
import type { RateLimiter, RateVerdict } from '../limits/rate-limiter';
import { GatewayExceptionFilter } from '../routing/gateway-exception.filter';
import { RouteTable } from '../routing/route-table';
import type { UploadPipeline } from '../uploads/upload-pipeline';
import { ApiEdge } from './api-edge';

class Empty {}
const route = (method: RouteDeclaration['method'], path: string, reply: RouteDeclaration['reply'] = 'GetUserReply'): RouteDeclaration => ({
  operationId: `${method} ${path}`,
  method,
  path,
  subject: Subjects.UsersGet,
  access: 'read',
  request: Empty,
  reply,
  successStatus: 200,
  summary: '',
  tag: 't',
});

const caller: Caller = { account_id: 'a1', user_id: 'u1', role: 'admin', auth_method: 'api_key', scopes: ['crm'] };
const user = { id: 'u1', modified_at: '2026-11-26T10:00:00.000Z', first_name: 'Ada' };

/** The edge on a real HTTP server, with fakes behind it: what each asked, and knobs for the next answer. */
async function startEdge() {
  const seen = { authenticated: 0, released: 0, inputs: [] as ApiInput[], positionLookups: 0 };
  const knobs = { verdict: 'allowed' as RateVerdict['kind'], authError: undefined as ApiError | undefined };
  const authenticator = {
    authenticate: async () => {
      seen.authenticated += 1;
      if (knobs.authError) throw knobs.authError;
      return caller;
    },
  } as unknown as ApiAuthenticator;
  const limiter = {
    acquire: async (): Promise<RateVerdict> => {
      const headers = { 'X-RateLimit-Limit': '6000', 'X-RateLimit-Remaining': '5999', 'X-RateLimit-Reset': '1' };
      if (knobs.verdict !== 'allowed') return { kind: knobs.verdict, headers: { ...headers, 'Retry-After': '1' } };
      return { kind: 'allowed', headers, release: () => void (seen.released += 1) };
    },
  } as unknown as RateLimiter;
  const pipeline = {
    run: async (_caller: Caller, _route: unknown, input: ApiInput) => {
      seen.inputs.push(input);
      return { status: 200, body: { status: 0, message: 'OK', timestamp: 1, data: { user } }, replayed: false };
    },
  } as unknown as ApiPipeline;
  const origins = { allows: async (origin: string) => origin === 'https://app.example.com' } as BrowserOriginPolicy;
  const config = Object.assign(new GatewayConfig(), { PUBLIC_URL: 'https://crm.example.com' });
  const quiet = createLogger('api-gateway', 'info', new Writable({ write: (_chunk, _enc, done) => done() }));
  const edge = new ApiEdge(
    new RouteTable([route('GET', '/users/{user_id}'), route('PUT', '/users/{user_id}'), route('GET', '/users')]),
    origins,
    authenticator,
    limiter,
    pipeline,
    {} as UploadPipeline,
    new GatewayExceptionFilter(quiet, config),
    config,
    {
      lookup: async () => {
        seen.positionLookups += 1;
        return '0/1A';
      },
    } as unknown as ReadPositions,
  );
  const server: Server = createServer((req, res) => void edge.serve(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const call = (method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}) =>
    fetch(`${base}${path}`, { method, headers: init.headers, body: init.body });
  return { edge, server, call, seen, knobs };
}

type Edge = Awaited<ReturnType<typeof startEdge>>;

describe('ApiEdge', () => {
  let edge: Edge;
  beforeAll(async () => {
    edge = await startEdge();
  });
  afterAll(() => new Promise((resolve) => edge.server.close(resolve)));

  it('takes every /api/v3 request but the public documents read with GET or HEAD', () => {
    const handles = (method: string, url: string) => edge.edge.handles({ method, url } as IncomingMessage);
    expect(handles('GET', '/api/v3/users/u1')).toBe(true);
    expect(handles('GET', '/API/V3/users')).toBe(true);
    expect(handles('POST', '/api/v3/docs')).toBe(true);
    for (const url of ['/api/v3', '/api/v3/', '/api/v3?x=1', '/api/v3/openapi.json', '/api/v3/docs', '/api/v3/docs/init.js'])
      expect(handles('GET', url)).toBe(false);
    expect(handles('HEAD', '/api/v3/docs')).toBe(false);
    for (const url of ['/', '/mcp', '/healthz', '/api/v3x', '/files/a', 'http://host/api/v3/users'])
      expect(handles('GET', url)).toBe(false);
  });

  it('answers an authenticated GET in the envelope with its ETag and rate-limit headers, and releases the lease', async () => {
    const released = edge.seen.released;
    const res = await edge.call('GET', '/api/v3/users/u1.json?fields=a&fields=b&x=%20y');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(res.headers.get('x-ratelimit-remaining')).toBe('5999');
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-z]+\.[\w-]{16}"$/);
    expect(await res.json()).toEqual({ status: 0, message: 'OK', timestamp: 1, data: { user } });
    expect(edge.seen.released).toBe(released + 1);
    // Node's querystring, as Express's "simple" query parser.
    expect({ ...edge.seen.inputs.at(-1)!.query }).toEqual({ fields: ['a', 'b'], x: ' y' });
    expect(edge.seen.inputs.at(-1)).toMatchObject({ rawQuery: 'fields=a&fields=b&x=%20y', body: undefined, ifMatch: undefined });
  });

  it("looks a read's write positions up beside the limits and passes them on; a write's not", async () => {
    const lookups = edge.seen.positionLookups;
    expect((await edge.call('GET', '/api/v3/users/u1', { headers: { authorization: 'Basic x' } })).status).toBe(200);
    expect(edge.seen.positionLookups).toBe(lookups + 1);
    expect(await edge.seen.inputs.at(-1)!.readAfter).toBe('0/1A');
    const put = { headers: { authorization: 'Basic x', 'content-type': 'application/json' }, body: '{}' };
    expect((await edge.call('PUT', '/api/v3/users/u1', put)).status).toBe(200);
    expect(edge.seen.positionLookups).toBe(lookups + 1);
    expect(edge.seen.inputs.at(-1)!.readAfter).toBeUndefined();
  });

  it('answers 304 to If-None-Match naming the ETag, and HEAD without a body', async () => {
    const etag = (await edge.call('GET', '/api/v3/users/u1')).headers.get('etag')!;
    const notModified = await edge.call('GET', '/api/v3/users/u1', { headers: { 'If-None-Match': `W/${etag}` } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('etag')).toBe(etag);
    const head = await edge.call('HEAD', '/api/v3/users/u1');
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
    const malformed = await edge.call('GET', '/api/v3/users/u1', { headers: { 'If-None-Match': 'nope' } });
    expect(malformed.status).toBe(400);
  });

  it('resolves the route before authentication: 404, and 405 with Allow', async () => {
    const before = edge.seen.authenticated;
    const unknown = await edge.call('GET', '/api/v3/nope');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      error_name: ErrorName.ResourceNotFound,
      error_message: 'No such route; the API reference is at https://crm.example.com/api/v3/docs',
    });
    const wrongMethod = await edge.call('DELETE', '/api/v3/users/u1');
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, PUT');
    const publicDocument = await edge.call('POST', '/api/v3/openapi.json');
    expect(publicDocument.status).toBe(405);
    expect(publicDocument.headers.get('allow')).toBe('GET');
    expect(edge.seen.authenticated).toBe(before);
  });

  it('refuses a path over 2048 bytes with 404 before anything else', async () => {
    const res = await edge.call('GET', `/api/v3/users/${'x'.repeat(2100)}`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error_message: string }).error_message).toBe('No such route (paths are at most 2048 bytes)');
  });

  it('reads JSON bodies as the body parser did: 415 for other types, 400 for malformed or over 1 MiB, {} for an empty one', async () => {
    const put = (body: string, type = 'application/json') =>
      edge.call('PUT', '/api/v3/users/u1', { headers: { 'content-type': type }, body });
    const form = await put('a=1', 'application/x-www-form-urlencoded');
    expect(form.status).toBe(415);
    expect(await form.json()).toMatchObject({ error_name: ErrorName.UnsupportedMediaType });
    const malformed = await put('{"a":');
    expect(malformed.status).toBe(400);
    expect(await malformed.json()).toMatchObject({
      error_message: 'The request body is not valid JSON',
      errors: { body: 'must be valid JSON' },
    });
    const large = await put(JSON.stringify({ text: 'x'.repeat(1024 * 1024) }));
    expect(large.status).toBe(400);
    expect(await large.json()).toMatchObject({ errors: { body: 'must not exceed 1 MiB' } });
    expect((await put('')).status).toBe(200);
    expect(edge.seen.inputs.at(-1)?.body).toEqual({});
    expect((await put('{"first_name":"Ada"}')).status).toBe(200);
    expect(edge.seen.inputs.at(-1)?.body).toEqual({ first_name: 'Ada' });
  });

  it('sends the authentication error with its headers (the challenge), and the limits as plain text', async () => {
    edge.knobs.authError = new ApiError(ErrorName.AuthorizationDataNotFound).withHeader('WWW-Authenticate', 'Basic realm="x"');
    const unauthenticated = await edge.call('GET', '/api/v3/users/u1');
    edge.knobs.authError = undefined;
    expect(unauthenticated.status).toBe(401);
    expect(unauthenticated.headers.get('www-authenticate')).toBe('Basic realm="x"');
    expect(await unauthenticated.json()).toMatchObject({ error_name: ErrorName.AuthorizationDataNotFound });
    edge.knobs.verdict = 'rate_limited';
    const limited = await edge.call('GET', '/api/v3/users/u1');
    edge.knobs.verdict = 'too_many_concurrent';
    const busy = await edge.call('GET', '/api/v3/users/u1');
    edge.knobs.verdict = 'allowed';
    expect([limited.status, await limited.text(), limited.headers.get('content-type')]).toEqual([
      403,
      'Rate Limit Exceeded',
      'text/plain; charset=utf-8',
    ]);
    expect([busy.status, await busy.text(), busy.headers.get('retry-after')]).toEqual([429, 'Too Many Requests', '1']);
  });

  it("answers an allowed origin's preflight 204 and marks its requests; other origins get no CORS headers", async () => {
    const origin = 'https://app.example.com';
    const preflight = await edge.call('OPTIONS', '/api/v3/users/u1', {
      headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, POST, PUT, PATCH, DELETE');
    expect(preflight.headers.get('vary')).toBe('Origin');
    const get = await edge.call('GET', '/api/v3/users/u1', { headers: { Origin: origin } });
    expect(get.headers.get('access-control-allow-origin')).toBe(origin);
    const other = await edge.call('GET', '/api/v3/users/u1', { headers: { Origin: 'https://evil.example.com' } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});
