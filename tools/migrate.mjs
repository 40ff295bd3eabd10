#!/usr/bin/env node
// `npm run migrate`: applies the TypeORM migrations of every bounded context, in the order a
// deployment runs them (auth, crm, webhooks), from dist/ (built first when missing).
// Each app reads its own database URL (AUTH_/CRM_/WEBHOOKS_DATABASE_URL, else DATABASE_URL).
// Exit code 0 when all are up to date, 1 (with the failing app named) otherwise.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const apps = ['auth-server', 'crm-core', 'webhook-dispatcher'];
const mainOf = (app) => path.join(root, 'dist', 'apps', app, 'src', 'main.js');

if (apps.some((app) => !existsSync(mainOf(app)))) {
  console.error('[migrate] dist/ is missing: building first (npm run build)');
  const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) process.exit(1);
}
for (const app of apps) {
  console.error(`[migrate] ${app}`);
  const run = spawnSync(process.execPath, [mainOf(app), 'migrate'], { stdio: 'inherit', env: { ...process.env, HTTP_PORT: '0' } });
  if (run.status !== 0) {
    console.error(
      `[migrate] ERROR: migrations of ${app} failed (exit ${run.status ?? run.signal}); see its log above. Is the database reachable (DATABASE_URL)?`,
    );
    process.exit(1);
  }
}
console.error('[migrate] all schemas are up to date');
