#!/usr/bin/env node
// Runs the four services from dist/ for local development (used by `npm start` and `npm run dev`,
// through tools/up.mjs).
//
//   node tools/dev-run.mjs [--crm-core-replicas N] [--dist DIR] [--watch]
//
// - Each service gets its own port: api-gateway PORT (3000), auth-server AUTH_PORT (3001),
//   crm-core HTTP_PORT = CRM_CORE_PORT (3002; replica i gets 3002 + 10*i), webhook-dispatcher
//   HTTP_PORT = WEBHOOK_DISPATCHER_PORT (3003). An HTTP_PORT in our own env is never passed on.
// - Each service's Prometheus /metrics is on METRICS_PORT = its port + 6460 (9460, 9461, 9462 + 10*i,
//   9463: the services' own defaults); a METRICS_PORT in our own env is never passed on.
// - NATS request keys (decisions.md "NATS trust boundary"): CALLER_SIGNING_KEY goes to api-gateway
//   and auth-server only; each consumer (auth-server, crm-core, webhook-dispatcher) gets its own
//   CALLER_VERIFY_KEYS, derived from it (libs/messaging rpc-signature.ts). A CALLER_VERIFY_KEYS in
//   our own env is never passed on. STORAGE_SECRET goes to api-gateway and crm-core only.
// - Every output line is prefixed with a padded, colored service name. The services' JSON log
//   lines are shown as readable lines (pino-pretty; tools/log-format.cjs), or kept intact after
//   the prefix with LOG_FORMAT=json or NODE_ENV=production (`cut -d'|' -f2-` gives the JSON).
// - SIGINT/SIGTERM/SIGHUP are forwarded to every child as SIGTERM (a second signal more than 2 s
//   later, or no exit within DEV_RUN_KILL_TIMEOUT_MS (20000), sends SIGKILL). Exit code 0 only
//   after a requested, clean stop.
// - Without --watch nothing is restarted: if a service exits on its own, the others are stopped
//   and the exit code is 1.
// - --watch (`npm run dev`): apps/ and libs/ are watched (fs.watch); a changed source file is
//   compiled again with the swc CLI (only the changed files, into dist/), and the services whose
//   compiled output changed are restarted: apps/<app>/... restarts that app, libs/... all of them
//   (tools/dev-watch.cjs). A service that exits on its own is restarted by the next change.
// - Must run on the project's Node 22 (npm run / npx / node_modules/.bin/node): children are
//   started with the same node binary (process.execPath).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, watch } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { isBuildSource, outputOf, servicesFor } from './dev-watch.cjs';
import { createLineFormatter, logFormat } from './log-format.cjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

function usage(message) {
  if (message) console.error(`[dev-run] ${message}`);
  console.error('usage: node tools/dev-run.mjs [--crm-core-replicas N] [--dist DIR] [--watch]');
  process.exit(2);
}

function parseArgs(argv) {
  const opts = { replicas: 1, dist: path.join(root, 'dist'), watch: false };
  for (let i = 0; i < argv.length; i += 1) {
    const [flag, inline] = argv[i].split(/=(.*)/s, 2);
    const value = () => (inline !== undefined ? inline : argv[++i]);
    switch (flag) {
      case '--crm-core-replicas': {
        const n = Number(value());
        if (!Number.isInteger(n) || n < 1 || n > 20) usage('--crm-core-replicas needs an integer between 1 and 20');
        opts.replicas = n;
        break;
      }
      case '--dist': {
        const dir = value();
        if (!dir) usage('--dist needs a directory');
        opts.dist = path.resolve(dir);
        break;
      }
      case '--watch':
        opts.watch = true;
        break;
      case '-h':
      case '--help':
        usage();
        break;
      default:
        usage(`unknown argument: ${argv[i]}`);
    }
  }
  return opts;
}

const opts = parseArgs(process.argv.slice(2));
const env = process.env;
const port = (name, fallback) => {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) usage(`${name}=${raw} is not a valid port`);
  return n;
};

const gatewayPort = port('PORT', 3000);
const authPort = port('AUTH_PORT', 3001);
const crmCorePort = port('CRM_CORE_PORT', 3002);
const dispatcherPort = port('WEBHOOK_DISPATCHER_PORT', 3003);

// Shared env: everything we were given, minus the ambiguous port variables, plus dev defaults.
const base = { ...env };
delete base.HTTP_PORT;
delete base.METRICS_PORT;
delete base.PORT;
delete base.AUTH_PORT;
// Given per service below: the signing key to the senders, each consumer its own verify key.
delete base.CALLER_SIGNING_KEY;
delete base.CALLER_VERIFY_KEYS;
// Given to the two services that sign and check the attachments' links only (as deploy/k8s does).
delete base.STORAGE_SECRET;
base.DATABASE_URL ??= 'postgres://postgres@127.0.0.1:5432/crm';
base.REDIS_URL ??= 'redis://127.0.0.1:6379';
base.NATS_URL ??= 'nats://127.0.0.1:4222';
base.WEBHOOK_ALLOW_PRIVATE ??= 'true';
// The URLs the services put in links and tokens follow the ports chosen here.
base.PUBLIC_URL ??= `http://localhost:${gatewayPort}`;
base.PUBLIC_AUTH_URL ??= `http://localhost:${authPort}`;
base.AUTH_ISSUER ??= `http://localhost:${authPort}`;

const missingSecrets = ['OPERATOR_TOKEN', 'API_KEY_PEPPER', 'STORAGE_SECRET', 'CALLER_SIGNING_KEY'].filter((k) => !env[k]);
if (missingSecrets.length > 0) {
  console.error(
    `[dev-run] ${missingSecrets.join(', ')} not set: start everything with \`npm start\` (scripts/up.sh), which creates them in .local/`,
  );
  process.exit(2);
}

const main = (app) => path.join(opts.dist, 'apps', app, 'src', 'main.js');
/** METRICS_PORT of the service on `httpPort` (see the header). */
const METRICS_PORT_OFFSET = 6460;
const metricsPort = (httpPort) => {
  const p = httpPort + METRICS_PORT_OFFSET;
  if (p > 65535) usage(`port ${httpPort} leaves no room for its metrics port (${httpPort} + ${METRICS_PORT_OFFSET})`);
  return String(p);
};
const specs = [
  { name: 'api-gateway', app: 'api-gateway', env: { PORT: String(gatewayPort), METRICS_PORT: metricsPort(gatewayPort) } },
  { name: 'auth-server', app: 'auth-server', env: { AUTH_PORT: String(authPort), METRICS_PORT: metricsPort(authPort) } },
];
for (let i = 0; i < opts.replicas; i += 1) {
  specs.push({
    name: opts.replicas === 1 ? 'crm-core' : `crm-core-${i + 1}`,
    app: 'crm-core',
    env: { HTTP_PORT: String(crmCorePort + 10 * i), METRICS_PORT: metricsPort(crmCorePort + 10 * i) },
  });
}
specs.push({
  name: 'webhook-dispatcher',
  app: 'webhook-dispatcher',
  env: { HTTP_PORT: String(dispatcherPort), METRICS_PORT: metricsPort(dispatcherPort) },
});

const missingBuilds = specs.filter((s) => !existsSync(main(s.app)));
if (missingBuilds.length > 0) {
  for (const s of missingBuilds) console.error(`[dev-run] ${path.relative(process.cwd(), main(s.app))} not found`);
  console.error('[dev-run] run `npm run build` first (npm start does it for you)');
  process.exit(2);
}

const { deriveConsumerKey } = require(path.join(opts.dist, 'libs', 'messaging', 'src', 'rpc-signature.js'));
/** CALLER_SIGNING_KEY and CALLER_VERIFY_KEYS of one app, as a deployment gives them. */
function callerKeysOf(app) {
  const keys = {};
  if (app === 'api-gateway' || app === 'auth-server') keys.CALLER_SIGNING_KEY = env.CALLER_SIGNING_KEY;
  if (app !== 'api-gateway') {
    try {
      keys.CALLER_VERIFY_KEYS = deriveConsumerKey(env.CALLER_SIGNING_KEY, app);
    } catch (error) {
      console.error(`[dev-run] CALLER_SIGNING_KEY is not valid: ${error.message}`);
      process.exit(2);
    }
  }
  return keys;
}
for (const spec of specs) Object.assign(spec.env, callerKeysOf(spec.app));
for (const spec of specs) if (spec.app === 'api-gateway' || spec.app === 'crm-core') spec.env.STORAGE_SECRET = env.STORAGE_SECRET;

// ---- output -------------------------------------------------------------------------------
const useColor = (process.stdout.isTTY && !env.NO_COLOR) || Boolean(env.FORCE_COLOR && env.FORCE_COLOR !== '0');
const palette = [36, 35, 33, 32, 34, 96, 95, 93, 92, 94];
const width = Math.max(...specs.map((s) => s.name.length), 'dev-run'.length);
const paint = (code, text) => (useColor ? `\x1b[${code}m${text}\x1b[0m` : text);
const prefixFor = (name, color) => `${paint(color, name.padEnd(width))} | `;
const selfPrefix = prefixFor('dev-run', 1);
const say = (msg) => process.stdout.write(`${selfPrefix}${msg}\n`);
const shout = (msg) => process.stderr.write(`${selfPrefix}${paint(31, msg)}\n`);

// EPIPE when our reader goes away (e.g. `| head`) must not crash us while children still run.
process.stdout.on('error', () => {});
process.stderr.on('error', () => {});

const formatLine = createLineFormatter({ format: logFormat(env), colorize: useColor });

function pipeLines(stream, prefix, out) {
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  rl.on('line', (line) => {
    for (const shown of formatLine(line)) out.write(`${prefix}${shown}\n`);
  });
  return new Promise((resolve) => rl.once('close', resolve));
}

// ---- processes ----------------------------------------------------------------------------
const children = new Map(); // name -> { child, done: Promise }
const restarting = new Set(); // names stopped to be started again (--watch)
const exited = new Set(); // names that exited on their own (--watch: the next change restarts them)
let stopping = false;
let stopReason = null; // 'signal' | 'crash'
let exitCode = 0;
let killTimer = null;
let allStopped;
const stopped = new Promise((resolve) => {
  allStopped = resolve;
});

function describeExit(code, signal) {
  return signal ? `signal ${signal}` : `exit code ${code}`;
}

function start(spec) {
  const color = palette[specs.indexOf(spec) % palette.length];
  const prefix = prefixFor(spec.name, color);
  const childEnv = { ...base, ...spec.env };
  exited.delete(spec.name);
  // detached: own process group, so a terminal Ctrl-C reaches only us and we stop children in order.
  const child = spawn(process.execPath, [main(spec.app)], { cwd: root, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const streams = Promise.all([pipeLines(child.stdout, prefix, process.stdout), pipeLines(child.stderr, prefix, process.stderr)]);
  const portInfo = Object.entries(spec.env).find(([k]) => /PORT$/.test(k));
  say(`started ${spec.name} (pid ${child.pid}, ${portInfo[0]}=${portInfo[1]})`);

  const done = new Promise((resolve) => {
    let settled = false;
    const finish = async (code, signal, error) => {
      if (settled) return;
      settled = true;
      await streams.catch(() => {});
      children.delete(spec.name);
      const requested = stopping && stopReason !== null;
      if (restarting.delete(spec.name) && !stopping) {
        start(spec);
      } else if (error) {
        shout(`${spec.name} could not be started: ${error.message}`);
        exitCode = 1;
      } else if (!requested && opts.watch) {
        shout(`${spec.name} exited (${describeExit(code, signal)}); save a change to restart it`);
        exited.add(spec.name);
      } else if (!requested) {
        shout(`${spec.name} exited unexpectedly (${describeExit(code, signal)}); stopping the other services`);
        exitCode = 1;
      } else if (code === 0 || signal === 'SIGTERM') {
        say(`${spec.name} stopped`);
      } else {
        shout(`${spec.name} stopped with ${describeExit(code, signal)}`);
        exitCode = 1;
      }
      if (!stopping && !opts.watch) stopAll('crash');
      if (stopping && children.size === 0) allStopped();
      resolve();
    };
    child.once('error', (e) => finish(null, null, e));
    child.once('exit', (code, signal) => finish(code, signal));
  });
  children.set(spec.name, { child, done });
}

function signalChild(child, signal) {
  try {
    child.kill(signal);
  } catch {
    /* already gone */
  }
}

function stopAll(reason) {
  if (stopping) return;
  stopping = true;
  stopReason = reason;
  const names = [...children.keys()];
  if (names.length === 0) return allStopped();
  say(`stopping ${names.join(', ')} (SIGTERM)`);
  for (const { child } of children.values()) signalChild(child, 'SIGTERM');
  const timeoutMs = Number(env.DEV_RUN_KILL_TIMEOUT_MS) || 20000;
  killTimer = setTimeout(() => killAll(`still running after ${timeoutMs} ms`), timeoutMs);
  killTimer.unref();
}

function killAll(why) {
  if (children.size === 0) return;
  shout(`${[...children.keys()].join(', ')} ${why}: sending SIGKILL`);
  exitCode = 1;
  for (const { child } of children.values()) signalChild(child, 'SIGKILL');
}

/** --watch: stops the service (its exit handler starts it again), or starts it if it had exited. */
function restart(spec) {
  const running = children.get(spec.name);
  if (!running) return start(spec);
  restarting.add(spec.name);
  signalChild(running.child, 'SIGTERM');
}

// ---- --watch ------------------------------------------------------------------------------
const hashOf = (file) => (existsSync(file) ? createHash('sha256').update(readFileSync(file)).digest('hex') : null);

/** Compiles the changed sources (the swc CLI with .swcrc, as `npm run build`); resolves with those whose output changed. */
async function rebuild(sources) {
  const present = sources.filter((rel) => existsSync(path.join(root, rel)));
  const outputs = new Map(sources.map((rel) => [rel, path.join(opts.dist, path.relative('dist', outputOf(rel)))]));
  const before = new Map(sources.map((rel) => [rel, hashOf(outputs.get(rel))]));
  for (const rel of sources.filter((r) => !present.includes(r))) {
    rmSync(outputs.get(rel), { force: true });
    rmSync(`${outputs.get(rel)}.map`, { force: true });
  }
  if (present.length > 0) {
    const swc = require.resolve('@swc/cli/bin/swc.js');
    const args = [swc, ...present, '--out-dir', opts.dist, '--config-file', '.swcrc', '--quiet'];
    const child = spawn(process.execPath, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
    const code = await new Promise((resolve) => child.once('exit', resolve));
    if (code !== 0) {
      shout(`swc could not compile ${present.join(', ')} (see above); nothing restarted`);
      return [];
    }
  }
  return sources.filter((rel) => hashOf(outputs.get(rel)) !== before.get(rel));
}

function watchSources() {
  const pending = new Set();
  let timer = null;
  let building = false;
  const apps = [...new Set(specs.map((s) => s.app))];
  const flush = async () => {
    timer = null;
    if (building || stopping || pending.size === 0) return;
    building = true;
    const sources = [...pending].sort();
    pending.clear();
    try {
      const changed = await rebuild(sources);
      if (changed.length > 0) {
        const affected = servicesFor(changed, apps);
        // A service that had exited (e.g. on an error being fixed now) starts again with any change.
        const toRestart = specs.filter((s) => affected.includes(s.app) || exited.has(s.name));
        say(
          `compiled ${changed.join(', ')}: ${toRestart.length ? `restarting ${toRestart.map((s) => s.name).join(', ')}` : 'no service uses it'}`,
        );
        for (const spec of toRestart) if (!stopping) restart(spec);
      }
    } finally {
      building = false;
      if (pending.size > 0) timer = setTimeout(flush, 100);
    }
  };
  for (const top of ['apps', 'libs']) {
    watch(path.join(root, top), { recursive: true }, (_event, file) => {
      if (!file) return;
      const rel = path.join(top, file.toString());
      if (!isBuildSource(rel)) return;
      pending.add(rel);
      if (timer) clearTimeout(timer);
      timer = setTimeout(flush, 200);
    });
  }
  say('watching apps/ and libs/ (a saved change recompiles and restarts the services it affects)');
}

// A terminal Ctrl-C reaches us directly and, forwarded as SIGTERM, via tools/up.mjs (and npm) as
// well: signals within DUPLICATE_WINDOW_MS of the first one count as the same request. A signal
// after that (Ctrl-C pressed again) kills what is still running.
const DUPLICATE_WINDOW_MS = 2000;
let firstSignalAt = 0;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(sig, () => {
    const now = Date.now();
    if (firstSignalAt === 0) {
      firstSignalAt = now;
      say(`received ${sig}`);
      stopAll('signal');
    } else if (now - firstSignalAt > DUPLICATE_WINDOW_MS) {
      killAll(`received ${sig} again`);
    }
  });
}

// Never leave orphans behind, whatever happens to us.
process.on('exit', () => {
  for (const { child } of children.values()) signalChild(child, 'SIGKILL');
});

specs.forEach((spec) => start(spec));
if (opts.watch) watchSources();

await stopped;
if (killTimer) clearTimeout(killTimer);
if (stopReason === 'crash' && exitCode === 0) exitCode = 1;
say(exitCode === 0 ? 'all services stopped' : `all services stopped (exit code ${exitCode})`);
// fs.watch handles would keep the process alive.
process.exit(exitCode);
