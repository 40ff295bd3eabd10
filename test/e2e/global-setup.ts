import { spawnSync } from 'node:child_process';
import path from 'node:path';
// Not the @crm/testing index: it loads the service harness, and with it @crm/messaging and the
// decorated contracts, into jest's own process, where class-validator's and reflect-metadata's
// globals then leaked into the test files run in band (an OpenAPI document built in a unit test
// lost its inherited rules).
import { ensureTestInfra } from '../../libs/testing/src/infra-setup';

/**
 * Jest globalSetup of the e2e tier: builds dist/ once (the services run from it as separate
 * processes, as in production) and makes sure PostgreSQL, Redis and NATS answer.
 * E2E_SKIP_BUILD=1 reuses an existing dist/ (handy when iterating on tests only).
 */
export default async function globalSetup(): Promise<void> {
  await ensureTestInfra('e2e');
  if (process.env.E2E_SKIP_BUILD === '1') return;
  const root = path.resolve(__dirname, '../..');
  process.stderr.write('\n[e2e] building dist/ (npm run build) ...\n');
  const started = Date.now();
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0)
    throw new Error(`npm run build failed (exit ${result.status ?? result.signal}); fix the compile errors above and run the tests again`);
  process.stderr.write(`[e2e] build done in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}
