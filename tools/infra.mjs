#!/usr/bin/env node
// PostgreSQL, Redis and NATS (JetStream) for `npm start` and `npm test`, and Chromium for the browser
// tests. Runs on the project's Node 22 (node_modules/.bin/node).
//
//   node tools/infra.mjs [infra] [chromium] [python]      (scripts/test.sh; tools/up.mjs imports ensureInfra)
//
// A server that answers at DATABASE_URL, REDIS_URL or NATS_URL (defaults: the local ones) is never
// touched. Only missing local servers are started: with `docker compose up -d` when a Docker engine
// answers, else from Debian packages when running as root. Every change to the machine is printed
// before it is made (log.change).
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createLog, UpError } from './cli-log.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const DEFAULT_URLS = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/crm',
  REDIS_URL: 'redis://127.0.0.1:6379',
  NATS_URL: 'nats://127.0.0.1:4222',
};

/** Host and port of a URL (the first of a comma-separated list). */
export function hostPort(url, defaultPort) {
  const u = new URL(url.split(',')[0]);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port: Number(u.port) || defaultPort };
}

const isLocal = (host) => host === 'localhost' || host === '::1' || host.startsWith('127.');

export function tcpOpen(host, port, timeoutMs = 2000) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: timeoutMs });
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => done(true));
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

async function waitTcp(host, port, seconds) {
  const deadline = Date.now() + seconds * 1000;
  while (!(await tcpOpen(host, port))) {
    if (Date.now() > deadline) return false;
    await sleep(1000);
  }
  return true;
}

/** `select 1` on database "postgres" (the target database may not exist before migrations). */
async function pgQuery(url) {
  const { Client } = require('pg');
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new Client({ connectionString: admin.toString(), connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
  } finally {
    await client.end().catch(() => {});
  }
}

function redisPing(host, port) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port, timeout: 3000 });
    let reply = '';
    const done = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('latin1');
      if (reply.includes('\r\n')) done(/^(\+PONG|-NOAUTH|-WRONGPASS)/.test(reply));
    });
    socket.once('timeout', () => done(false));
    socket.once('error', () => done(false));
  });
}

/** 'ok', or the reason NATS is not usable: { kind: 'connect' | 'jetstream', message }. */
async function natsJetStream(url) {
  const { connect } = require('@nats-io/transport-node');
  const { jetstreamManager } = require('@nats-io/jetstream');
  let nc;
  try {
    nc = await connect({ servers: url.split(','), timeout: 3000, reconnect: false });
  } catch (error) {
    return { kind: 'connect', message: error.message };
  }
  try {
    await (await jetstreamManager(nc, { timeout: 3000 })).getAccountInfo();
    return 'ok';
  } catch (error) {
    return { kind: 'jetstream', message: error.message };
  } finally {
    await nc.close().catch(() => {});
  }
}

function run(log, command, args, what) {
  const result = spawnSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
  if (result.status !== 0) throw new UpError(`${what} failed (${command} ${args.join(' ')})`, 'see the messages above');
}

const have = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

function dockerAnswers() {
  return have('docker') && spawnSync('docker', ['info'], { stdio: 'ignore', timeout: 20000 }).status === 0;
}

function startWithDocker(log, services) {
  const compose = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0 ? ['docker', 'compose'] : null;
  if (!compose)
    throw new UpError(
      "Docker is running but 'docker compose' is not available",
      `install the Docker Compose plugin, or start ${services.join(', ')} yourself`,
    );
  log.change(`docker compose up -d ${services.join(' ')} (containers and volumes from docker-compose.yml)`);
  run(log, compose[0], [...compose.slice(1), 'up', '-d', ...services], 'docker compose up');
}

let aptUpdated = false;
function aptInstall(log, ...packages) {
  if (!aptUpdated) {
    log.change('apt-get update');
    run(log, 'apt-get', ['update', '-q'], 'apt-get update');
    aptUpdated = true;
  }
  log.change(`apt-get install -y ${packages.join(' ')}`);
  const result = spawnSync('apt-get', ['install', '-y', '-q', ...packages], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (result.status !== 0) throw new UpError(`apt-get install ${packages.join(' ')} failed`, 'see the apt messages above');
}

const TRUST_MARK = '# crm-dev: trust local TCP connections as postgres (added by npm start)';
const TRUST_LINES = [TRUST_MARK, 'host    all    postgres    127.0.0.1/32    trust', 'host    all    postgres    ::1/128         trust'];

/** Debian's PostgreSQL: installed and allowed passwordless local TCP only when we install it here. */
function startPostgresApt(log, port) {
  const installedNow = !existsSync('/etc/postgresql') || !have('pg_ctlcluster');
  if (installedNow) aptInstall(log, 'postgresql');
  const version = readdirSync('/etc/postgresql').sort((a, b) => Number(b) - Number(a))[0];
  if (!version || !existsSync(`/etc/postgresql/${version}/main`))
    throw new UpError('no PostgreSQL cluster found in /etc/postgresql', 'create one: pg_createcluster <version> main --start');
  if (port !== 5432)
    log.warn(`DATABASE_URL uses port ${port}; the Debian cluster listens on the port in /etc/postgresql/${version}/main/postgresql.conf`);
  const hba = `/etc/postgresql/${version}/main/pg_hba.conf`;
  const current = readFileSync(hba, 'utf8');
  if (installedNow && !current.includes(TRUST_MARK)) {
    log.change(`${hba}: adding these lines at the top (the file before: ${hba}.before-crm-dev)`);
    for (const line of TRUST_LINES) log.info(`    ${line}`);
    copyFileSync(hba, `${hba}.before-crm-dev`);
    writeFileSync(hba, `${TRUST_LINES.join('\n')}\n${current}`);
  }
  const ctl = (action) =>
    spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', action], {
      stdio: action === 'status' ? 'ignore' : 'inherit',
    }).status === 0;
  const running = ctl('status');
  log.change(`${running ? 'reloading' : 'starting'} PostgreSQL ${version} (pg_ctlcluster ${version} main ${running ? 'reload' : 'start'})`);
  if (!ctl(running ? 'reload' : 'start'))
    throw new UpError(`could not start PostgreSQL ${version}`, `see /var/log/postgresql/postgresql-${version}-main.log`);
  return { version, hba, installedNow };
}

function startRedisApt(log, port) {
  if (!have('redis-server')) aptInstall(log, 'redis-server');
  log.change(`starting redis-server on 127.0.0.1:${port} (in the background, nothing saved to disk)`);
  run(
    log,
    'redis-server',
    ['--daemonize', 'yes', '--bind', '127.0.0.1', '--port', String(port), '--save', '', '--appendonly', 'no'],
    'starting redis-server',
  );
}

function startNatsApt(log, port) {
  if (!existsSync('/usr/sbin/nats-server')) aptInstall(log, 'nats-server');
  log.change(`starting nats-server with JetStream on 127.0.0.1:${port} (store /var/lib/nats-server, log /var/log/nats-server.log)`);
  mkdirSync('/var/lib/nats-server', { recursive: true });
  // --pidfile: a nats-server already running on another port must not count as "already running".
  run(
    log,
    'start-stop-daemon',
    [
      '--start',
      '--oknodo',
      '--background',
      '--make-pidfile',
      '--pidfile',
      `/run/nats-server-${port}.pid`,
      '--exec',
      '/usr/sbin/nats-server',
      '--',
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-js',
      '-sd',
      '/var/lib/nats-server',
      '-l',
      '/var/log/nats-server.log',
    ],
    'starting nats-server',
  );
}

function manualHelp(missing) {
  return new UpError(
    `not reachable on this machine: ${missing.join(', ')}`,
    'PostgreSQL 15+, Redis 7 and NATS 2.9+ with JetStream are needed. Do one of:',
    `a) start a Docker engine and run again: npm start then runs docker compose up -d ${missing.join(' ')}`,
    'b) run again as root on Debian/Ubuntu: npm start then installs and starts them (apt-get), saying each change',
    'c) start them yourself (PostgreSQL must let user postgres in over local TCP) or point DATABASE_URL, REDIS_URL and NATS_URL at running servers',
  );
}

/**
 * Makes sure PostgreSQL, Redis and NATS (JetStream) answer at the URLs in `env` (defaults: local),
 * starting the missing local ones. Throws UpError with what to do next.
 */
/**
 * Checks that PostgreSQL, Redis and NATS answer at DATABASE_URL, REDIS_URL, NATS_URL (the local
 * defaults when unset) and starts the missing local ones, unless `startMissing` is false (a
 * production start: nothing is installed or started, an unreachable server is an error).
 */
export async function ensureInfra(log, env = process.env, { startMissing = true } = {}) {
  const urls = Object.fromEntries(Object.entries(DEFAULT_URLS).map(([k, v]) => [k, env[k] || v]));
  const servers = [
    { key: 'postgres', name: 'PostgreSQL', url: urls.DATABASE_URL, ...hostPort(urls.DATABASE_URL, 5432) },
    { key: 'redis', name: 'Redis', url: urls.REDIS_URL, ...hostPort(urls.REDIS_URL, 6379) },
    { key: 'nats', name: 'NATS', url: urls.NATS_URL, ...hostPort(urls.NATS_URL, 4222) },
  ];
  const missing = [];
  for (const s of servers) {
    if (await tcpOpen(s.host, s.port)) log.info(`  ${s.name}: ${s.host}:${s.port} answers`);
    else if (!startMissing) {
      throw new UpError(
        `${s.name} at ${s.host}:${s.port} is not reachable (from ${s.url})`,
        'NODE_ENV=production: npm start installs and starts nothing; start the server or fix DATABASE_URL / REDIS_URL / NATS_URL',
      );
    } else if (isLocal(s.host)) {
      log.info(`  ${s.name}: nothing listens on ${s.host}:${s.port}`);
      missing.push(s);
    } else {
      throw new UpError(
        `${s.name} at ${s.host}:${s.port} is not reachable (from ${s.url})`,
        'start it, or fix DATABASE_URL / REDIS_URL / NATS_URL; only local servers are started automatically',
      );
    }
  }

  let pgApt = null;
  let settle = 5;
  if (missing.length > 0) {
    settle = 60;
    if (dockerAnswers())
      startWithDocker(
        log,
        missing.map((s) => s.key),
      );
    else if (process.getuid?.() === 0 && have('apt-get')) {
      for (const s of missing) {
        if (s.key === 'postgres') pgApt = startPostgresApt(log, s.port);
        if (s.key === 'redis') startRedisApt(log, s.port);
        if (s.key === 'nats') startNatsApt(log, s.port);
      }
    } else throw manualHelp(missing.map((s) => s.key));
    for (const s of missing) {
      if (!(await waitTcp(s.host, s.port, 60))) throw new UpError(`${s.name} still not reachable on ${s.host}:${s.port} after 60 s`);
    }
  }

  const [pg, redis, nats] = servers;
  // A query (retried: a freshly started container restarts once during its initialisation).
  for (let deadline = Date.now() + settle * 1000; ; await sleep(1000)) {
    try {
      await pgQuery(pg.url);
      break;
    } catch (error) {
      if (Date.now() < deadline) continue;
      const auth = error.code === '28000' || error.code === '28P01';
      const hints = auth
        ? [
            'PostgreSQL must let user postgres in over local TCP (or give its password in DATABASE_URL)',
            `e.g. add these lines at the top of ${pgApt?.hba ?? 'pg_hba.conf'} and reload PostgreSQL: ${TRUST_LINES.slice(1).join(' | ')}`,
          ]
        : ['check DATABASE_URL and the PostgreSQL log'];
      throw new UpError(`PostgreSQL at ${pg.host}:${pg.port} accepts connections but a query failed: ${error.message}`, ...hints);
    }
  }
  log.info('  PostgreSQL: query ok');
  if (!(await redisPing(redis.host, redis.port)))
    throw new UpError(`something listens on ${redis.host}:${redis.port} but does not answer PING like Redis`, 'check REDIS_URL');
  log.info('  Redis: PING ok');
  let result;
  for (let deadline = Date.now() + (settle / 2) * 1000; ; await sleep(1000)) {
    result = await natsJetStream(nats.url);
    if (result === 'ok' || result.kind !== 'connect' || Date.now() > deadline) break;
  }
  if (result !== 'ok' && result.kind === 'jetstream')
    throw new UpError(
      `NATS at ${nats.host}:${nats.port} answers but JetStream is not enabled (${result.message})`,
      "restart nats-server with JetStream: nats-server -js -sd <store dir> (or 'jetstream {}' in its config)",
    );
  if (result !== 'ok')
    throw new UpError(`cannot connect to NATS at ${nats.url}: ${result.message}`, 'check NATS_URL and that nats-server runs');
  log.info('  NATS: JetStream enabled');
  log.ok(`infrastructure ready (PostgreSQL ${pg.host}:${pg.port}, Redis ${redis.host}:${redis.port}, NATS ${nats.host}:${nats.port})`);
}

/** The browser end-to-end tests drive Debian's Chromium (playwright-core never downloads one). */
export function ensureChromium(log, env = process.env) {
  const chromium = env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (existsSync(chromium)) return log.ok(`Chromium present (${chromium})`);
  if (process.getuid?.() === 0 && have('apt-get')) {
    aptInstall(log, '--no-install-recommends', 'chromium');
    return log.ok('Chromium installed');
  }
  throw new UpError(
    `Chromium is missing at ${chromium} (needed by the browser tests)`,
    'run: sudo apt-get install -y chromium   (or set CHROMIUM_PATH)',
  );
}

/**
 * The e2e test of OnePageCRM's python client runs it on Debian's python3 with python3-requests
 * (ONEPAGECRM_PYTHON picks another interpreter that has requests).
 */
export function ensurePythonRequests(log, env = process.env) {
  const python = env.ONEPAGECRM_PYTHON || '/usr/bin/python3';
  const works = () => spawnSync(python, ['-c', 'import requests'], { stdio: 'ignore' }).status === 0;
  if (works()) return log.ok(`python3-requests present (${python})`);
  if (!env.ONEPAGECRM_PYTHON && process.getuid?.() === 0 && have('apt-get')) {
    aptInstall(log, '--no-install-recommends', 'python3', 'python3-requests');
    if (works()) return log.ok('python3-requests installed');
  }
  throw new UpError(
    `${python} cannot import requests (needed by the e2e test of OnePageCRM's python client)`,
    'run: sudo apt-get install -y python3-requests   (or set ONEPAGECRM_PYTHON to a python3 that has requests)',
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const log = createLog(process.env.LOG_PREFIX || 'infra');
  const what = process.argv.slice(2);
  try {
    process.chdir(root);
    if (what.length === 0 || what.includes('infra')) await ensureInfra(log);
    if (what.includes('chromium')) ensureChromium(log);
    if (what.includes('python')) ensurePythonRequests(log);
  } catch (error) {
    log.fail(error);
    process.exitCode = 1;
  }
}
