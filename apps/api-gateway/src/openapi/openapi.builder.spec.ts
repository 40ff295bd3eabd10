import { API_ROUTES } from '@crm/contracts';
import { RouteTable } from '../routing/route-table';
import { buildOpenApi } from './openapi.builder';

describe('OpenAPI document', () => {
  const doc = buildOpenApi({ serverUrl: 'https://api.example', authUrl: 'https://auth.example' });

  it('is OpenAPI 3.1 with the API base URL', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://api.example/api/v3' }]);
  });

  it('covers every registered route with its method and operation id', () => {
    const table = new RouteTable();
    for (const route of API_ROUTES) {
      const op = doc.paths[route.path]?.[route.method.toLowerCase()] as { operationId: string } | undefined;
      expect(op?.operationId).toBe(route.operationId);
      // ...and the route the gateway serves is the one documented.
      expect(table.resolve(route.method, route.path.replace(/\{[a-z_]+\}/g, '0123456789abcdef01234567'))).toMatchObject({
        kind: 'match',
        route: { operationId: route.operationId },
      });
    }
    const documented = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(documented).toBe(API_ROUTES.length);
  });

  it('documents path parameters and query parameters from the request classes', () => {
    const getUser = doc.paths['/users/{user_id}'].get as { parameters: Array<{ name: string; in: string }> };
    expect(getUser.parameters).toContainEqual(expect.objectContaining({ name: 'user_id', in: 'path' }));
    const listUsers = doc.paths['/users'].get as { parameters: Array<{ name: string; in: string }> };
    expect(listUsers.parameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual([
      'query:date_filter',
      'query:modified_since',
      'query:page',
      'query:per_page',
      'query:since',
      'query:unmodified_since',
      'query:until',
    ]);
  });

  it('resolves every schema reference inside the document (nested request classes included)', () => {
    const refs = [...new Set(JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [])].map((r) => r.slice(8, -1));
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const [, section, name] = /^#\/components\/(schemas|responses)\/(.+)$/.exec(ref) ?? [];
      expect([ref, section && (doc.components as Record<string, Record<string, unknown>>)[section][name] !== undefined]).toEqual([
        ref,
        true,
      ]);
    }
    const createContact = doc.paths['/contacts'].post as {
      requestBody: { content: { 'application/json': { schema: { properties: Record<string, unknown> } } } };
    };
    expect(createContact.requestBody.content['application/json'].schema.properties.emails).toEqual(
      expect.objectContaining({ items: { $ref: '#/components/schemas/EmailInput' } }),
    );
  });
});

describe('the OpenAPI description names the MCP endpoint', () => {
  it('points AI assistants at {server}/mcp', () => {
    const doc = buildOpenApi({ serverUrl: 'https://api.example.com', authUrl: 'https://auth.example.com' });
    expect(doc.info.description).toContain('https://api.example.com/mcp');
    expect(doc['x-mcp-server']).toEqual({ url: 'https://api.example.com/mcp', transport: 'streamable-http' });
  });
});
