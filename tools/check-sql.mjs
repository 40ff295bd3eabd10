#!/usr/bin/env node
// Lint check: every SQL statement of crm-core and of the webhook dispatcher lives in a
// `*.repository.ts` file or in the migrations (docs/crm-core-architecture.md). Fails listing each
// file:line that holds SQL elsewhere: a `.query(` call, an `sql` template, or SQL text in a string.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const ROOT = new URL('..', import.meta.url).pathname;
const SPECS = /\.(spec|int-spec|medium-spec)\.ts$/;
/** Each service's source, and where SQL may live in it besides `*.repository.ts` and specs. */
const APPS = [
  // common/sql: the executors and fragments that take no domain decision.
  { src: 'apps/crm-core/src', allowed: [/^migrations\//, /^common\/sql\//] },
  { src: 'apps/webhook-dispatcher/src', allowed: [/^migrations\//] },
];
const PATTERNS = [
  [/\.query\s*[<(]/, 'a .query() call'],
  [/\bsql`/, 'an sql`...` statement'],
  [/\b(SELECT\s+[\w*(]|INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+(crm|webhooks)\.|ON\s+CONFLICT|FOR\s+(NO\s+KEY\s+)?UPDATE)\b/, 'SQL text'],
  // A LISTEN or NOTIFY statement names its channel and ends (`LISTEN ${CHANNEL}`, 'NOTIFY crm_due, ...'), unlike a log line.
  [
    /\b(UN)?LISTEN\s+(\$\{|\w+[`'"])|\bNOTIFY\s+(\$\{|\w+[`'",])|\bpg_(try_)?advisory_\w*lock|\bpg_notify\s*\(/,
    'SQL text (a lock or a notification)',
  ],
];

function* files(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (name.endsWith('.ts')) yield path;
  }
}

const offenders = [];
for (const app of APPS) {
  const src = join(ROOT, app.src);
  for (const path of files(src)) {
    const rel = relative(src, path);
    if (/\.repository\.ts$/.test(rel) || SPECS.test(rel) || app.allowed.some((re) => re.test(rel))) continue;
    const lines = readFileSync(path, 'utf8').split('\n');
    lines.forEach((line, i) => {
      if (/^\s*(\/\/|\*|\/\*)/.test(line)) return; // comments may name SQL
      for (const [re, what] of PATTERNS) {
        if (re.test(line)) {
          offenders.push(`${app.src}/${rel}:${i + 1}: ${what} outside a repository`);
          break;
        }
      }
    });
  }
}

if (offenders.length > 0) {
  console.error(offenders.join('\n'));
  console.error(
    `\ncheck-sql: ${offenders.length} line(s) of SQL outside *.repository.ts and migrations/; move them into the module's repository.`,
  );
  process.exit(1);
}
console.log(`check-sql: every SQL statement of ${APPS.map((a) => a.src.split('/')[1]).join(' and ')} is in a repository or a migration`);
