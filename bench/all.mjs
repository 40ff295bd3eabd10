#!/usr/bin/env node
// `npm run bench`: every benchmark suite in turn (each starts its own system from a fresh build,
// with its own database and namespace). `npm run bench -- --only contacts,webhooks` picks suites;
// other arguments go to every suite.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const SUITES = ['run', 'contacts', 'hotpath', 'records', 'webhooks', 'replica'];
const NAMES = { run: 'auth' };

const argv = process.argv.slice(2);
const onlyAt = argv.indexOf('--only');
const only = onlyAt >= 0 ? argv[onlyAt + 1].split(',') : null;
const rest = onlyAt >= 0 ? [...argv.slice(0, onlyAt), ...argv.slice(onlyAt + 2)] : argv;

const failed = [];
for (const suite of SUITES) {
  const name = NAMES[suite] ?? suite;
  if (only && !only.includes(name)) continue;
  const file = path.join(here, `${suite}.mjs`);
  if (!existsSync(file)) continue;
  console.log(`[bench] === suite ${name} (${path.relative(process.cwd(), file)}) ===`);
  const result = spawnSync(process.execPath, [file, ...rest], { stdio: 'inherit' });
  if (result.status !== 0) failed.push(name);
}
if (failed.length > 0) {
  console.error(`[bench] failed suites: ${failed.join(', ')} (see their output above)`);
  process.exit(1);
}
