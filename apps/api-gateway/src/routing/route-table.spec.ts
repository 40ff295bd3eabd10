import { Subjects, type RouteDeclaration } from '@crm/contracts';
import { normalizePath, RouteTable } from './route-table';

class Empty {}
const route = (method: RouteDeclaration['method'], path: string): RouteDeclaration => ({
  operationId: `${method} ${path}`,
  method,
  path,
  subject: Subjects.UsersGet,
  access: 'read',
  request: Empty,
  reply: 'EmptyReply',
  successStatus: 200,
  summary: '',
  tag: 't',
});

describe('RouteTable', () => {
  const table = new RouteTable([
    route('GET', '/contacts'),
    route('POST', '/contacts'),
    route('GET', '/contacts/{contact_id}'),
    route('PUT', '/contacts/{contact_id}/assign_tag/{tag_name}'),
  ]);

  it('matches paths with and without the .json suffix alike', () => {
    for (const path of ['/contacts/abc', '/contacts/abc.json']) {
      const result = table.resolve('GET', path);
      expect(result).toMatchObject({ kind: 'match', params: { contact_id: 'abc' } });
    }
    expect(table.resolve('GET', '/contacts.json')).toMatchObject({ kind: 'match', route: { path: '/contacts' } });
  });

  it('decodes path parameters and keeps the suffix only off the last segment', () => {
    expect(table.resolve('PUT', '/contacts/c1/assign_tag/VIP%20client.json')).toMatchObject({
      params: { contact_id: 'c1', tag_name: 'VIP client' },
    });
  });

  it('answers 405 with the allowed methods for a known path', () => {
    expect(table.resolve('DELETE', '/contacts')).toEqual({ kind: 'method_not_allowed', allowed: ['GET', 'POST'] });
  });

  it('answers 404 for an unknown path', () => {
    expect(table.resolve('GET', '/nope')).toEqual({ kind: 'not_found' });
    expect(table.resolve('GET', '/contacts/a/b')).toEqual({ kind: 'not_found' });
  });

  it('answers HEAD like GET, and never matches HEAD to another method', () => {
    expect(table.resolve('HEAD', '/contacts/abc')).toMatchObject({
      kind: 'match',
      route: { method: 'GET' },
      params: { contact_id: 'abc' },
    });
    expect(table.resolve('HEAD', '/contacts/c1/assign_tag/x')).toEqual({ kind: 'method_not_allowed', allowed: ['PUT'] });
  });

  it('ignores a trailing slash and method case', () => {
    expect(table.resolve('get', '/contacts/')).toMatchObject({ kind: 'match' });
  });

  it('strips any run of trailing slashes with a plain scan (a 16 KB run of slashes cost 0.35 s with /\\/+$/)', () => {
    expect(normalizePath('/')).toBe('/');
    expect(normalizePath('////')).toBe('/');
    expect(normalizePath('/contacts///')).toBe('/contacts');
    expect(normalizePath('/contacts/abc.json/')).toBe('/contacts/abc');
    expect(normalizePath(`/contacts${'/'.repeat(16_384)}`)).toBe('/contacts');
    expect(table.resolve('GET', `/contacts/${'/'.repeat(16_384)}x`)).toEqual({ kind: 'not_found' });
    expect(table.resolve('GET', `/contacts${'/'.repeat(16_384)}`)).toMatchObject({ kind: 'match', route: { path: '/contacts' } });
  });

  it('needs every parameter segment non-empty and every literal segment exact', () => {
    expect(table.resolve('GET', '/contacts//')).toMatchObject({ kind: 'match', route: { path: '/contacts' } });
    expect(table.resolve('PUT', '/contacts//assign_tag/x')).toEqual({ kind: 'not_found' });
    expect(table.resolve('GET', '/Contacts')).toEqual({ kind: 'not_found' });
    expect(table.resolve('GET', '/contacts/a%2Fb')).toMatchObject({ params: { contact_id: 'a/b' } });
  });
});
