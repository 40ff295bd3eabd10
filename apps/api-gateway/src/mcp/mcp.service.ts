import { Inject, Injectable } from '@nestjs/common';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
  API_ROUTES,
  ApiError,
  ErrorName,
  MCP_DEFAULT_PER_PAGE,
  MCP_MAX_PER_PAGE,
  MCP_PROMPTS,
  MCP_RESOURCES,
  MCP_TOOLS,
  type Caller,
  type ListFormat,
  type McpToolDeclaration,
  type RouteDeclaration,
} from '@crm/contracts';
import { LOGGER } from '@crm/service-kit';
import type { Logger } from 'pino';
import { ApiPipeline } from '../api/api-pipeline';
import { pathParams } from '../openapi/openapi.builder';
import { IDEMPOTENCY_KEY_ARGUMENT, toolInputSchema, type JsonSchema } from './mcp-schemas';
import { boundedResult } from './mcp-result';
import { boundedUnknownArguments, checkPromptArguments, echoed } from './mcp-bounds';

const ROUTES = new Map(API_ROUTES.map((route) => [route.operationId, route]));

function routeOf(operationId: string): RouteDeclaration {
  const route = ROUTES.get(operationId);
  if (!route) throw new Error(`MCP declares an unknown route ${operationId}`);
  return route;
}

interface CatalogTool {
  declaration: McpToolDeclaration;
  route: RouteDeclaration;
  schema: JsonSchema;
  tool: Tool;
}

/** The tools as MCP lists them, built once from the declarations and the routes' request classes. */
function buildCatalog(): Map<string, CatalogTool> {
  const catalog = new Map<string, CatalogTool>();
  for (const declaration of MCP_TOOLS) {
    const route = routeOf(declaration.operationId);
    for (const read of declaration.with ?? []) routeOf(read.operationId);
    const schema = toolInputSchema(declaration, route);
    const write = route.access === 'write';
    catalog.set(declaration.name, {
      declaration,
      route,
      schema,
      tool: {
        name: declaration.name,
        title: declaration.title,
        description: declaration.description,
        inputSchema: schema as Tool['inputSchema'],
        annotations: {
          title: declaration.title,
          readOnlyHint: !write,
          destructiveHint: false,
          idempotentHint: !write || route.method === 'PUT',
          openWorldHint: false,
        },
      },
    });
  }
  return catalog;
}

const INSTRUCTIONS =
  'Tools of a sales CRM (contacts, companies, deals, notes, calls, actions), acting as the signed-in user with the REST API v3 rules. ' +
  'Ids come from the search and get tools and from the crm://account/... resources (statuses, pipelines, fields, users). ' +
  'Lists page: pass page (from 1) and per_page (at most 25); the answer says total_count and max_page. ' +
  'Writes take an idempotency_key: reuse it when retrying the same write. Errors carry the API error_name and field errors.';

/**
 * The MCP server: a fresh protocol server per HTTP request (the transport is stateless, so any
 * gateway replica answers any request), whose tools, resources and prompts call the API through
 * the same pipeline as REST: scope rules, validation, idempotency and account isolation are the
 * REST API's own.
 */
@Injectable()
export class McpService {
  private readonly catalog = buildCatalog();

  constructor(
    private readonly pipeline: ApiPipeline,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  get tools(): Tool[] {
    return [...this.catalog.values()].map((entry) => entry.tool);
  }

  createServer(caller: Caller): Server {
    const server = new Server(
      { name: 'crm', title: 'CRM', version: '3.0.0' },
      {
        capabilities: { tools: { listChanged: false }, resources: { listChanged: false }, prompts: { listChanged: false } },
        instructions: INSTRUCTIONS,
      },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: this.tools }));
    server.setRequestHandler(CallToolRequestSchema, (request) =>
      this.callTool(caller, request.params.name, request.params.arguments ?? {}),
    );
    server.setRequestHandler(ListResourcesRequestSchema, () => ({
      resources: MCP_RESOURCES.map(({ uri, name, title, description }) => ({
        uri,
        name,
        title,
        description,
        mimeType: 'application/json',
      })),
    }));
    server.setRequestHandler(ReadResourceRequestSchema, (request) => this.readResource(caller, request.params.uri));
    server.setRequestHandler(ListPromptsRequestSchema, () => ({
      prompts: MCP_PROMPTS.map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: [...args] })),
    }));
    server.setRequestHandler(GetPromptRequestSchema, (request) => {
      const prompt = MCP_PROMPTS.find((p) => p.name === request.params.name);
      if (!prompt)
        throw new McpError(ErrorCode.InvalidParams, `Unknown prompt ${echoed(request.params.name)}; prompts/list names the prompts`);
      const args = request.params.arguments ?? {};
      checkPromptArguments(prompt.arguments, args);
      const missing = prompt.arguments.filter((a) => a.required && !args[a.name]).map((a) => a.name);
      if (missing.length > 0) throw new McpError(ErrorCode.InvalidParams, `Missing prompt arguments: ${missing.join(', ')}`);
      const text = prompt.template.replace(/\{([a-z_]+)\}/g, (_, name: string) => args[name] || '(not given)');
      return { description: prompt.description, messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] };
    });
    return server;
  }

  async callTool(caller: Caller, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    const entry = this.catalog.get(name);
    if (!entry) throw new McpError(ErrorCode.InvalidParams, `Unknown tool ${echoed(name)}; tools/list names the tools`);
    try {
      const { declaration, route, schema } = entry;
      const unknown = Object.keys(args).filter((key) => !(key in (schema.properties ?? {})));
      if (unknown.length > 0) {
        throw ApiError.invalid(boundedUnknownArguments(unknown));
      }
      const { [IDEMPOTENCY_KEY_ARGUMENT]: key, ...rest } = args;
      if (key !== undefined && typeof key !== 'string') throw ApiError.invalid({ [IDEMPOTENCY_KEY_ARGUMENT]: 'must be a string' });
      const values: Record<string, unknown> = { ...rest, ...declaration.fixed };
      if ('per_page' in (schema.properties ?? {})) values.per_page = perPage(values.per_page);
      const data = await this.call(caller, route, values, key);
      for (const read of declaration.with ?? []) {
        (data as Record<string, unknown>)[read.key] = await this.call(caller, routeOf(read.operationId), {
          ...read.fixed,
          [read.from]: args[read.from],
        });
      }
      const result = boundedResult(data);
      return { content: [{ type: 'text', text: result.text }], structuredContent: result.json as Record<string, unknown> };
    } catch (error) {
      if (!(error instanceof ApiError)) this.logger.error({ err: error, tool: name }, 'MCP tool failed');
      return toolError(error);
    }
  }

  private async readResource(caller: Caller, uri: string) {
    const resource = MCP_RESOURCES.find((r) => r.uri === uri);
    if (!resource) throw new McpError(ErrorCode.InvalidParams, `Unknown resource ${echoed(uri)}; resources/list names the resources`);
    try {
      const data = await this.call(caller, routeOf(resource.operationId), { ...resource.fixed });
      return { contents: [{ uri, mimeType: 'application/json', text: boundedResult(data).text }] };
    } catch (error) {
      const { error_name, error_message } = errorBody(error);
      throw new McpError(ErrorCode.InternalError, `${error_name}: ${error_message}`, { error_name });
    }
  }

  /** One route through the API pipeline; path parameters travel as the REST router would pass them. */
  private async call(caller: Caller, route: RouteDeclaration, values: Record<string, unknown>, idempotencyKey?: string): Promise<unknown> {
    const params: Record<string, string> = {};
    const fields: Record<string, unknown> = {};
    const inPath = new Set(pathParams(route));
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) continue;
      if (inPath.has(name)) {
        if (typeof value !== 'string' || value === '') throw ApiError.invalid({ [name]: `${name} must be a non-empty string` });
        params[name] = value;
      } else fields[name] = value;
    }
    const missing = [...inPath].filter((name) => params[name] === undefined);
    if (missing.length > 0) throw ApiError.invalid(Object.fromEntries(missing.map((name) => [name, `${name} is required`])));
    const hasBody = route.method !== 'GET' && route.method !== 'DELETE';
    // Tool answers are objects (structuredContent), and a list's total_count tells the assistant there is more: always paged.
    const input = hasBody ? { query: {}, body: fields } : { query: fields, body: undefined, listFormat: 'paged' satisfies ListFormat };
    const outcome = await this.pipeline.run(caller, { route, params }, input, route.method === 'POST' ? idempotencyKey : undefined);
    return (outcome.body as { data?: unknown }).data ?? {};
  }
}

function perPage(value: unknown): unknown {
  if (value === undefined) return MCP_DEFAULT_PER_PAGE;
  return typeof value === 'number' && Number.isInteger(value) && value > MCP_MAX_PER_PAGE ? MCP_MAX_PER_PAGE : value;
}

function errorBody(error: unknown): { status: number; error_name: string; error_message: string; errors: Record<string, string> } {
  const apiError = error instanceof ApiError ? error : new ApiError(ErrorName.InternalServerError);
  return { status: apiError.http, ...apiError.toData() };
}

/** An API error as an MCP tool error an assistant can act on: the error_name and the field errors. */
function toolError(error: unknown): CallToolResult {
  const body = errorBody(error);
  return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }], structuredContent: body };
}
