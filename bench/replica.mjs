#!/usr/bin/env node
// `npm run bench -- --only replica` (or `node bench/replica.mjs`): the request mix of
// docs/scaling.md ("the mix": 70 % GET /contacts/{id}, 10 % GET /contacts?per_page=100, 20 % POST
// /notes) through the gateway's full chain, against crm-core on a private PostgreSQL primary and
// streaming replica (libs/testing startPostgresPrimaryWithReplica, from the build), spread over
// several accounts. Reports the share of crm-core's PostgreSQL CPU the replica takes: CPU seconds
// of each server's backends from /proc, attributed to crm-core by pg_stat_activity's
// application_name; also the WAL replay's own CPU, crm-core's crm_db_reads_total by target and
// reason, and the measured lag. Report in bench/results/.
//
//   node bench/replica.mjs [--quick] [--seconds 30 --connections 32 --accounts 10 --contacts 5000]
import autocannon from 'autocannon';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { machineDescription, parseArgs, root, startSystem } from './lib.mjs';
import { contactColumns, rng, seedContacts } from './seed.mjs';

const args = parseArgs(process.argv.slice(2));
const QUICK = 'quick' in args;
const SECONDS = Number(args.seconds ?? (QUICK ? 5 : 30));
const CONNECTIONS = Number(args.connections ?? (QUICK ? 8 : 32));
const ACCOUNTS = Number(args.accounts ?? (QUICK ? 2 : 10));
const CONTACTS = Number(args.contacts ?? (QUICK ? 500 : 5000));
const WARMUP_SECONDS = QUICK ? 2 : 5;
const ports = { gateway: 3470, auth: 3471, core: 3472, dispatcher: 3473 };
const log = (msg) => console.log(`[bench:replica] ${msg}`);

/** USER_HZ: the unit of /proc/PID/stat's utime and stime. */
const CLOCK_TICKS = 100;

/** pid -> { ppid, seconds } of every process (null without /proc). */
function processes() {
  const out = new Map();
  let pids;
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(Number(pid), { ppid: Number(fields[1]), seconds: (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS });
    } catch {
      // ended meanwhile
    }
  }
  return out;
}

/** Backends of one server (children of its postmaster), by pid, with their application_name and kind. */
async function backendsOf(url, database) {
  const db = new pg.Client({ connectionString: url, application_name: 'bench-replica-probe' });
  await db.connect();
  try {
    const { rows } = await db.query('SELECT pid, application_name, backend_type, datname FROM pg_stat_activity');
    return new Map(rows.map((r) => [r.pid, { app: r.datname === database ? r.application_name : '', type: r.backend_type }]));
  } finally {
    await db.end();
  }
}

/** CPU seconds between two snapshots of one server's processes, grouped: crm-core's backends, other backends, the server's own processes. */
function cpuOfServer(before, after, postmaster, backends) {
  const used = { crmCore: 0, monitor: 0, otherBackends: 0, server: 0, replay: 0 };
  if (!before || !after || !postmaster) return used;
  for (const [pid, { ppid, seconds }] of after) {
    if (pid !== postmaster && ppid !== postmaster) continue;
    const delta = seconds - (before.get(pid)?.seconds ?? 0);
    const backend = backends.get(pid);
    if (backend?.type === 'client backend') {
      if (backend.app === 'crm-core') used.crmCore += delta;
      else if (backend.app === 'crm-core-replica-monitor') used.monitor += delta;
      else used.otherBackends += delta;
    } else if (backend?.type === 'startup') used.replay += delta;
    else used.server += delta;
  }
  return used;
}

async function crmCoreReads(metricsUrl) {
  const text = await (await fetch(`${metricsUrl}/metrics`)).text();
  const reads = {};
  for (const m of text.matchAll(/^crm_db_reads_total\{([^}]*)\} ([0-9.e+]+)$/gm)) {
    const labels = Object.fromEntries([...m[1].matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (labels.target) reads[`${labels.target}/${labels.reason}`] = Number(m[2]);
  }
  const lag = Number(/^crm_db_replica_lag_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text)?.[1] ?? NaN);
  return { reads, lag };
}

/** The mix for `seconds`: each request picks its account and its kind at random (70/10/20). */
function mix(gateway, accounts, seconds) {
  const random = rng(7);
  let notes = 0;
  const statuses = {};
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: gateway,
        connections: CONNECTIONS,
        duration: seconds,
        requests: [
          {
            setupRequest: (request) => {
              const account = accounts[Math.floor(random() * accounts.length)];
              const contact = account.ids[Math.floor(random() * account.ids.length)];
              const roll = random();
              request.headers = { ...request.headers, authorization: account.authorization };
              if (roll < 0.7) return { ...request, method: 'GET', path: `/api/v3/contacts/${contact}`, body: undefined };
              if (roll < 0.8) return { ...request, method: 'GET', path: '/api/v3/contacts?per_page=100', body: undefined };
              return {
                ...request,
                method: 'POST',
                path: '/api/v3/notes',
                headers: { ...request.headers, 'content-type': 'application/json' },
                body: JSON.stringify({ contact_id: contact, text: `Replica bench note ${(notes += 1)}` }),
              };
            },
          },
        ],
      },
      (error, result) => (error ? reject(error) : resolve({ result, statuses })),
    );
    instance.on('response', (_client, status) => (statuses[status] = (statuses[status] ?? 0) + 1));
  });
}

async function main() {
  log('building');
  const built = spawnSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build failed: ${built.stdout}`);
  const { startPostgresPrimaryWithReplica } = createRequire(import.meta.url)(path.join(root, 'dist/libs/testing/src/pg-replica.js'));
  log('starting a private PostgreSQL primary and streaming replica');
  const pair = await startPostgresPrimaryWithReplica();
  let system;
  try {
    system = await startSystem({ ports, log, databaseUrl: pair.primaryUrl, replicaUrl: pair.replicaUrl, build: false });
    const dbUrl = system.env.DATABASE_URL;
    const database = new URL(dbUrl).pathname.slice(1);
    const replicaDbUrl = system.env.DATABASE_REPLICA_URL;
    log(`creating ${ACCOUNTS} accounts with ${CONTACTS} contacts each`);
    const accounts = [];
    for (let i = 0; i < ACCOUNTS; i += 1) {
      const created = await (
        await fetch(`${system.operatorUrl}/operator/accounts`, {
          method: 'POST',
          headers: system.operatorHeaders,
          body: JSON.stringify({
            name: `Replica bench ${i}`,
            admin: {
              first_name: 'Bench',
              last_name: `Admin ${i}`,
              email: `replica-${Date.now()}-${i}@example.com`,
              password: 'bench password 1',
            },
          }),
        })
      ).json();
      const { ids } = await seedContacts(dbUrl, created.account.id, created.user.id, contactColumns(), CONTACTS);
      accounts.push({ ids, authorization: `Basic ${Buffer.from(`${created.user.id}:${created.user.api_key}`).toString('base64')}` });
    }
    await pair.waitForReplay();
    log(`warming up (${WARMUP_SECONDS} s)`);
    await mix(system.urls.gateway, accounts, WARMUP_SECONDS);

    const readsBefore = await crmCoreReads(system.metricsUrls.core);
    const pids = pair.pids();
    const before = processes();
    const loadBefore = os.loadavg();
    log(`the mix: ${CONNECTIONS} connections for ${SECONDS} s over ${ACCOUNTS} accounts`);
    const { result, statuses } = await mix(system.urls.gateway, accounts, SECONDS);
    const after = processes();
    const loadAfter = os.loadavg();
    const [primaryBackends, replicaBackends] = await Promise.all([backendsOf(dbUrl, database), backendsOf(replicaDbUrl, database)]);
    const primary = cpuOfServer(before, after, pids.primary, primaryBackends);
    const replica = cpuOfServer(before, after, pids.replica, replicaBackends);
    const readsAfter = await crmCoreReads(system.metricsUrls.core);
    const reads = Object.fromEntries(
      Object.entries(readsAfter.reads)
        .map(([key, n]) => [key, n - (readsBefore.reads[key] ?? 0)])
        .filter(([, n]) => n > 0),
    );
    const replicaReads = Object.entries(reads)
      .filter(([key]) => key.startsWith('replica/'))
      .reduce((sum, [, n]) => sum + n, 0);
    const allReads = Object.values(reads).reduce((sum, n) => sum + n, 0);
    const crmCoreCpu = primary.crmCore + replica.crmCore;
    const share = crmCoreCpu > 0 ? replica.crmCore / crmCoreCpu : NaN;
    const errors = result.errors + result.timeouts + result.non2xx;
    const pct = (x) => `${(100 * x).toFixed(1)} %`;
    const s = (x) => x.toFixed(2);
    log(
      `${Math.round(result.requests.average)} req/s, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, statuses ${JSON.stringify(statuses)}`,
    );
    log(
      `crm-core's PostgreSQL CPU: primary ${s(primary.crmCore)} s, replica ${s(replica.crmCore)} s: the replica takes ${pct(share)} (reads on the replica: ${replicaReads} of ${allReads}, ${pct(replicaReads / Math.max(1, allReads))})`,
    );
    log(`reads by target/reason: ${JSON.stringify(reads)}; lag at the end ${readsAfter.lag} s`);

    const report = [
      `# Reads from a replica: the mix on a primary and a streaming replica, ${new Date().toISOString()}`,
      '',
      `Machine: ${machineDescription()}. \`node bench/replica.mjs${QUICK ? ' --quick' : ''}\`: autocannon, ${CONNECTIONS} connections, ${SECONDS} s after a ${WARMUP_SECONDS} s warm-up; ${ACCOUNTS} accounts of ${CONTACTS} contacts each, every request for a random account (its admin's API key): 70 % GET /contacts/{id}, 10 % GET /contacts?per_page=100, 20 % POST /notes (docs/scaling.md "the mix"). One replica of each service (NODE_ENV=production, LOG_LEVEL=warn); crm-core with DATABASE_REPLICA_URL (REPLICA_MAX_LAG_MS 1000, REPLICA_POLL_MS 50); a private PostgreSQL 15 primary and streaming replica on this machine (fsync off). Load average ${loadBefore.map((l) => l.toFixed(2)).join(' ')} before, ${loadAfter.map((l) => l.toFixed(2)).join(' ')} after.`,
      '',
      '| requests | req/s | p50 ms | p99 ms | errors | statuses |',
      '|---|---|---|---|---|---|',
      `| ${result.requests.total} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${errors} | ${JSON.stringify(statuses)} |`,
      '',
      'CPU seconds per PostgreSQL server during the run (/proc; backends attributed by pg_stat_activity):',
      '',
      "| server | crm-core's backends | crm-core's position monitor | other backends (auth, dispatcher) | WAL replay (startup) | server processes (walsender/receiver, writer, ...) |",
      '|---|---|---|---|---|---|',
      `| primary | ${s(primary.crmCore)} | ${s(primary.monitor)} | ${s(primary.otherBackends)} | - | ${s(primary.server)} |`,
      `| replica | ${s(replica.crmCore)} | ${s(replica.monitor)} | ${s(replica.otherBackends)} | ${s(replica.replay)} | ${s(replica.server)} |`,
      '',
      `**Share of crm-core's PostgreSQL CPU on the replica: ${pct(share)}.** Reads (requests) by target/reason: \`${JSON.stringify(reads)}\`: ${pct(replicaReads / Math.max(1, allReads))} on the replica. Replica lag at the end: ${readsAfter.lag} s.`,
      '',
    ].join('\n');
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    const file = path.join(root, 'bench/results', `${new Date().toISOString().slice(0, 10)}-replica${QUICK ? '-quick' : ''}.md`);
    writeFileSync(file, report);
    log(`report written to ${path.relative(root, file)}`);
    if (errors > 0 || replicaReads === 0) process.exitCode = 1;
  } finally {
    await system?.stop().catch((error) => log(`stopping the system: ${error.message}`));
    await pair.destroy();
  }
}

main().catch((error) => {
  console.error(
    `[bench:replica] failed: ${error.stack ?? error.message}\n[bench:replica] check that Redis and NATS run and that ports 3470-3473 are free.`,
  );
  process.exit(1);
});
