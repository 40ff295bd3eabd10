import { API_ROUTES, contractProperties, MCP_MAX_PER_PAGE, MCP_RESOURCES, MCP_TOOLS } from '@crm/contracts';
import { toolInputSchema, IDEMPOTENCY_KEY_ARGUMENT, type JsonSchema } from './mcp-schemas';

const route = (operationId: string) => API_ROUTES.find((r) => r.operationId === operationId)!;

describe('MCP tools derived from the route declarations', () => {
  const schemas = new Map(MCP_TOOLS.map((tool) => [tool.name, toolInputSchema(tool, route(tool.operationId))]));

  it('names only declared routes, and only the writes scope mcp may do', () => {
    for (const tool of MCP_TOOLS) {
      expect(route(tool.operationId)).toBeDefined();
      for (const read of tool.with ?? []) expect(route(read.operationId)?.access).toBe('read');
      const r = route(tool.operationId);
      if (r.access === 'write') expect(r.mcpWrite).toBe(true);
    }
    for (const resource of MCP_RESOURCES) {
      expect(route(resource.operationId)?.access).toBe('read');
      const known = contractProperties(route(resource.operationId).request);
      for (const key of Object.keys(resource.fixed))
        expect({ uri: resource.uri, key, known: known.has(key) }).toEqual({ uri: resource.uri, key, known: true });
    }
  });

  it('gives every tool a standalone object schema taken from its request class', () => {
    for (const [name, schema] of schemas) {
      expect(schema.type).toBe('object');
      expect(JSON.stringify(schema)).not.toContain('$ref');
      expect(Object.keys(schema.properties ?? {}).length).toBeGreaterThan(0);
      for (const required of schema.required ?? []) expect(schema.properties).toHaveProperty(required);
      expect({ name, additional: schema.additionalProperties }).toEqual({ name, additional: false });
    }
    // The note's text limit and required contact come from CreateNoteRequest itself.
    const note = schemas.get('create_note')!;
    expect(note.required).toContain('contact_id');
    expect(note.properties!.text).toMatchObject({ type: 'string', maxLength: expect.any(Number) });
  });

  it('offers idempotency_key on writes only, and caps per_page on lists', () => {
    for (const tool of MCP_TOOLS) {
      const schema = schemas.get(tool.name)!;
      const write = route(tool.operationId).access === 'write';
      expect({ tool: tool.name, key: IDEMPOTENCY_KEY_ARGUMENT in schema.properties! }).toEqual({ tool: tool.name, key: write });
      if (schema.properties!.per_page) {
        expect(schema.properties!.per_page).toMatchObject({ maximum: MCP_MAX_PER_PAGE });
        expect(schema.required ?? []).not.toContain('per_page');
        expect(schema.required ?? []).not.toContain('page');
      }
    }
  });

  it('hides fixed and omitted arguments, and every fixed one is a property of the request class', () => {
    const stream = schemas.get('list_action_stream')!;
    expect(Object.keys(stream.properties!).sort()).toEqual(['page', 'per_page', 'search']);
    const contacts = schemas.get('search_contacts')!;
    expect(contacts.properties).not.toHaveProperty('fields');
    expect(contacts.properties).toHaveProperty('action_stream');
    for (const tool of MCP_TOOLS) {
      const all = (toolInputSchema({ ...tool, pick: undefined, omit: [], fixed: {} }, route(tool.operationId)) as JsonSchema).properties!;
      for (const key of [...Object.keys(tool.fixed ?? {}), ...(tool.pick ?? [])])
        expect({ tool: tool.name, key, known: key in all }).toEqual({ tool: tool.name, key, known: true });
    }
  });
});
