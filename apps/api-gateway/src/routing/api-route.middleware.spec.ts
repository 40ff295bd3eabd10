import { ErrorName, type RouteDeclaration, Subjects } from '@crm/contracts';
import type { Response } from 'express';
import { GatewayConfig } from '../config/gateway.config';
import { ApiRouteMiddleware, type ApiRequest } from './api-route.middleware';
import { RouteTable } from './route-table';

class Empty {}
const users: RouteDeclaration = {
  operationId: 'getUsers',
  method: 'GET',
  path: '/users',
  subject: Subjects.UsersGet,
  access: 'read',
  request: Empty,
  reply: 'EmptyReply',
  successStatus: 200,
  summary: '',
  tag: 't',
};

function run(method: string, path: string) {
  const headers: Record<string, string> = {};
  const res = { setHeader: (name: string, value: string) => (headers[name] = value) } as unknown as Response;
  const req = { method, path } as ApiRequest;
  let nexted = false;
  let error: unknown;
  try {
    new ApiRouteMiddleware(new RouteTable([users]), new GatewayConfig()).use(req, res, () => (nexted = true));
  } catch (thrown) {
    error = thrown;
  }
  return { nexted, error: error as { errorName?: string } | undefined, headers, req };
}

describe('ApiRouteMiddleware', () => {
  it('lets GET and HEAD of the public documents through without resolving a route', () => {
    for (const method of ['GET', 'HEAD'])
      for (const path of ['/api/v3/openapi.json', '/api/v3/docs'])
        expect(run(method, path)).toMatchObject({ nexted: true, error: undefined });
  });

  it('answers any other method on the public documents 405 with Allow (it was a 500)', () => {
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH'])
      for (const path of ['/api/v3/openapi.json', '/api/v3/docs']) {
        const result = run(method, path);
        expect(result.nexted).toBe(false);
        expect(result.error).toMatchObject({ errorName: ErrorName.MethodNotAllowed });
        expect(result.headers).toEqual({ Allow: 'GET' });
      }
  });

  it('resolves API routes: a match carries the route, unknown is 404, wrong method 405', () => {
    const ok = run('GET', '/api/v3/users/');
    expect(ok.nexted).toBe(true);
    expect(ok.req.apiRoute?.route.operationId).toBe('getUsers');
    expect(run('GET', '/api/v3/nope').error).toMatchObject({ errorName: ErrorName.ResourceNotFound });
    expect(run('POST', '/api/v3/users')).toMatchObject({ error: { errorName: ErrorName.MethodNotAllowed }, headers: { Allow: 'GET' } });
  });
});
