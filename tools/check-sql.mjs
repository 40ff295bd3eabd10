#!/usr/bin/env node
// Lint check: every SQL statement of crm-core lives in a `*.repository.ts` file or in the
// migrations (docs/crm-core-architecture.md). Fails listing each file:line that holds SQL
// elsewhere: a `.query(` call, an `sql` template, or SQL text in a string.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const SRC = join(ROOT, 'apps/crm-core/src');
const ALLOWED = [/\.repository\.ts$/, /^migrations\//, /^common\/sql\//, /\.(spec|int-spec|medium-spec)\.ts$/];
const PATTERNS = [
  [/\.query\s*[<(]/, 'a .query() call'],
  [/\bsql`/, 'an sql`...` statement'],
  [/\b(SELECT\s+[\w*(]|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+crm\.|ON\s+CONFLICT|FOR\s+(NO\s+KEY\s+)?UPDATE)\b/, 'SQL text'],
];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

const offenders = [];
for (const path of files(SRC)) {
  const rel = relative(SRC, path);
  if (ALLOWED.some((re) => re.test(rel))) continue;
  const lines = readFileSync(path, 'utf8').split('\n');
  lines.forEach((line, i) => {
    if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments may name SQL
    for (const [re, what] of PATTERNS) {
      if (re.test(line)) {
        offenders.push(`apps/crm-core/src/${rel}:${i + 1}: ${what} outside a repository`);
        break;
      }
    }
  });
}

if (offenders.length > 0) {
  console.error(offenders.join('\n'));
  console.error(
    `\ncheck-sql: ${offenders.length} line(s) of SQL outside *.repository.ts and migrations/; move them into the entity's repository.`,
  );
  process.exit(1);
}
console.log('check-sql: every crm-core SQL statement is in a repository or a migration');
