#!/usr/bin/env node
// `npm start` and `npm run dev`, after scripts/up.sh has installed the dependencies: makes sure
// PostgreSQL/Redis/NATS run (tools/infra.mjs), builds, creates dev secrets in .local/, migrates,
// starts the four services (tools/dev-run.mjs), waits for /readyz, makes sure a demo account exists
// (.local/demo.env), prints how to call the API, then keeps the services in the foreground until
// Ctrl-C / SIGTERM.
//
//   npm start [-- --crm-core-replicas N]     npm run dev   (= npm start -- --watch)
//
// --watch: dev-run recompiles a changed file and restarts the services it affects.
// Env: PORT (3000), AUTH_PORT (3001), CRM_CORE_PORT (3002), WEBHOOK_DISPATCHER_PORT (3003),
//      DATABASE_URL, REDIS_URL, NATS_URL, OPERATOR_TOKEN, API_KEY_PEPPER, STORAGE_SECRET,
//      CALLER_SIGNING_KEY (dev-run derives each consumer's CALLER_VERIFY_KEYS from it), READY_TIMEOUT
//      (120 s), LOG_FORMAT (pretty | json).
// NODE_ENV=production: nothing is generated and no server is installed or started: every variable
// of tools/production-env.cjs (README "Production") must be set, else npm start names all that are
// missing or invalid and stops (docs/decisions.md "Production start").
// Runs on the project's Node 22 (node_modules/.bin/node).
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createLog, UpError } from './cli-log.mjs';
import { ensureInfra, tcpOpen } from './infra.mjs';
import { createLineFormatter, logFormat } from './log-format.cjs';
import { describeProblems, PRODUCTION_VARIABLES, productionProblems } from './production-env.cjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const log = createLog('up');
const env = process.env;
const production = env.NODE_ENV === 'production';
const LOCAL_DIR = path.join(root, '.local');
const SECRETS_FILE = path.join(LOCAL_DIR, 'secrets.env');
const DEMO_FILE = path.join(LOCAL_DIR, 'demo.env');
const MIGRATE_APPS = ['auth-server', 'crm-core', 'webhook-dispatcher'];
const METRICS_PORT_OFFSET = 6460; // tools/dev-run.mjs
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function parseArgs(argv) {
  const opts = { replicas: 1, watch: false };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    if (flag === '--watch') opts.watch = true;
    else if (flag === '--crm-core-replicas') {
      const raw = inline ?? argv[++i] ?? '';
      opts.replicas = /^([1-9]|1\d|20)$/.test(raw) ? Number(raw) : NaN;
      if (Number.isNaN(opts.replicas)) throw new UpError(`--crm-core-replicas needs a number between 1 and 20 (got '${raw}')`);
    } else throw new UpError(`unknown argument: ${argv[i]}`, 'usage: npm start -- [--crm-core-replicas N] [--watch]');
  }
  return opts;
}

// ---- ports ----------------------------------------------------------------------------------
function portsFrom(replicas) {
  const ports = {};
  for (const [name, fallback] of [
    ['PORT', 3000],
    ['AUTH_PORT', 3001],
    ['CRM_CORE_PORT', 3002],
    ['WEBHOOK_DISPATCHER_PORT', 3003],
    // auth-server's operator API, on an internal port of its own (never published)
    ['OPERATOR_PORT', 9470],
  ]) {
    const raw = env[name] || String(fallback);
    if (!/^[1-9]\d{0,4}$/.test(raw) || Number(raw) > 65535)
      throw new UpError(
        `invalid port '${raw}'`,
        'PORT, AUTH_PORT, CRM_CORE_PORT, WEBHOOK_DISPATCHER_PORT and OPERATOR_PORT must be numbers between 1 and 65535',
      );
    ports[name] = Number(raw);
    env[name] = raw;
  }
  // Every service process (name, HTTP port) in the order dev-run starts them.
  const services = [
    ['api-gateway', ports.PORT],
    ['auth-server', ports.AUTH_PORT],
  ];
  for (let i = 0; i < replicas; i += 1) services.push([replicas > 1 ? `crm-core-${i + 1}` : 'crm-core', ports.CRM_CORE_PORT + 10 * i]);
  services.push(['webhook-dispatcher', ports.WEBHOOK_DISPATCHER_PORT]);
  const all = [...services.flatMap(([, p]) => [p, p + METRICS_PORT_OFFSET]), ports.OPERATOR_PORT];
  const twice = all.find((p, i) => all.indexOf(p) !== i);
  if (twice)
    throw new UpError(
      `port ${twice} is given to two services`,
      'PORT, AUTH_PORT, CRM_CORE_PORT (+10 per replica), WEBHOOK_DISPATCHER_PORT, OPERATOR_PORT and the metrics ports (+6460) must differ',
    );
  return { ...ports, services, all };
}

async function checkPortsFree(ports) {
  for (const p of ports.all) {
    if (await tcpOpen('127.0.0.1', p, 1000))
      throw new UpError(
        `port ${p} is already in use`,
        "is another 'npm start' running? stop it, or choose other ports (PORT, AUTH_PORT, CRM_CORE_PORT, WEBHOOK_DISPATCHER_PORT)",
      );
  }
}

// ---- secrets --------------------------------------------------------------------------------
const SECRET_KEYS = ['OPERATOR_TOKEN', 'API_KEY_PEPPER', 'STORAGE_SECRET', 'CALLER_SIGNING_KEY'];
/** The random development secrets, with their shortest accepted length (the services' config classes). */
const GENERATED_SECRETS = { OPERATOR_TOKEN: 32, API_KEY_PEPPER: 16, STORAGE_SECRET: 16 };

function readEnvFile(file) {
  if (!existsSync(file)) return {};
  const out = {};
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const m = /^([A-Z_][A-Z0-9_]*)=(.*)$/.exec(line);
    if (m) out[m[1]] = m[2].replace(/^'(.*)'$/, '$1');
  }
  return out;
}

/**
 * Production: every variable of tools/production-env.cjs, from the environment only, all checked
 * at once (main() checked them before the first step; this is the step's record of them).
 */
function productionSecrets() {
  const problems = productionProblems(env);
  if (problems.length > 0) {
    const { message, hints } = describeProblems(problems);
    throw new UpError(message, ...hints);
  }
  for (const { name } of PRODUCTION_VARIABLES) log.info(`  ${name}: environment`);
}

/**
 * OPERATOR_TOKEN, API_KEY_PEPPER, STORAGE_SECRET and the secret that signs NATS requests
 * (CALLER_SIGNING_KEY): from the environment, else .local/secrets.env, else generated once and
 * saved there. Each consumer's CALLER_VERIFY_KEYS is derived from it when dev-run starts the
 * services; STORAGE_SECRET goes to the gateway and crm-core only.
 */
function ensureSecrets() {
  if (production) return productionSecrets();
  const saved = readEnvFile(SECRETS_FILE);
  const generated = [];
  const origin = {};
  for (const key of Object.keys(GENERATED_SECRETS)) {
    origin[key] = env[key] ? 'environment' : saved[key] ? '.local/secrets.env' : 'generated, saved in .local/secrets.env';
    env[key] ||= saved[key] || randomBytes(36).toString('base64url');
    if (!saved[key] && origin[key].startsWith('generated')) generated.push(key);
  }
  const rpc = require(path.join(root, 'dist/libs/messaging/src/rpc-signature.js'));
  let keyOrigin = 'environment';
  if (!env.CALLER_SIGNING_KEY && saved.CALLER_SIGNING_KEY) {
    env.CALLER_SIGNING_KEY = saved.CALLER_SIGNING_KEY;
    keyOrigin = '.local/secrets.env';
  }
  if (!env.CALLER_SIGNING_KEY) {
    env.CALLER_SIGNING_KEY = rpc.generateCallerKeys().signingKey;
    keyOrigin = 'generated, saved in .local/secrets.env';
    generated.push('CALLER_SIGNING_KEY');
  }
  try {
    rpc.parseSigningKey(env.CALLER_SIGNING_KEY);
  } catch (error) {
    throw new UpError(
      `CALLER_SIGNING_KEY (${keyOrigin}) is not valid: ${error.message}`,
      'unset it (or remove it from .local/secrets.env) to use a generated one',
    );
  }
  for (const key of Object.keys(GENERATED_SECRETS)) log.info(`  ${key}: ${origin[key]}`);
  log.info(`  CALLER_SIGNING_KEY: ${keyOrigin}`);
  for (const [key, min] of Object.entries(GENERATED_SECRETS))
    if (env[key].length < min)
      throw new UpError(
        `${key} must be at least ${min} characters (it has ${env[key].length})`,
        'unset it to use a generated one, or set a longer value',
      );
  if (generated.length === 0) return;
  // Keep what the file had for keys that came from the environment; add the generated ones.
  const lines = ['# Development secrets, written by npm start (tools/up.mjs). Never use them in production.'];
  for (const key of SECRET_KEYS) {
    const value = generated.includes(key) ? env[key] : saved[key];
    if (value) lines.push(`${key}=${value}`);
  }
  mkdirSync(LOCAL_DIR, { recursive: true });
  writeFileSync(`${SECRETS_FILE}.tmp`, `${lines.join('\n')}\n`, { mode: 0o600 });
  renameSync(`${SECRETS_FILE}.tmp`, SECRETS_FILE);
}

// ---- build, migrations ------------------------------------------------------------------------
function build() {
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (result.status !== 0)
    throw new UpError('the build failed (see above)', 'fix the error (npm run build shows it again), then npm start');
}

/**
 * Runs `main.js migrate` of an app. Its log lines are shown the way dev-run shows the services'
 * logs, except that "applied migration ..." lines are counted instead (all of them on a first run).
 */
function runMigration(main, childEnv) {
  const format = createLineFormatter({ format: logFormat(env), colorize: process.stderr.isTTY && !env.NO_COLOR });
  const child = spawn(process.execPath, [main, 'migrate'], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let applied = 0;
  for (const stream of [child.stdout, child.stderr]) {
    readline.createInterface({ input: stream, crlfDelay: Infinity }).on('line', (line) => {
      if (line.includes('"msg":"applied migration ')) applied += 1;
      else for (const shown of format(line)) process.stderr.write(`    ${shown}\n`);
    });
  }
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, applied })));
}

async function migrate(ports) {
  const portEnv = {
    'auth-server': { AUTH_PORT: String(ports.AUTH_PORT) },
    'crm-core': { HTTP_PORT: '0' },
    'webhook-dispatcher': { HTTP_PORT: '0' },
  };
  for (const app of MIGRATE_APPS) {
    const main = `dist/apps/${app}/src/main.js`;
    if (!existsSync(path.join(root, main)))
      throw new UpError(`${main} not found after the build`, `check that apps/${app}/src/main.ts exists and npm run build compiles it`);
    const { code, applied } = await runMigration(main, { ...env, ...portEnv[app] });
    if (code !== 0)
      throw new UpError(
        `migration of ${app} failed (see its log lines above)`,
        `fix the cause (database reachable? migration error?) and run npm start again; 'node ${main} migrate' repeats only this step`,
      );
    log.info(`  ${app}: ${applied === 0 ? 'schema up to date' : `${applied} migration${applied === 1 ? '' : 's'} applied`}`);
  }
}

// ---- services -----------------------------------------------------------------------------------
async function httpStatus(url) {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(3000) })).status;
  } catch {
    return 0;
  }
}

async function waitReady(ports, timeoutS, devRun) {
  const deadline = Date.now() + timeoutS * 1000;
  for (const [name, port] of ports.services) {
    const url = `http://127.0.0.1:${port}/readyz`;
    for (;;) {
      const status = await httpStatus(url);
      if (status >= 200 && status < 300) break;
      if (devRun.exitCode !== null || devRun.signalCode !== null)
        throw new UpError(
          'the services stopped during startup (see the dev-run lines above for which one exited)',
          "fix the error in that service's log, then npm start again",
        );
      if (Date.now() > deadline)
        throw new UpError(
          `${name} is not ready after ${timeoutS}s (GET ${url} answers ${status || 'nothing'})`,
          `look at the ${name} log lines above; curl -s ${url} shows which check fails`,
        );
      await sleep(1000);
    }
    log.info(`  ${name} ready on :${port}`);
  }
}

function banner(ports, watching) {
  const demo = readEnvFile(DEMO_FILE);
  const api = `http://localhost:${ports.PORT}/api/v3`;
  const bar = '='.repeat(80);
  const lines = [
    '',
    bar,
    ` CRM is running (logs below; Ctrl-C stops everything)${watching ? '; watching apps/ and libs/' : ''}`,
    '',
    `   API (api-gateway):  ${api}`,
    `   API reference:      ${api}/docs   (OpenAPI: ${api}/openapi.json)`,
    `   Auth server:        http://localhost:${ports.AUTH_PORT}`,
    `   Operator API:       http://localhost:${ports.OPERATOR_PORT}/operator (internal port)`,
    `   Demo user id:       ${demo.CRM_USER_ID ?? ''}`,
    `   Demo API key:       ${demo.CRM_API_KEY ?? ''}`,
    `   Operator token:     ${production ? '$OPERATOR_TOKEN (not shown in production)' : env.OPERATOR_TOKEN}`,
    '   (saved in .local/demo.env)',
    '',
    ' Try it:',
    'source .local/demo.env && curl -s -u "$CRM_USER_ID:$CRM_API_KEY" "$CRM_BASE_URL/users/$CRM_USER_ID.json"',
    bar,
    '',
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

// ---- main -------------------------------------------------------------------------------------
let devRun = null;
let foreground = false;
let step = 'startup';

function stopServices() {
  if (devRun && devRun.exitCode === null && devRun.signalCode === null) {
    log.info('stopping the services');
    devRun.kill('SIGTERM');
    return new Promise((resolve) => devRun.once('exit', resolve));
  }
  return Promise.resolve();
}

async function interrupted(signal) {
  if (foreground) {
    devRun?.kill('SIGTERM'); // dev-run stops the services gracefully; main() collects its exit code
    return;
  }
  log.warn(`interrupted (${signal}) during: ${step}`);
  await stopServices();
  process.exit(130);
}
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => void interrupted(sig));

// `npm start` runs us under `sh -c`; a SIGTERM to npm reaches only that sh, which dies without
// passing it on. Watch our parent and stop gracefully when it goes away.
const parent = process.ppid;
setInterval(() => process.ppid !== parent && void interrupted('parent exited'), 1000).unref();

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const readyTimeout = env.READY_TIMEOUT || '120';
  if (!/^[1-9]\d*$/.test(readyTimeout)) throw new UpError(`READY_TIMEOUT must be a number of seconds (got '${readyTimeout}')`);
  // Webhook receivers on this machine are for development only (never private addresses in production).
  env.WEBHOOK_ALLOW_PRIVATE ||= production ? 'false' : 'true';
  const ports = portsFrom(opts.replicas);
  if (production) {
    // Before any step: every missing or invalid variable at once (scripts/up.sh names the missing ones before the install).
    const problems = productionProblems(env);
    if (problems.length > 0) {
      const { message, hints } = describeProblems(problems);
      throw new UpError(message, ...hints);
    }
  }
  log.total(8); // step 1, the install, was scripts/up.sh's

  const steps = [
    // In production nothing is installed or started: the servers must answer at the URLs given.
    ['Checking PostgreSQL, Redis and NATS', () => ensureInfra(log, env, { startMissing: !production })],
    ['Building (npm run build)', build],
    [production ? 'Production secrets (from the environment)' : 'Development secrets (.local/secrets.env)', ensureSecrets],
    [`Running database migrations (${MIGRATE_APPS.join(', ')})`, () => migrate(ports)],
    [
      `Starting the services (tools/dev-run.mjs${opts.watch ? ' --watch' : ''})`,
      async () => {
        await checkPortsFree(ports);
        const args = [
          'tools/dev-run.mjs',
          ...(opts.replicas > 1 ? ['--crm-core-replicas', String(opts.replicas)] : []),
          ...(opts.watch ? ['--watch'] : []),
        ];
        devRun = spawn(process.execPath, args, { cwd: root, env, stdio: 'inherit' });
      },
    ],
    [`Waiting for all services to be ready (/readyz, up to ${readyTimeout}s)`, () => waitReady(ports, Number(readyTimeout), devRun)],
    [
      'Demo account (.local/demo.env)',
      () => {
        const r = spawnSync(process.execPath, ['scripts/demo-account.mjs'], {
          cwd: root,
          env: { ...env, DEMO_ENV_FILE: DEMO_FILE },
          stdio: 'inherit',
        });
        if (r.status !== 0)
          throw new UpError(
            'could not set up the demo account',
            'see the messages above; deleting .local/demo.env makes npm start create a new demo account',
          );
      },
    ],
  ];
  for (const [title, run] of steps) {
    step = title;
    log.step(title);
    await run();
  }

  banner(ports, opts.watch);
  foreground = true;
  const code = await new Promise((resolve) => {
    if (devRun.exitCode !== null || devRun.signalCode !== null) resolve(devRun.exitCode ?? 1);
    else devRun.once('exit', (c) => resolve(c ?? 1));
  });
  if (code === 0) log.ok('stopped');
  else log.error(`the services stopped with exit code ${code} (see the dev-run lines above)`);
  return code;
}

main().then(
  (code) => process.exit(code),
  async (error) => {
    if (error instanceof UpError) log.fail(error);
    else log.error(`step '${step}' failed: ${error.stack ?? error}`);
    await stopServices();
    process.exit(1);
  },
);
