// Shared by the benchmarks: a private, production-like system (fresh build, own database and
// namespace, NODE_ENV=production) so a running development system is untouched.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const node = process.execPath;

export function parseArgs(argv) {
  return Object.fromEntries(
    argv
      .join(' ')
      .split('--')
      .filter(Boolean)
      .map((a) => a.trim().split(/\s+/)),
  );
}

export function machineDescription() {
  return `${os.cpus().length} x ${os.cpus()[0]?.model ?? 'cpu'}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}, Node ${process.version}`;
}

export async function waitReady(url, ms = 60_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} not ready after ${ms} ms`);
}

/** Deletes the run's JetStream events stream (the shared NATS would keep one per run); from the build. */
export async function deleteEventsStream(env) {
  const streams = createRequire(import.meta.url)(path.join(root, 'dist/libs/testing/src/streams.js'));
  await streams.deleteEventsStream(env.NATS_URL || 'nats://127.0.0.1:4222', env.CRM_NAMESPACE);
}

/**
 * Builds, migrates a fresh database and starts the four services (tools/dev-run.mjs) on `ports`.
 * Returns the URLs, the operator API's URL and headers, and stop() (SIGTERM, then drops the database).
 * `databaseUrl`: the PostgreSQL server to use (default DATABASE_URL or the local one);
 * `replicaUrl`: a streaming replica of it, given to crm-core as DATABASE_REPLICA_URL (the same
 * database name); `build: false` when the caller has just built.
 */
export async function startSystem({ ports, log, extraEnv = {}, databaseUrl, replicaUrl, build = true }) {
  const baseDb = databaseUrl ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/crm';
  const dbUrl = new URL(baseDb);
  dbUrl.pathname = `/crm_bench_${randomBytes(4).toString('hex')}`;
  const env = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATABASE_URL: dbUrl.toString(),
    CRM_NAMESPACE: `bench-${randomBytes(4).toString('hex')}`,
    OPERATOR_TOKEN: randomBytes(32).toString('base64url'),
    API_KEY_PEPPER: randomBytes(32).toString('base64url'),
    // Signs attachment download URLs and upload forms (required in production).
    STORAGE_SECRET: randomBytes(32).toString('base64url'),
    STORAGE_DIR: path.join(os.tmpdir(), `crm-bench-files-${randomBytes(4).toString('hex')}`),
    // The secret that signs NATS requests; dev-run derives each consumer's key from it.
    CALLER_SIGNING_KEY: randomBytes(32).toString('base64url'),
    PORT: String(ports.gateway),
    AUTH_PORT: String(ports.auth),
    // The operator API's internal port (the public AUTH_PORT answers 404 on /operator/*).
    OPERATOR_PORT: String(ports.auth + 100),
    CRM_CORE_PORT: String(ports.core),
    WEBHOOK_DISPATCHER_PORT: String(ports.dispatcher),
    AUTH_ISSUER: `http://127.0.0.1:${ports.auth}`,
    AUTH_URL: `http://127.0.0.1:${ports.auth}`,
    REGION_BASE_URLS: `us=http://127.0.0.1:${ports.gateway}/api/v3`,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    // The per-user limits run on every request (one Redis script each); only their ceilings are
    // raised, since a benchmark is one user at many connections.
    RATE_LIMIT_PER_MINUTE: '1000000',
    RATE_LIMIT_CONCURRENT: '1000',
    ...(replicaUrl ? { DATABASE_REPLICA_URL: new URL(dbUrl.pathname, replicaUrl).toString() } : {}),
    ...extraEnv,
  };
  const run = (cmd, argv) => {
    const result = spawnSync(cmd, argv, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${cmd} ${argv.join(' ')} failed (exit ${result.status}): ${result.stdout}`);
  };
  const dropDatabase = async () => {
    const admin = new pg.Client({ connectionString: baseDb.replace(/\/[^/]*$/, '/postgres') });
    await admin.connect();
    await admin.query(`DROP DATABASE IF EXISTS "${dbUrl.pathname.slice(1)}" WITH (FORCE)`);
    await admin.end();
  };
  if (build) {
    log('building');
    run('npm', ['run', 'build', '--silent']);
  }
  log(`migrating a fresh database ${dbUrl.pathname.slice(1)}`);
  try {
    for (const app of ['auth-server', 'crm-core', 'webhook-dispatcher']) run(node, [`dist/apps/${app}/src/main.js`, 'migrate']);
  } catch (error) {
    // A failed migration leaves a database behind (the first one creates it).
    await dropDatabase().catch(() => undefined);
    throw error;
  }
  log('starting the four services');
  const services = spawn(node, ['tools/dev-run.mjs'], { cwd: root, env, stdio: ['ignore', 'ignore', 'inherit'], detached: true });
  const urls = {
    gateway: `http://127.0.0.1:${ports.gateway}`,
    auth: `http://127.0.0.1:${ports.auth}`,
    core: `http://127.0.0.1:${ports.core}`,
    dispatcher: `http://127.0.0.1:${ports.dispatcher}`,
  };
  // Prometheus /metrics of each service: its port + 6460 (tools/dev-run.mjs).
  const metricsUrls = Object.fromEntries(Object.entries(ports).map(([name, port]) => [name, `http://127.0.0.1:${port + 6460}`]));
  const stop = async () => {
    process.kill(-services.pid, 'SIGTERM');
    await new Promise((r) => services.once('exit', r));
    await dropDatabase();
    await deleteEventsStream(env);
  };
  try {
    await Promise.all(Object.values(urls).map((u) => waitReady(`${u}/readyz`)));
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  return {
    env,
    urls,
    metricsUrls,
    operatorUrl: `http://127.0.0.1:${ports.auth + 100}`,
    operatorHeaders: { authorization: `Bearer ${env.OPERATOR_TOKEN}`, 'content-type': 'application/json' },
    stop,
  };
}

/** USER_HZ: the unit of /proc/PID/stat's utime and stime (100 on Linux). */
const CLOCK_TICKS = 100;
const SERVICE_APPS = ['api-gateway', 'crm-core', 'auth-server', 'webhook-dispatcher'];

/**
 * CPU seconds used so far, per process, from /proc (null without /proc): the four services of the
 * system whose CRM_NAMESPACE is `namespace` (keys api-gateway, crm-core, auth-server,
 * webhook-dispatcher), the PostgreSQL backends of `database` (postgres) and the server's own
 * processes (postgres-shared: WAL writer, checkpointer... shared with every database), nats-server
 * and redis-server (shared with anything else using them), and `pids` (a Map of pid -> key, e.g.
 * the floors). Returns a Map of pid -> { key, seconds }; {@link cpuUsedPerKey} turns two into usage.
 */
export function cpuSnapshot({ namespace, database, pids = new Map() }) {
  let all;
  try {
    all = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  const out = new Map();
  for (const pid of all) {
    try {
      let key = pids.get(Number(pid)) ?? null;
      if (!key) {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        if (cmd.startsWith('postgres: ')) {
          // A backend shows its client's address; another database's backends are not this run's.
          if (cmd.includes(` ${database} `)) key = 'postgres';
          else if (!/\(\d+\)|\[local\]/.test(cmd)) key = 'postgres-shared';
        } else if (/(^|\/)nats-server\0/.test(cmd)) key = 'nats-server';
        else if (/(^|\/)redis-server[\0 ]/.test(cmd)) key = 'redis-server';
        else {
          const app = SERVICE_APPS.find((a) => cmd.includes(`dist/apps/${a}/`));
          if (app && readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`CRM_NAMESPACE=${namespace}`)) key = app;
        }
      }
      if (!key) continue;
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(pid, { key, seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS });
    } catch {
      // the process ended meanwhile, or is not ours to read
    }
  }
  return out;
}

/** CPU seconds each key used between two {@link cpuSnapshot}s (a process that ended meanwhile is not counted). */
export function cpuUsedPerKey(before, after) {
  const used = {};
  if (!before || !after) return used;
  for (const [pid, { key, seconds }] of after) used[key] = (used[key] ?? 0) + seconds - (before.get(pid)?.seconds ?? 0);
  return used;
}
