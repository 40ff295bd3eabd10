import { API_PREFIX, API_ROUTES, ERROR_CATALOG, MCP_PATH, PROTECTED_RESOURCE_METADATA_PATH, type RouteDeclaration } from '@crm/contracts';
import { ValidationTypes } from 'class-validator';
// class-transformer's own store of @Type() metadata, so nested request classes get real schemas.
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[] };

const ENVELOPE_ERROR: Schema = {
  type: 'object',
  required: ['status', 'message', 'error_name', 'error_message', 'errors'],
  properties: {
    status: { type: 'integer', description: 'Application code; 400 for bad credentials, else the HTTP status' },
    message: { type: 'string' },
    error_name: { type: 'string', enum: Object.keys(ERROR_CATALOG) },
    error_message: { type: 'string' },
    errors: { type: 'object', additionalProperties: { type: 'string' }, description: 'Field name to message for validation failures' },
  },
};

const ENVELOPE_SUCCESS: Schema = {
  type: 'object',
  required: ['status', 'message', 'timestamp', 'data'],
  properties: {
    status: { type: 'integer', const: 0 },
    message: { type: 'string' },
    timestamp: { type: 'integer', description: 'Unix seconds' },
    data: { type: 'object' },
  },
};

/** The `{name}` parameters of a route's path, in order. */
export function pathParams(route: RouteDeclaration): string[] {
  return [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
}

/**
 * Nested classes (`@Type(() => X)`) are referenced as components/schemas/X. A custom validator
 * (registerDecorator) says nothing a schema can express: it adds no keyword (the library would
 * otherwise emit a dangling `$ref` to the property's design type, e.g. `Object`).
 */
export const SCHEMA_OPTIONS = {
  classTransformerMetadataStorage: defaultMetadataStorage,
  refPointerPrefix: '#/components/schemas/',
  additionalConverters: { [ValidationTypes.CUSTOM_VALIDATION]: {} },
};

function operation(route: RouteDeclaration) {
  const schema = targetConstructorToSchema(route.request, SCHEMA_OPTIONS) as Schema;
  const props = schema.properties ?? {};
  const inPath = pathParams(route);
  const rest = Object.keys(props).filter((name) => !inPath.includes(name));
  const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  const parameters = [
    ...inPath.map((name) => ({ name, in: 'path', required: true, schema: { type: 'string' } })),
    ...(hasBody
      ? []
      : rest.map((name) => ({ name, in: 'query', required: schema.required?.includes(name) ?? false, schema: props[name] }))),
  ];
  const errors = Object.fromEntries(
    ['400', '401', '402', '403', '404', '405', '429', '500', '503'].map((code) => [
      code,
      { $ref: code === '429' ? '#/components/responses/TooMany' : '#/components/responses/Error' },
    ]),
  );
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    security: route.apiKeyOnly ? [{ basicAuth: [] }] : [{ basicAuth: [] }, { oauth2: [route.access === 'read' ? 'crm.readonly' : 'crm'] }],
    parameters,
    ...(hasBody && rest.length > 0
      ? {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: Object.fromEntries(rest.map((n) => [n, props[n]])),
                  required: (schema.required ?? []).filter((n) => rest.includes(n)),
                },
              },
            },
          },
        }
      : {}),
    responses: {
      [String(route.successStatus)]: {
        description: 'Success',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/SuccessEnvelope' } } },
      },
      ...errors,
    },
  };
}

/** OpenAPI 3.1 for every declared route; each path also answers with a `.json` suffix. */
export function buildOpenApi(options: { serverUrl: string; authUrl: string; routes?: readonly RouteDeclaration[] }) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of options.routes ?? API_ROUTES) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operation(route);
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'CRM API',
      version: '3',
      description:
        'Every path also answers with a `.json` suffix on its last segment. Errors use the error envelope; branch on `error_name`.\n\n' +
        `AI assistants: an MCP server (Streamable HTTP) is at ${options.serverUrl}${MCP_PATH}, with tools over these operations; ` +
        `it accepts OAuth access tokens issued for that resource (protected resource metadata at ${options.serverUrl}${PROTECTED_RESOURCE_METADATA_PATH}${MCP_PATH}).`,
    },
    'x-mcp-server': { url: `${options.serverUrl}${MCP_PATH}`, transport: 'streamable-http' },
    servers: [{ url: `${options.serverUrl}${API_PREFIX}` }],
    paths,
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'user_id as username, API key as password' },
        oauth2: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${options.authUrl}/oauth/authorize`,
              tokenUrl: `${options.authUrl}/oauth/token`,
              refreshUrl: `${options.authUrl}/oauth/token`,
              scopes: { crm: 'Full read and write', 'crm.readonly': 'Read-only', mcp: 'AI / MCP integrations' },
            },
          },
        },
      },
      schemas: {
        ...(validationMetadatasToSchemas(SCHEMA_OPTIONS) as Record<string, Schema>),
        SuccessEnvelope: ENVELOPE_SUCCESS,
        ErrorEnvelope: ENVELOPE_ERROR,
      },
      responses: {
        Error: {
          description: 'Error envelope',
          content: { 'application/json': { schema: { $ref: '#/components/schemas/ErrorEnvelope' } } },
        },
        TooMany: {
          description: 'Too many concurrent requests',
          headers: { 'Retry-After': { schema: { type: 'integer' } } },
          content: { 'text/plain': { schema: { type: 'string' } } },
        },
      },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApi>;
