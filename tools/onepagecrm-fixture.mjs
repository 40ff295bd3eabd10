#!/usr/bin/env node
// Derives test/fixtures/onepagecrm-fields.json from OnePageCRM's OpenAPI file: for each operation's
// success (2xx) response, the field names and JSON types of its body (string, number, integer,
// boolean, array, object; nullable or not), and the same for each component schema. Names and
// types only: no descriptions, examples, enums or formats. Run by hand when the reference changes:
//
//   node tools/onepagecrm-fixture.mjs ../shared/reference/onepagecrm-swagger.yaml
//
// CI never reads the swagger file; the conformance test (test/e2e/onepagecrm-conformance.e2e-spec.ts)
// reads the fixture this writes. See docs/decisions.md "OnePageCRM shapes and the conformance fixture".
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import yaml from 'js-yaml';

const ROOT = new URL('..', import.meta.url).pathname;
const OUT = join(ROOT, 'test/fixtures/onepagecrm-fields.json');
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];
const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'array', 'object']);

const file = process.argv[2];
if (!file) {
  console.error('usage: node tools/onepagecrm-fixture.mjs <path of onepagecrm swagger.yaml>');
  process.exit(2);
}
const doc = yaml.load(readFileSync(file, 'utf8'));

/** Follows a local `#/a/b/c` reference. */
function resolve(ref) {
  if (!ref.startsWith('#/')) throw new Error(`only local references are supported: ${ref}`);
  let node = doc;
  for (const part of ref.slice(2).split('/')) {
    node = node?.[part.replace(/~1/g, '/').replace(/~0/g, '~')];
    if (node === undefined) throw new Error(`dangling reference ${ref}`);
  }
  return node;
}

/**
 * The shape of one schema: `{ type, nullable?, properties?, items?, values? }`; `type` is one of
 * TYPES or "any" (the file does not say). A whole component schema is written `{ ref: "Name" }`
 * (its shape is under `schemas`); a reference into one (`#/components/schemas/User/properties/id`)
 * is written out in place.
 */
function shape(schema) {
  if (!schema || typeof schema !== 'object') return { type: 'any' };
  if (schema.$ref) {
    const name = /^#\/components\/schemas\/([^/]+)$/.exec(schema.$ref)?.[1];
    return name ? { ref: name } : shape(resolve(schema.$ref));
  }
  const parts = schema.allOf ?? schema.oneOf ?? schema.anyOf;
  if (parts) {
    const merged = { type: 'any', properties: {} };
    for (const part of parts.map((p) => shape(p))) {
      if (part.type !== 'any') merged.type = part.type;
      Object.assign(merged.properties, part.properties ?? {});
    }
    if (!Object.keys(merged.properties).length) delete merged.properties;
    return merged;
  }
  let type = TYPES.has(schema.type) ? schema.type : undefined;
  if (!type && schema.properties) type = 'object';
  if (!type && schema.items) type = 'array';
  const out = { type: type ?? 'any' };
  if (schema.nullable === true) out.nullable = true;
  if (schema.properties) {
    out.properties = {};
    for (const key of Object.keys(schema.properties).sort()) out.properties[key] = shape(schema.properties[key]);
  }
  if (out.type === 'array' && schema.items) out.items = shape(schema.items);
  if (schema.additionalProperties && typeof schema.additionalProperties === 'object') {
    out.values = shape(schema.additionalProperties);
  }
  return out;
}

const operations = {};
for (const path of Object.keys(doc.paths).sort()) {
  for (const method of METHODS) {
    const op = doc.paths[path][method];
    if (!op) continue;
    const responses = {};
    for (const [code, response0] of Object.entries(op.responses ?? {})) {
      if (!/^2\d\d$/.test(String(code))) continue;
      const response = response0.$ref ? resolve(response0.$ref) : response0;
      const schema = response.content?.['application/json']?.schema;
      responses[String(code)] = schema ? shape(schema) : null;
    }
    operations[`${method.toUpperCase()} ${path}`] = responses;
  }
}

const schemas = {};
for (const name of Object.keys(doc.components?.schemas ?? {}).sort()) {
  schemas[name] = shape(doc.components.schemas[name]);
}

const fixture = {
  about:
    'Field names and JSON types of the responses OnePageCRM API v3 documents, derived by tools/onepagecrm-fixture.mjs from its OpenAPI file (names and types only).',
  source: {
    openapi: doc.openapi,
    version: doc.info?.version,
    paths: Object.keys(doc.paths).length,
    operations: Object.keys(operations).length,
  },
  operations,
  schemas,
};
mkdirSync(dirname(OUT), { recursive: true });
writeFileSync(OUT, `${JSON.stringify(fixture, null, 2)}\n`);
console.log(`wrote ${OUT}: ${Object.keys(operations).length} operations, ${Object.keys(schemas).length} schemas`);
