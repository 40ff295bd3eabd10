import { API_ROUTES, ERROR_CATALOG, ErrorName, REPLY_SCHEMAS } from '@crm/contracts';
import { RouteTable } from '../routing/route-table';
import { buildOpenApi } from './openapi.builder';

type Parameter = {
  name?: string;
  in?: string;
  required?: boolean;
  description?: string;
  example?: unknown;
  schema?: Record<string, unknown>;
};
type Operation = {
  operationId: string;
  parameters: Array<Parameter & { $ref?: string }>;
  requestBody?: { content: { 'application/json': { schema: { properties: Record<string, unknown>; required?: string[] } } } };
  responses: Record<string, { $ref?: string; headers?: Record<string, unknown>; content?: Record<string, { schema: unknown }> }>;
  security: Array<Record<string, string[]>>;
};

describe('OpenAPI document', () => {
  const doc = buildOpenApi({ serverUrl: 'https://api.example', authUrl: 'https://auth.example' });
  const operations = Object.values(doc.paths).flatMap((ops) => Object.values(ops) as Operation[]);
  const op = (path: string, method: string) => doc.paths[path][method] as Operation;
  const ownParameters = (o: Operation) => o.parameters.filter((p): p is Parameter => p.name !== undefined);

  it('is OpenAPI 3.1 with the API base URL', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://api.example/api/v3', description: 'This CRM' }]);
  });

  it('covers every registered route with its method and operation id', () => {
    const table = new RouteTable();
    for (const route of API_ROUTES) {
      const o = doc.paths[route.path]?.[route.method.toLowerCase()] as Operation | undefined;
      expect(o?.operationId).toBe(route.operationId);
      // ...and the route the gateway serves is the one documented.
      expect(table.resolve(route.method, route.path.replace(/\{[a-z_]+\}/g, '0123456789abcdef01234567'))).toMatchObject({
        kind: 'match',
        route: { operationId: route.operationId },
      });
    }
    expect(operations).toHaveLength(API_ROUTES.length);
  });

  it('documents path parameters and query parameters from the request classes', () => {
    expect(ownParameters(op('/users/{user_id}', 'get'))).toContainEqual(
      expect.objectContaining({ name: 'user_id', in: 'path', required: true }),
    );
    expect(
      ownParameters(op('/users', 'get'))
        .map((p) => `${p.in}:${p.name}`)
        .sort(),
    ).toEqual([
      'query:date_filter',
      'query:modified_since',
      'query:page',
      'query:per_page',
      'query:since',
      'query:unmodified_since',
      'query:until',
    ]);
  });

  it('gives every parameter a description and an example, and marks optional parameters optional', () => {
    for (const o of operations) {
      for (const p of ownParameters(o)) {
        expect([o.operationId, p.name, typeof p.description, (p.description ?? '').length > 0, p.example === undefined]).toEqual([
          o.operationId,
          p.name,
          'string',
          true,
          false,
        ]);
        if (p.in === 'query' && (p.name === 'page' || p.name === 'per_page'))
          expect([o.operationId, p.name, p.required]).toEqual([o.operationId, p.name, false]);
      }
    }
    const page = ownParameters(op('/notes', 'get')).find((p) => p.name === 'page')!;
    expect(page.schema).toMatchObject({ type: 'integer', minimum: 1, default: 1 });
  });

  it('gives the time filters real schemas', () => {
    const params = ownParameters(op('/contacts', 'get'));
    for (const name of ['since', 'until', 'modified_since', 'unmodified_since']) {
      const p = params.find((x) => x.name === name)!;
      expect(p.schema).toMatchObject({ type: 'string', pattern: expect.any(String) });
      const pattern = new RegExp(p.schema!.pattern as string);
      expect(['2026-01-31', '1767225600', 'yesterday'].map((v) => pattern.test(v))).toEqual([true, true, false]);
    }
    expect(params.find((x) => x.name === 'date_filter')!.schema).toMatchObject({
      type: 'string',
      enum: expect.arrayContaining(['created_at']),
    });
  });

  it('marks the required body fields required (POST /deals needs a name)', () => {
    expect(op('/deals', 'post').requestBody!.content['application/json'].schema.required).toEqual(
      expect.arrayContaining(['name', 'contact_id']),
    );
    // The per-contact create takes contact_id from the path.
    expect(op('/contacts/{contact_id}/deals', 'post').requestBody!.content['application/json'].schema.required).toEqual(['name']);
    expect(op('/notes/{note_id}', 'put').requestBody!.content['application/json'].schema.required ?? []).not.toContain('partial');
  });

  it('types every success as the envelope around the route reply, generated from the contracts', () => {
    for (const route of API_ROUTES) {
      const o = op(route.path, route.method.toLowerCase());
      const schema = o.responses[String(route.successStatus)].content!['application/json'].schema as { allOf: unknown[] };
      expect(schema.allOf).toContainEqual({ $ref: '#/components/schemas/SuccessEnvelope' });
      expect(schema.allOf).toContainEqual(
        expect.objectContaining({ properties: { data: { $ref: `#/components/schemas/${route.reply}` } } }),
      );
      expect(REPLY_SCHEMAS[route.reply]).toBeDefined();
    }
    // The note DTO's fields come through, typed.
    const noteDto = doc.components.schemas.NoteDto as { properties: Record<string, unknown>; required: string[] };
    expect(noteDto.properties.attachments).toEqual({ type: 'array', items: { $ref: '#/components/schemas/AttachmentDto' } });
    expect(noteDto.required).toEqual(expect.arrayContaining(['id', 'contact_id', 'text', 'created_at']));
  });

  it('emits only public, used components', () => {
    const names = Object.keys(doc.components.schemas);
    for (const internal of ['GatewayConfig', 'ProvisionAccountMessage', 'ResolveCredentialsRequest', 'SetClockRequest'])
      expect(names).not.toContain(internal);
    const text = JSON.stringify({ paths: doc.paths, components: { ...doc.components, schemas: {} } });
    const schemas = JSON.stringify(doc.components.schemas);
    for (const name of names)
      expect([name, text.includes(`"#/components/schemas/${name}"`) || schemas.includes(`"#/components/schemas/${name}"`)]).toEqual([
        name,
        true,
      ]);
  });

  it('documents the headers the gateway sends and reads', () => {
    const post = op('/contacts', 'post');
    const get = op('/contacts/{contact_id}', 'get');
    expect(post.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(get.parameters).toContainEqual({ $ref: '#/components/parameters/RequestId' });
    expect(doc.components.parameters.IdempotencyKey.name).toBe('Idempotency-Key');
    expect(Object.keys(get.responses['200'].headers!)).toEqual(
      expect.arrayContaining(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'ETag']),
    );
    expect(Object.keys(post.responses['201'].headers!)).toContain('Idempotent-Replayed');
    expect(Object.keys(doc.components.responses.Unauthorized.headers)).toContain('WWW-Authenticate');
    expect(Object.keys(doc.components.responses.TooManyRequests.headers)).toContain('Retry-After');
    expect(Object.keys(doc.components.responses.Forbidden.content)).toEqual(['application/json', 'text/plain']);
  });

  it('describes the security schemes and the error envelope', () => {
    const oauth = doc.components.securitySchemes.oauth2.flows.authorizationCode;
    expect(oauth).toMatchObject({ authorizationUrl: 'https://auth.example/oauth/authorize', tokenUrl: 'https://auth.example/oauth/token' });
    expect(Object.keys(oauth.scopes).sort()).toEqual(['crm', 'crm.readonly', 'mcp']);
    expect(op('/change_auth_key', 'post').security).toEqual([{ basicAuth: [] }]);
    expect(op('/notes', 'get').security).toContainEqual({ oauth2: ['crm.readonly'] });
    expect([...(doc.components.schemas.ErrorName as { enum: string[] }).enum].sort()).toEqual(Object.keys(ERROR_CATALOG).sort());
    const notFound = doc.components.responses.NotFound.content['application/json'] as { example: { error_name: string } };
    expect(notFound.example.error_name).toBe(ErrorName.ResourceNotFound);
  });

  it('resolves every reference inside the document', () => {
    const refs = [...new Set(JSON.stringify(doc).match(/"\$ref":"[^"]+"/g) ?? [])].map((r) => r.slice(8, -1));
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const [, section, name] = /^#\/components\/(schemas|responses|parameters|headers)\/(.+)$/.exec(ref) ?? [];
      expect([ref, section && (doc.components as unknown as Record<string, Record<string, unknown>>)[section][name] !== undefined]).toEqual(
        [ref, true],
      );
    }
    const createContact = op('/contacts', 'post');
    expect(createContact.requestBody!.content['application/json'].schema.properties.emails).toEqual(
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
