#!/usr/bin/env node
// Writes test/fixtures/onepagecrm-query-params.json: for every operation of OnePageCRM's OpenAPI
// file, the names of the query parameters it documents (names only: the file itself is never
// copied into the repository). Usage: node tools/onepagecrm-query-params.mjs <swagger.yaml>
// The unit test libs/contracts/src/routes/query-parameters.spec.ts checks our request classes
// against the fixture, so CI never needs the swagger file.
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import yaml from 'js-yaml';

const source = process.argv[2];
if (!source) {
  console.error('usage: node tools/onepagecrm-query-params.mjs <path to OnePageCRM swagger.yaml>');
  process.exit(2);
}
const doc = yaml.load(readFileSync(source, 'utf8'));
const resolve = (p) =>
  p.$ref
    ? p.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce((o, k) => o[k], doc)
    : p;
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

const operations = {};
for (const [path, item] of Object.entries(doc.paths)) {
  const shared = (item.parameters ?? []).map(resolve);
  for (const method of METHODS) {
    const op = item[method];
    if (!op) continue;
    const names = [...shared, ...(op.parameters ?? []).map(resolve)].filter((p) => p.in === 'query').map((p) => p.name);
    operations[`${method.toUpperCase()} ${path.replace(/\.json$/, '')}`] = [...new Set(names)];
  }
}
const keys = Object.keys(operations).sort();
const out = { operations: Object.fromEntries(keys.map((k) => [k, operations[k]])) };
const target = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'onepagecrm-query-params.json');
writeFileSync(target, `${JSON.stringify(out, null, 2)}\n`);
console.log(`${keys.length} operations, ${keys.reduce((n, k) => n + operations[k].length, 0)} query parameters -> ${target}`);
