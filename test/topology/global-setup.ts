import { spawnSync } from 'node:child_process';
import path from 'node:path';

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const BINARIES = ['nats-server', 'redis-server', 'redis-cli', path.join(PG_BIN, 'initdb'), path.join(PG_BIN, 'pg_basebackup')];

/**
 * Jest globalSetup of the topology tier: builds dist/ once (the services run from it as processes,
 * as in production) and checks the servers' binaries are there. The tier starts its own private
 * NATS, Redis and PostgreSQL instances on spare loopback ports; it never uses the shared ones.
 * E2E_SKIP_BUILD=1 reuses an existing dist/.
 */
export default async function globalSetup(): Promise<void> {
  const missing = BINARIES.filter((bin) => spawnSync('sh', ['-c', `command -v "${bin}"`]).status !== 0);
  if (missing.length > 0)
    throw new Error(
      `the topology tier needs ${missing.join(', ')}: install nats-server, redis-server (with redis-cli) and PostgreSQL 15 (PG_BIN names its bin directory)`,
    );
  if (process.env.E2E_SKIP_BUILD === '1') return;
  const root = path.resolve(__dirname, '../..');
  process.stderr.write('\n[topology] building dist/ (npm run build) ...\n');
  const started = Date.now();
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(`npm run build failed (exit ${result.status ?? result.signal}); fix the compile errors above and run the tests again`);
  process.stderr.write(`[topology] build done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
