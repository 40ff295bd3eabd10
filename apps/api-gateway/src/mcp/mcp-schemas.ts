import { MCP_DEFAULT_PER_PAGE, MCP_MAX_PER_PAGE, type McpToolDeclaration, type RouteDeclaration } from '@crm/contracts';
import { targetConstructorToSchema, validationMetadatasToSchemas } from 'class-validator-jsonschema';
import { SCHEMA_OPTIONS } from '../openapi/openapi.builder';

export type JsonSchema = Record<string, unknown> & { properties?: Record<string, JsonSchema>; required?: string[]; $ref?: string };

const REF_PREFIX = '#/$defs/';
/** The OpenAPI builder's options, with references that {@link inline} resolves. */
const OPTIONS = { ...SCHEMA_OPTIONS, refPointerPrefix: REF_PREFIX };

/** The argument every write tool takes: the REST API's Idempotency-Key. */
export const IDEMPOTENCY_KEY_ARGUMENT = 'idempotency_key';

let definitions: Record<string, JsonSchema> | undefined;

/** Replaces `$ref`s to nested request classes by their schemas, so each tool's schema stands alone. */
function inline(schema: unknown, depth: number): unknown {
  if (Array.isArray(schema)) return schema.map((item) => inline(item, depth));
  if (schema === null || typeof schema !== 'object') return schema;
  const ref = (schema as JsonSchema).$ref;
  if (typeof ref === 'string' && ref.startsWith(REF_PREFIX)) {
    definitions ??= validationMetadatasToSchemas(OPTIONS) as Record<string, JsonSchema>;
    const target = definitions[ref.slice(REF_PREFIX.length)];
    // Request classes nest a few levels; deeper (or unknown) references become any object.
    return target && depth < 6 ? inline(target, depth + 1) : { type: 'object' };
  }
  return Object.fromEntries(Object.entries(schema).map(([key, value]) => [key, inline(value, depth)]));
}

/**
 * A tool's input schema, derived from the request class of its route: the offered properties
 * (`pick`, or all but `omit` and the fixed ones), required as the class requires them unless the
 * class gives a default, per_page capped for an assistant, and `idempotency_key` on writes.
 */
export function toolInputSchema(tool: McpToolDeclaration, route: RouteDeclaration): JsonSchema {
  const schema = inline(targetConstructorToSchema(route.request, OPTIONS), 0) as JsonSchema;
  const defaults = new route.request() as Record<string, unknown>;
  const all = schema.properties ?? {};
  const hidden = new Set([...(tool.omit ?? []), ...Object.keys(tool.fixed ?? {})]);
  const offered = (tool.pick ?? Object.keys(all)).filter((name) => name in all && !hidden.has(name));
  const properties: Record<string, JsonSchema> = {};
  for (const name of offered) {
    const property = { ...all[name] };
    if (defaults[name] !== undefined && name !== 'per_page') property.default = defaults[name];
    properties[name] = property;
  }
  if (properties.per_page) properties.per_page = { type: 'integer', minimum: 1, maximum: MCP_MAX_PER_PAGE, default: MCP_DEFAULT_PER_PAGE };
  if (route.access === 'write') {
    properties[IDEMPOTENCY_KEY_ARGUMENT] = {
      type: 'string',
      minLength: 1,
      maxLength: 255,
      description:
        'Any unique string (a UUID); repeating the call with the same key and arguments returns the first result and writes nothing new',
    };
  }
  const required = (schema.required ?? []).filter((name) => name in properties && defaults[name] === undefined);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}
