import {
  ALWAYS_VALIDATE,
  API_PREFIX,
  API_ROUTES,
  CUSTOM_RULE_SCHEMAS,
  ERROR_CATALOG,
  ErrorName,
  FIELD_DOCS,
  IF_MATCH_OPERATIONS,
  LIST_FORMAT_HEADER,
  LIST_FORMATS,
  MCP_PATH,
  parameterDoc,
  PROTECTED_RESOURCE_METADATA_PATH,
  REPLY_SCHEMAS,
  type RouteDeclaration,
} from '@crm/contracts';
import { getMetadataStorage, ValidationTypes } from 'class-validator';
// class-transformer's own store of @Type() metadata, so nested request classes get real schemas.
import { defaultMetadataStorage } from 'class-transformer/cjs/storage';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[]; $ref?: string; description?: string };

const SCHEMA_REF = '#/components/schemas/';

/** The `{name}` parameters of a route's path, in order. */
export function pathParams(route: RouteDeclaration): string[] {
  return [...route.path.matchAll(/\{([a-z_]+)\}/g)].map((m) => m[1]);
}

/**
 * Nested classes (`@Type(() => X)`) are referenced as components/schemas/X. A custom validator
 * (registerDecorator) contributes the schema its rule stands for (CUSTOM_RULE_SCHEMAS in the
 * contracts), or nothing (the library would otherwise emit a dangling `$ref` to the property's
 * design type, e.g. `Object`).
 */
export const SCHEMA_OPTIONS = {
  classTransformerMetadataStorage: defaultMetadataStorage,
  refPointerPrefix: SCHEMA_REF,
  additionalConverters: {
    [ValidationTypes.CUSTOM_VALIDATION]: (meta: { name?: string }) => ({ ...(CUSTOM_RULE_SCHEMAS[meta.name ?? ''] ?? {}) }),
  },
};

/** The server URLs of the copy in libs/sdk (the gateway serves its own PUBLIC_URL and PUBLIC_AUTH_URL). */
export const SDK_DOCUMENT_URLS = { serverUrl: 'http://localhost:3000', authUrl: 'http://localhost:3001' };

/** Headers the gateway sets (rate-limiter.ts, request-context.middleware.ts, api-authenticator.ts, api/reply.ts). */
const HEADERS = {
  RequestId: {
    description:
      "The request's id: the caller's `X-Request-Id` when it is a safe token, else a new one. Quote it when reporting a problem.",
    schema: { type: 'string', example: 'req-4f2c9a7d1b' },
  },
  RateLimitLimit: { description: 'Requests allowed per user per minute.', schema: { type: 'integer', example: 6000 } },
  RateLimitRemaining: { description: 'Requests left in the current minute.', schema: { type: 'integer', example: 5999 } },
  RateLimitReset: { description: 'When the current minute ends, in Unix seconds.', schema: { type: 'integer', example: 1767225660 } },
  RetryAfter: { description: 'Seconds to wait before trying again.', schema: { type: 'integer', example: 1 } },
  ETag: {
    description:
      'Strong validator of `data` (not of the envelope: `timestamp` takes no part): `"<version>.<hash>"`, the version being the record\'s `modified_at` in milliseconds, base36 (`0` for lists). Send it in `If-None-Match` for `304 Not Modified` while `data` is unchanged, or in `If-Match` on a write to the record to make the write conditional.',
    schema: { type: 'string', example: '"mhxq1k2a.3kq9ZrLw0b4xVt1c"' },
  },
  IdempotentReplayed: {
    description: '`true` when this is the stored answer of an earlier request with the same `Idempotency-Key`.',
    schema: { type: 'string', enum: ['true'] },
  },
  WWWAuthenticate: {
    description: 'The schemes the API takes (RFC 9110); for a bad bearer token also `error="invalid_token"` (RFC 6750).',
    schema: { type: 'string', example: 'Basic realm="CRM API v3", charset="UTF-8", Bearer realm="CRM API v3"' },
  },
} as const;

const header = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });
const RATE_HEADERS = {
  'X-RateLimit-Limit': header('RateLimitLimit'),
  'X-RateLimit-Remaining': header('RateLimitRemaining'),
  'X-RateLimit-Reset': header('RateLimitReset'),
};

const PARAMETERS = {
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header',
    required: false,
    description:
      'Makes a POST safe to retry: a repeat with the same key and body returns the first answer (with `Idempotent-Replayed: true`) and writes nothing; the same key with another body is 409. Kept 24 hours per user and credential.',
    schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
    example: '0b9f6c1e-4c1a-4a55-9d0e-2f7c3b1a8e42',
  },
  RequestId: {
    name: 'X-Request-Id',
    in: 'header',
    required: false,
    description: 'Your id for this request (letters, digits, `-`, `_`, `.`, up to 128 characters); echoed back and logged.',
    schema: { type: 'string', maxLength: 128 },
    example: 'req-4f2c9a7d1b',
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header',
    required: false,
    description:
      'The `ETag` of an earlier answer (or several, comma-separated; `*` for any): `304 Not Modified` (no body) while `data` is unchanged.',
    schema: { type: 'string' },
    example: '"mhxq1k2a.3kq9ZrLw0b4xVt1c"',
  },
  ListFormat: {
    name: LIST_FORMAT_HEADER,
    in: 'header',
    required: false,
    description:
      "The format of `data` for this request, over the account's `list_format` setting: `paged` (the spec's object with `total_count`, `page`, `per_page`, `max_page`) or `onepagecrm` (OnePageCRM's bare array of entries; without `page` and `per_page` the whole list up to a cap). Any letter case.",
    schema: { type: 'string', enum: [...LIST_FORMATS] },
    example: 'onepagecrm',
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header',
    required: false,
    description:
      'The `ETag` of the record as you last read it (or several; `*` for any existing record): the write happens only while the record is still at that version, else `409 conflict` and nothing changes. Checked atomically with the write.',
    schema: { type: 'string' },
    example: '"mhxq1k2a.3kq9ZrLw0b4xVt1c"',
  },
};

/** Error responses by HTTP status, each with the error names the catalog gives that status. */
const ERROR_RESPONSES: Record<string, { name: string; description: string }> = {
  '400': { name: 'BadRequest', description: 'Invalid request data; `errors` names each field and the first rule it broke.' },
  '401': { name: 'Unauthorized', description: 'Missing or invalid credentials.' },
  '402': { name: 'PaymentRequired', description: "The account's trial has expired or its subscription was canceled." },
  '403': {
    name: 'Forbidden',
    description: 'Not allowed (error envelope), or the per-minute rate limit is exceeded (plain text `Rate Limit Exceeded`).',
  },
  '404': { name: 'NotFound', description: "No such record in the caller's account (or no such route)." },
  '409': {
    name: 'Conflict',
    description: 'The request conflicts with the current state (a stale `If-Match`, or a reused `Idempotency-Key`).',
  },
  '415': { name: 'UnsupportedMediaType', description: 'The body is not sent as `application/json`.' },
  '429': { name: 'TooManyRequests', description: "Too many of the user's requests are running at once (plain text)." },
  '500': { name: 'InternalServerError', description: 'An internal error; it has been logged.' },
  '503': { name: 'ServiceUnavailable', description: 'A dependency is briefly unavailable; retry after `Retry-After`.' },
};

const errorNamesOf = (http: number) => Object.values(ErrorName).filter((name) => ERROR_CATALOG[name].http === http);

function errorResponse(status: string) {
  const http = Number(status);
  const names = errorNamesOf(http);
  const headers: Record<string, unknown> = { 'X-Request-Id': header('RequestId') };
  if (http === 401) headers['WWW-Authenticate'] = header('WWWAuthenticate');
  if (http === 403 || http === 429) Object.assign(headers, RATE_HEADERS, { 'Retry-After': header('RetryAfter') });
  if (http === 503) headers['Retry-After'] = header('RetryAfter');
  const content: Record<string, unknown> = {};
  if (names.length > 0) {
    const spec = ERROR_CATALOG[names[0]];
    content['application/json'] = {
      schema: {
        allOf: [{ $ref: `${SCHEMA_REF}ErrorEnvelope` }, { type: 'object', properties: { error_name: { type: 'string', enum: names } } }],
      },
      example: {
        status: spec.bodyStatus,
        message: spec.message,
        error_name: names[0],
        error_message: spec.errorMessage,
        errors: http === 400 ? { name: 'name is required' } : {},
      },
    };
  }
  if (http === 403 || http === 429) {
    content['text/plain'] = {
      schema: { type: 'string', enum: [http === 403 ? 'Rate Limit Exceeded' : 'Too Many Requests'] },
      example: http === 403 ? 'Rate Limit Exceeded' : 'Too Many Requests',
    };
  }
  return { description: ERROR_RESPONSES[status].description, headers, content };
}

/** The success envelope of a route: `{ status: 0, message, timestamp, data: <its reply> }` (plus summary blocks). */
function successSchema(route: RouteDeclaration): Schema {
  const data: Schema = {
    type: 'object',
    required: ['data'],
    properties: { data: { $ref: `${SCHEMA_REF}${route.reply}` } },
  };
  return {
    allOf: [{ $ref: `${SCHEMA_REF}SuccessEnvelope` }, data, ...(route.replySummary ? [{ $ref: `${SCHEMA_REF}SummaryBlocks` }] : [])],
  };
}

/** The JSDoc of a request class's field, from the class or the nearest ancestor that documents it. */
function fieldDoc(request: RouteDeclaration['request'], field: string): string | undefined {
  for (let cls: unknown = request; typeof cls === 'function' && cls !== Function.prototype; cls = Object.getPrototypeOf(cls)) {
    const doc = FIELD_DOCS[(cls as { name: string }).name]?.[field];
    if (doc) return doc;
  }
  return undefined;
}

/**
 * Required fields of a request class as the API enforces them, from class-validator's effective
 * rules (a subclass's own conditional replaces an inherited one): a field without a conditional rule
 * (IsOptional, ValidateIf) other than ALWAYS_VALIDATE, and without a default value.
 */
function requiredFields(request: RouteDeclaration['request']): Set<string> {
  const metadatas = getMetadataStorage().getTargetValidationMetadatas(request, '', true, false);
  const defaults = new request() as Record<string, unknown>;
  const required = new Set<string>();
  for (const field of new Set(metadatas.map((m) => m.propertyName))) {
    const conditional = metadatas.some(
      (m) => m.propertyName === field && m.type === ValidationTypes.CONDITIONAL_VALIDATION && m.constraints?.[0] !== ALWAYS_VALIDATE,
    );
    if (!conditional && defaults[field] === undefined) required.add(field);
  }
  return required;
}

/** A parameter's schema: nullable types are not for query strings, and a default value is shown. */
function parameterSchema(schema: Schema | undefined, fallback: Schema, defaultValue: unknown): Schema {
  const result: Schema = { ...(schema && Object.keys(schema).length > 0 ? schema : fallback) };
  delete result.description;
  if (defaultValue !== undefined) result.default = defaultValue;
  return result;
}

function describedParameter(route: RouteDeclaration, name: string, where: 'path' | 'query', schema: Schema, required: boolean) {
  const shared = parameterDoc(name, where);
  const description = fieldDoc(route.request, name) ?? shared?.description ?? (schema.description as string | undefined);
  if (!description) throw new Error(`${route.operationId}: parameter ${name} has no description (add it to PARAMETER_DOCS or a JSDoc)`);
  const enumValues = Array.isArray(schema.enum) ? (schema.enum as unknown[]) : undefined;
  let example = shared?.example ?? enumValues?.[0] ?? (schema.default as unknown) ?? exampleOf(schema);
  if (schema.type === 'string' && typeof example !== 'string') example = String(example);
  if (enumValues && !enumValues.includes(example)) example = enumValues[0];
  return { name, in: where, required, description, schema, example };
}

function exampleOf(schema: Schema): unknown {
  switch (schema.type) {
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : 1;
    case 'boolean':
      return true;
    default:
      return 'text';
  }
}

/**
 * Replies whose `data` holds one record with `modified_at`: a write answering one also carries an
 * `ETag` (api/etag.ts gives one to every reply whose record has a version).
 */
const VERSIONED_REPLIES = new Set([
  'ActionReply',
  'CallReply',
  'CompanyReply',
  'ContactReply',
  'DealReply',
  'FieldReply',
  'FilterReply',
  'MeetingReply',
  'NoteReply',
  'NotificationReply',
  'PipelineReply',
  'PredefinedActionGroupReply',
  'PredefinedActionReply',
  'PredefinedItemReply',
  'RelationshipTypeReply',
  'WebhookReply',
]);

const answersRecord = (route: RouteDeclaration) => VERSIONED_REPLIES.has(route.reply);

function operation(route: RouteDeclaration) {
  const schema = targetConstructorToSchema(route.request, SCHEMA_OPTIONS) as Schema;
  const props = schema.properties ?? {};
  const required = requiredFields(route.request);
  const defaults = new route.request() as Record<string, unknown>;
  const inPath = pathParams(route);
  const rest = Object.keys(props).filter((name) => !inPath.includes(name));
  const hasBody = route.method === 'POST' || route.method === 'PUT' || route.method === 'PATCH';
  const conditional = IF_MATCH_OPERATIONS.has(route.operationId);
  const parameters: unknown[] = [
    ...inPath.map((name) => describedParameter(route, name, 'path', { type: 'string', minLength: 1 }, true)),
    ...(hasBody
      ? []
      : rest.map((name) =>
          describedParameter(
            route,
            name,
            'query',
            parameterSchema(props[name], { type: 'string' }, defaults[name]),
            required.has(name) && defaults[name] === undefined,
          ),
        )),
    { $ref: '#/components/parameters/RequestId' },
    ...(route.method === 'POST' ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ...(route.method === 'GET' ? [{ $ref: '#/components/parameters/IfNoneMatch' }] : []),
    ...(conditional ? [{ $ref: '#/components/parameters/IfMatch' }] : []),
    ...(route.listFormat ? [{ $ref: '#/components/parameters/ListFormat' }] : []),
  ];
  const bodyFields = Object.fromEntries(
    rest.map((name) => {
      const description = fieldDoc(route.request, name);
      const property = props[name];
      return [name, description ? (property.$ref ? { allOf: [property], description } : { ...property, description }) : property];
    }),
  );
  const bodyRequired = rest.filter((name) => required.has(name));
  const errors = [
    '400',
    '401',
    '402',
    '403',
    '404',
    ...(route.method === 'POST' || conditional ? ['409'] : []),
    ...(hasBody ? ['415'] : []),
    '429',
    '500',
    '503',
  ];
  const scopes = route.access === 'read' ? ['crm.readonly', 'crm', 'mcp'] : route.mcpWrite ? ['crm', 'mcp'] : ['crm'];
  const successHeaders: Record<string, unknown> = { 'X-Request-Id': header('RequestId'), ...RATE_HEADERS };
  if (route.method === 'GET' || answersRecord(route)) successHeaders.ETag = header('ETag');
  if (route.method === 'POST') successHeaders['Idempotent-Replayed'] = header('IdempotentReplayed');
  return {
    operationId: route.operationId,
    summary: route.summary,
    description: describeRoute(route, scopes),
    tags: [route.tag],
    security: route.apiKeyOnly ? [{ basicAuth: [] }] : [{ basicAuth: [] }, ...scopes.map((scope) => ({ oauth2: [scope] }))],
    parameters,
    ...(hasBody
      ? {
          requestBody: {
            required: bodyRequired.length > 0,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: bodyFields,
                  ...(bodyRequired.length > 0 ? { required: bodyRequired } : {}),
                },
              },
              ...(route.upload ? { 'multipart/form-data': { schema: multipartSchema(route.upload, bodyFields) } } : {}),
            },
          },
        }
      : {}),
    responses: {
      [String(route.successStatus)]: {
        description: route.successStatus === 201 ? 'Created' : 'Success',
        headers: successHeaders,
        content: { 'application/json': { schema: successSchema(route) } },
      },
      ...(route.method === 'GET' ? { '304': { description: 'Not modified: the `ETag` sent in `If-None-Match` still holds.' } } : {}),
      ...Object.fromEntries(errors.map((status) => [status, { $ref: `#/components/responses/${ERROR_RESPONSES[status].name}` }])),
    },
  };
}

function describeRoute(route: RouteDeclaration, scopes: string[]): string {
  const who =
    route.apiKeyOnly === 'unauthorized'
      ? 'API key only (a bearer token is refused with 401).'
      : route.apiKeyOnly === 'forbidden'
        ? 'API key only (a bearer token is refused with 403).'
        : `API key, or a bearer token with scope ${scopes.map((s) => `\`${s}\``).join(', ')}.`;
  const parts = [`**Authorization:** ${who}${route.adminOnly ? ' Account administrators only.' : ''}`];
  if (route.replySummary) parts.push('The envelope also carries the five summary blocks beside `data`.');
  if (route.replyCarriesSecret)
    parts.push('The answer carries a secret shown only once: a repeated `Idempotency-Key` gets 409, not a replay.');
  return parts.join('\n\n');
}

/** Every schema a `$ref` reaches from `value`, following references inside the schemas found. */
function referencedSchemas(value: unknown, available: Record<string, Schema>): Record<string, Schema> {
  const found: Record<string, Schema> = {};
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) return node.forEach(visit);
    if (node === null || typeof node !== 'object') return;
    const ref = (node as Schema).$ref;
    if (typeof ref === 'string' && ref.startsWith(SCHEMA_REF)) {
      const name = ref.slice(SCHEMA_REF.length);
      if (!found[name]) {
        const schema = available[name];
        if (!schema) throw new Error(`the OpenAPI document refers to an unknown schema ${name}`);
        found[name] = schema;
        visit(schema);
      }
    }
    Object.values(node).forEach(visit);
  };
  visit(value);
  return Object.fromEntries(Object.entries(found).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Field descriptions (JSDoc) on the nested request classes' schemas. */
function withFieldDocs(schemas: Record<string, Schema>): Record<string, Schema> {
  return Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => {
      const docs = FIELD_DOCS[name];
      if (!docs || !schema.properties) return [name, schema];
      const properties = Object.fromEntries(
        Object.entries(schema.properties).map(([field, property]) => {
          const description = docs[field];
          if (!description) return [field, property];
          return [field, property.$ref ? { allOf: [property], description } : { ...property, description }];
        }),
      );
      return [name, { ...schema, properties }];
    }),
  );
}

const ENVELOPE_SUCCESS: Schema = {
  type: 'object',
  description: 'Every success: `status` 0, `message`, `timestamp`, and the answer in `data`.',
  required: ['status', 'message', 'timestamp', 'data'],
  properties: {
    status: { type: 'integer', enum: [0], description: 'Always 0 on success.' },
    message: { type: 'string', description: 'Always `OK`.', example: 'OK' },
    timestamp: { type: 'integer', description: 'When the answer was made, in Unix seconds.', example: 1767225600 },
    data: { description: "The operation's answer (see each operation)." },
  },
};

const ENVELOPE_ERROR: Schema = {
  type: 'object',
  description: 'Every error answered as JSON. Branch on `error_name`, a stable identifier; `error_message` is for people.',
  required: ['status', 'message', 'error_name', 'error_message', 'errors'],
  properties: {
    status: { type: 'integer', description: 'The HTTP status, except 400 for bad credentials (a 401 answer).', example: 404 },
    message: { type: 'string', description: 'Short summary of the error kind.', example: 'Not found' },
    error_name: { $ref: `${SCHEMA_REF}ErrorName` },
    error_message: { type: 'string', description: 'What went wrong, for people.', example: 'The requested resource was not found' },
    errors: {
      type: 'object',
      additionalProperties: { type: 'string' },
      description: 'For invalid request data: each field (`phones.0.value` for nested ones) and the first rule it broke.',
      example: {},
    },
  },
};

/** OpenAPI 3.1 for every declared route; each path also answers with a `.json` suffix. */
export function buildOpenApi(options: { serverUrl: string; authUrl: string; routes?: readonly RouteDeclaration[] }) {
  const paths: Record<string, Record<string, unknown>> = {};
  const tags = new Map<string, number>();
  for (const route of options.routes ?? API_ROUTES) {
    paths[route.path] ??= {};
    paths[route.path][route.method.toLowerCase()] = operation(route);
    tags.set(route.tag, (tags.get(route.tag) ?? 0) + 1);
  }
  const responses = Object.fromEntries(Object.keys(ERROR_RESPONSES).map((status) => [ERROR_RESPONSES[status].name, errorResponse(status)]));
  const requestSchemas = withFieldDocs(validationMetadatasToSchemas(SCHEMA_OPTIONS) as Record<string, Schema>);
  const clash = Object.keys(REPLY_SCHEMAS).find((name) => name in requestSchemas);
  if (clash) throw new Error(`${clash} names both a request class and a reply type: rename one`);
  const available: Record<string, Schema> = {
    ...requestSchemas,
    ...(REPLY_SCHEMAS as Record<string, Schema>),
    SuccessEnvelope: ENVELOPE_SUCCESS,
    ErrorEnvelope: ENVELOPE_ERROR,
    ErrorName: {
      type: 'string',
      description: 'Stable machine identifier of an error (never renamed).',
      enum: Object.values(ErrorName),
      example: ErrorName.ResourceNotFound,
    },
  };
  return {
    openapi: '3.1.0',
    info: {
      title: 'CRM API',
      version: '3',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      description: [
        'The REST API of the CRM. Every answer is JSON in an envelope: a success is `{ status: 0, message, timestamp, data }`, an error `{ status, message, error_name, error_message, errors }` (branch on `error_name`). Every path also answers with a `.json` suffix on its last segment.',
        `**Authentication.** HTTP Basic with your user id as the username and your API key as the password, or an OAuth 2 bearer token (authorization code with PKCE S256 at ${options.authUrl}/oauth/authorize and ${options.authUrl}/oauth/token; scopes \`crm\`, \`crm.readonly\`, \`mcp\`). OAuth clients are registered by the operator: see docs/oauth-clients.md.`,
        '**Limits.** Each user has a per-minute budget (`X-RateLimit-*` headers; past it 403 `Rate Limit Exceeded`) and a limit of requests running at once (429). A POST with an `Idempotency-Key` is safe to retry.',
        `**AI assistants.** An MCP server (Streamable HTTP) is at ${options.serverUrl}${MCP_PATH}, with tools over these operations; it accepts OAuth access tokens issued for that resource (protected resource metadata at ${options.serverUrl}${PROTECTED_RESOURCE_METADATA_PATH}${MCP_PATH}).`,
      ].join('\n\n'),
    },
    'x-mcp-server': { url: `${options.serverUrl}${MCP_PATH}`, transport: 'streamable-http' },
    servers: [{ url: `${options.serverUrl}${API_PREFIX}`, description: 'This CRM' }],
    security: [{ basicAuth: [] }, { oauth2: ['crm'] }],
    tags: [...tags.keys()].map((name) => ({ name, description: `${name}: ${tags.get(name)} operations.` })),
    paths,
    components: {
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'Your user id as the username and your API key as the password.' },
        oauth2: {
          type: 'oauth2',
          description:
            'Authorization code with PKCE (S256, required for every client). Public clients send no secret; confidential ones use client_secret_basic or client_secret_post. Access tokens live an hour; use the refresh token for a new one.',
          flows: {
            authorizationCode: {
              authorizationUrl: `${options.authUrl}/oauth/authorize`,
              tokenUrl: `${options.authUrl}/oauth/token`,
              refreshUrl: `${options.authUrl}/oauth/token`,
              scopes: {
                crm: 'Read and write the CRM',
                'crm.readonly': 'Read the CRM',
                mcp: 'AI assistants through the MCP server (reads, and the writes marked for it)',
              },
            },
          },
        },
      },
      schemas: referencedSchemas({ paths, responses }, available),
      parameters: PARAMETERS,
      headers: HEADERS,
      responses,
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApi>;

/**
 * A route that takes a file (`upload`) also accepts multipart/form-data: its fields as form fields,
 * sent before the file part, which the gateway streams to storage (decisions.md "Attachments").
 */
function multipartSchema(upload: 'attachment' | 'image', fields: Record<string, unknown>): Record<string, unknown> {
  const part = upload === 'image' ? 'image' : 'file';
  return {
    type: 'object',
    properties: {
      ...fields,
      [part]: {
        type: 'string',
        format: 'binary',
        description:
          upload === 'image'
            ? 'The image (PNG, JPEG, GIF or WebP, checked by its first bytes); the last part of the form.'
            : 'The file (an allowed type, checked by its first bytes; at most ATTACHMENT_MAX_BYTES); the last part of the form.',
      },
    },
    required: [part],
  };
}
