#!/usr/bin/env node
// `npm run bench:hotpath` (also part of `npm run bench`): the request path against its floors
// (issue 17), in ONE run with ONE load generator (autocannon, in this process, keep-alive, a random
// id per request) on one private system (bench/lib.mjs startSystem: the full production chain,
// only the per-user limits' ceilings raised) with 50,000 contacts seeded by SQL (bench/seed.mjs):
//
//   reads, 32 clients: the raw floor, the chain floor, the wrapper floor (bench/floors.mjs), GET /contacts/{id},
//     GET /users/{id}; and GET /contacts?per_page=100 at 16 clients;
//   writes, 16 clients: the write floor's POST /notes and POST /contacts/{id}/deals, then the API's
//     POST /notes, POST /contacts/{id}/deals (a contact picked at random) and POST /contacts.
//
// `--rounds` rounds, each giving every scenario `--seconds`, after a `--warmup` of every scenario.
// Within a round the reads, then the writes, are interleaved: `--slices` slices of each scenario in
// turn (floor, API, floor, API...), so that a change of the machine's speed during the round (seen:
// the same floor 30 % apart in two runs a minute apart) falls on a floor and the scenario compared
// with it alike. Per scenario: req/s, p50, p99, statuses, CPU ms per request per
// process (from /proc) and the load average before and after; every read as a ratio of the chain
// floor, every write as a ratio of the write floor inserting its own row (a note, or a deal; POST
// /contacts against the note's), with the issue's targets. Writes
// bench/results/<date>-hotpath.md.
//
//   npm run bench:hotpath [-- --seconds 8 --rounds 2 --slices 4 --warmup 2 --contacts 50000 --deals 0 --only contact,notes]
//
// `--deals N` seeds N pending deals on random contacts too (SQL, through the deals' triggers): the
// contact reads and list pages then show companies with pending deals from the first round on, as
// they do in round 2 of a run with writes (whose deals land on random contacts).
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Redis } from 'ioredis';
import pg from 'pg';
import { cpuSnapshot, cpuUsedPerKey, machineDescription, node, parseArgs, root, startSystem } from './lib.mjs';
import { contactColumns, rng, seedContacts, seedPendingDeals } from './seed.mjs';

const args = parseArgs(process.argv.slice(2));
const SECONDS = Number(args.seconds ?? 8);
const ROUNDS = Number(args.rounds ?? 2);
const WARMUP = Number(args.warmup ?? 2);
/** Each scenario's `SECONDS` of a round, in this many interleaved slices. */
const SLICES = Math.max(1, Math.floor(Number(args.slices ?? 4)));
const CONTACTS = Number(args.contacts ?? 50_000);
const DEALS = Number(args.deals ?? 0);
/** `--only contact,list`: those scenarios and the floors they are compared with; no report is written. */
const ONLY = args.only ? new Set(String(args.only).split(',')) : null;
const READ_CLIENTS = 32;
const WRITE_CLIENTS = 16;
const LIST_CLIENTS = 16;
const log = (msg) => console.log(`[bench:hotpath] ${msg}`);

const ports = { gateway: 3450, auth: 3451, core: 3452, dispatcher: 3453 };
const FLOOR_PORTS = { raw: 3455, edge: 3456, write: 3457 };

/** The issue's "Done when": [scenario key, what it is compared with, minimum ratio, p99 limit in ms]. */
const TARGETS = [
  ['contact', 'chain', 0.6, null],
  ['user', 'chain', 0.7, null],
  ['notes', 'write-notes', 0.5, 50],
  // Each write against the write floor that inserts its own row (decisions.md "Which write floor").
  ['deals', 'write-deals', 0.5, 50],
  ['list', null, null, 100],
];

/** The floor a scenario's req/s is shown against: its target's (TARGETS), else the chain floor for reads and the note floor for writes. */
function comparedWith(scenario) {
  if (scenario.key === 'raw') return null;
  if (scenario.key === 'chain') return 'raw';
  return TARGETS.find(([key]) => key === scenario.key)?.[1] ?? (scenario.write ? 'write-notes' : 'chain');
}

/** CPU columns, in this order; keys of lib.mjs cpuSnapshot and of the floors' pids. */
const CPU_KEYS = [
  ['api-gateway', 'gateway'],
  ['crm-core', 'crm-core'],
  ['auth-server', 'auth'],
  ['webhook-dispatcher', 'dispatcher'],
  ['postgres', 'PostgreSQL (run db)'],
  ['postgres-shared', 'PostgreSQL (shared)'],
  ['nats-server', 'NATS'],
  ['redis-server', 'Redis'],
  ['raw', 'raw floor'],
  ['chain-edge', 'chain edge'],
  ['chain-core', 'chain core'],
  ['write', 'write floor'],
  ['load', 'load generator'],
];

function startFloor(mode, env) {
  const child = spawn(node, [path.join(root, 'bench/floors.mjs'), mode], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  return { mode, child, stop: async () => (child.exitCode === null && child.kill('SIGTERM'), exited) };
}

/** Retries one request until it answers `expected` (the floors start in the background). */
async function probe(name, url, init, expected, ms = 20_000) {
  const until = Date.now() + ms;
  let last = 'no answer';
  while (Date.now() < until) {
    try {
      const res = await fetch(url, init);
      const text = await res.text();
      if (res.status === expected) return;
      last = `${res.status} ${text.slice(0, 300)}`;
    } catch (error) {
      last = error.message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${name}: ${url} did not answer ${expected} (last: ${last})`);
}

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

/** One scenario for `seconds` with autocannon; the request's path (and body) made afresh per request. */
async function run(scenario, seconds, measuredProcesses) {
  const latencies = [];
  const loadBefore = os.loadavg();
  const cpuBefore = cpuSnapshot(measuredProcesses);
  const result = await new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: scenario.url,
        connections: scenario.connections,
        duration: seconds,
        method: scenario.method ?? 'GET',
        headers: scenario.headers,
        requests: [
          {
            setupRequest: (request) => {
              request.path = scenario.path();
              if (scenario.body) request.body = scenario.body();
              return request;
            },
          },
        ],
      },
      (error, res) => (error ? reject(error) : resolve(res)),
    );
    instance.on('response', (_client, _status, _bytes, ms) => latencies.push(ms));
  });
  const cpu = cpuUsedPerKey(cpuBefore, cpuSnapshot(measuredProcesses));
  latencies.sort((a, b) => a - b);
  const statuses = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
  if (result.errors > 0) statuses.errors = result.errors;
  if (result.timeouts > 0) statuses.timeouts = result.timeouts;
  return summarize({ latencies, duration: result.duration, statuses, cpuSeconds: cpu, loadBefore, loadAfter: os.loadavg() });
}

/** A scenario's measures from its latencies (sorted), duration (s), statuses and CPU seconds per key. */
function summarize({ latencies, duration, statuses, cpuSeconds, loadBefore, loadAfter }) {
  return {
    latencies,
    duration,
    requests: latencies.length,
    rps: latencies.length / duration,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    statuses,
    cpuSeconds,
    loadBefore,
    loadAfter,
  };
}

/** One measure of a scenario from its slices: every request's latency, the durations, statuses and CPU added up. */
function mergeSlices(slices) {
  const sum = (records) => {
    const out = {};
    for (const record of records) for (const [key, value] of Object.entries(record)) out[key] = (out[key] ?? 0) + value;
    return out;
  };
  return summarize({
    latencies: slices.flatMap((r) => r.latencies).sort((a, b) => a - b),
    duration: slices.reduce((total, r) => total + r.duration, 0),
    statuses: sum(slices.map((r) => r.statuses)),
    cpuSeconds: sum(slices.map((r) => r.cpuSeconds)),
    loadBefore: slices[0].loadBefore,
    loadAfter: slices.at(-1).loadAfter,
  });
}

/**
 * Waits until crm-core's projector has rendered the seeded contacts' documents (decisions.md
 * "Contact documents"), as a steady state: an import of 50,000 contacts is followed by some seconds
 * in which reads render contacts from their rows. Shows its progress.
 */
async function waitForDocuments(db, accountId) {
  const started = Date.now();
  for (;;) {
    const { rows } = await db.query(
      `SELECT (SELECT count(*) FROM crm.contact_document_queue WHERE account_id = $1)::int AS queued,
              (SELECT count(*) FROM crm.contact_document_sweeps WHERE account_id = $1)::int AS sweeps,
              (SELECT count(*) FROM crm.contact_documents d JOIN crm.contacts c ON c.id = d.contact_id WHERE c.account_id = $1)::int AS documents`,
      [accountId],
    );
    const { queued, sweeps, documents } = rows[0];
    if (queued === 0 && sweeps === 0) {
      log(`contact documents: ${documents} rendered in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return;
    }
    log(`contact documents: ${documents} rendered, ${queued} queued${sweeps > 0 ? ', a sweep pending' : ''}`);
    if (Date.now() - started > 600_000)
      throw new Error('contact documents: not rendered within 10 minutes; is crm-core running and its log free of errors?');
    await new Promise((resolve) => setTimeout(resolve, 2000));
  }
}

async function main() {
  const system = await startSystem({ ports, log, extraEnv: { PUBLIC_URL: `http://127.0.0.1:${ports.gateway}` } });
  const floors = [];
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const credentialPrefix = `bench-floor-${randomBytes(4).toString('hex')}:credential:`;
  let account;
  try {
    const dbUrl = system.env.DATABASE_URL;
    account = await (
      await fetch(`${system.operatorUrl}/operator/accounts`, {
        method: 'POST',
        headers: system.operatorHeaders,
        body: JSON.stringify({
          name: 'Hot path bench',
          admin: { first_name: 'Bench', last_name: 'Admin', email: `hotpath-${Date.now()}@example.com`, password: 'bench password 1' },
        }),
      })
    ).json();
    const accountId = account.account.id;
    const userId = account.user.id;
    const basic = { authorization: `Basic ${Buffer.from(`${userId}:${account.user.api_key}`).toString('base64')}` };

    log(`seeding ${CONTACTS} contacts with SQL`);
    const seedStart = Date.now();
    const { ids } = await seedContacts(dbUrl, accountId, userId, contactColumns(), CONTACTS);
    log(`seeded ${ids.length} contacts in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
    const db = new pg.Client({ connectionString: dbUrl });
    await db.connect();
    const pipelines = (await db.query('SELECT id, kind FROM crm.pipelines WHERE account_id = $1 AND is_default', [accountId])).rows;
    // The account's default pipelines: the seeded deals' and the write floor's.
    const defaults = {
      pipelineId: pipelines.find((p) => p.kind === 'pipeline').id,
      salesPipelineId: pipelines.find((p) => p.kind === 'sales').id,
    };
    if (DEALS > 0) {
      await seedPendingDeals(dbUrl, accountId, userId, defaults, ids, DEALS, rng(11));
      log(`seeded ${DEALS} pending deals`);
    }
    await waitForDocuments(db, accountId);
    await db.end();

    // The chain floor's credential: the account's own API key, as HMAC-SHA256 under a pepper of this run.
    const pepper = randomBytes(32).toString('base64url');
    // Expires on its own should the run die before removing it.
    await redis.set(`${credentialPrefix}${userId}`, createHmac('sha256', pepper).update(account.user.api_key).digest(), 'EX', 86_400);
    const floorEnv = {
      DATABASE_URL: dbUrl,
      FLOOR_SUBJECT: `bench-floor-${randomBytes(4).toString('hex')}`,
      FLOOR_CREDENTIAL_PREFIX: credentialPrefix,
      FLOOR_PEPPER: pepper,
      FLOOR_ACCOUNT_ID: accountId,
      FLOOR_USER_ID: userId,
      FLOOR_PIPELINE_ID: defaults.pipelineId,
      FLOOR_SALES_PIPELINE_ID: defaults.salesPipelineId,
    };
    floors.push(startFloor('raw', { ...floorEnv, PORT: String(FLOOR_PORTS.raw) }));
    floors.push(startFloor('chain-edge', { ...floorEnv, PORT: String(FLOOR_PORTS.edge) }));
    floors.push(startFloor('chain-core', floorEnv));
    floors.push(startFloor('write', { ...floorEnv, PORT: String(FLOOR_PORTS.write) }));
    const measuredProcesses = {
      namespace: system.env.CRM_NAMESPACE,
      database: new URL(dbUrl).pathname.slice(1),
      pids: new Map([...floors.map((f) => [f.child.pid, f.mode]), [process.pid, 'load']]),
    };

    const random = rng(7);
    const pick = () => ids[Math.floor(random() * ids.length)];
    let n = 0;
    const json = { 'content-type': 'application/json' };
    const gateway = system.urls.gateway;
    const rawUrl = `http://127.0.0.1:${FLOOR_PORTS.raw}`;
    const edgeUrl = `http://127.0.0.1:${FLOOR_PORTS.edge}`;
    const writeUrl = `http://127.0.0.1:${FLOOR_PORTS.write}`;
    const noteBody = () => JSON.stringify({ contact_id: pick(), text: `Bench note ${(n += 1)}` });
    const dealBody = () => JSON.stringify({ name: `Bench deal ${(n += 1)}`, amount: 1200, months: 12 });
    const scenarios = [
      { key: 'raw', floor: true, name: 'raw floor: GET /contacts/{id}', url: rawUrl, path: () => `/contacts/${pick()}` },
      {
        key: 'chain',
        floor: true,
        name: 'chain floor: GET /contacts/{id}',
        url: edgeUrl,
        headers: basic,
        path: () => `/contacts/${pick()}`,
      },
      {
        key: 'wrapper',
        floor: true,
        name: 'wrapper floor: GET /contacts/{id}',
        url: edgeUrl,
        headers: basic,
        path: () => `/wrappers/${pick()}`,
      },
      { key: 'contact', name: 'GET /contacts/{id}', url: gateway, headers: basic, path: () => `/api/v3/contacts/${pick()}` },
      { key: 'user', name: 'GET /users/{id}', url: gateway, headers: basic, path: () => `/api/v3/users/${userId}` },
      {
        key: 'list',
        name: 'GET /contacts?per_page=100',
        url: gateway,
        headers: basic,
        path: () => '/api/v3/contacts?per_page=100',
        connections: LIST_CLIENTS,
      },
      {
        key: 'write-notes',
        floor: true,
        write: true,
        name: 'write floor: POST /notes',
        url: writeUrl,
        method: 'POST',
        headers: json,
        path: () => '/notes',
        body: noteBody,
      },
      {
        key: 'notes',
        write: true,
        name: 'POST /notes',
        url: gateway,
        method: 'POST',
        headers: { ...basic, ...json },
        path: () => '/api/v3/notes',
        body: noteBody,
      },
      {
        key: 'write-deals',
        floor: true,
        write: true,
        name: 'write floor: POST /contacts/{id}/deals',
        url: writeUrl,
        method: 'POST',
        headers: json,
        path: () => `/contacts/${pick()}/deals`,
        body: dealBody,
      },
      {
        key: 'deals',
        write: true,
        name: 'POST /contacts/{id}/deals',
        url: gateway,
        method: 'POST',
        headers: { ...basic, ...json },
        path: () => `/api/v3/contacts/${pick()}/deals`,
        body: dealBody,
      },
      {
        key: 'contacts',
        write: true,
        name: 'POST /contacts',
        url: gateway,
        method: 'POST',
        headers: { ...basic, ...json },
        path: () => '/api/v3/contacts',
        body: () => JSON.stringify({ first_name: 'Load', last_name: `Create ${(n += 1)}` }),
      },
    ]
      .map((s) => ({ ...s, connections: s.connections ?? (s.write ? WRITE_CLIENTS : READ_CLIENTS) }))
      .filter(
        (s, _, all) => !ONLY || ONLY.has(s.key) || (s.floor && all.some((o) => ONLY.has(o.key) && !o.floor && !!o.write === !!s.write)),
      );

    // Every scenario answers what it should before anything is measured (the floors are up by then).
    for (const s of scenarios) {
      await probe(s.name, `${s.url}${s.path()}`, { method: s.method ?? 'GET', headers: s.headers, body: s.body?.() }, s.write ? 201 : 200);
    }
    if (WARMUP > 0) {
      log(`warming up: ${WARMUP} s per scenario`);
      for (const s of scenarios) await run(s, WARMUP, measuredProcesses);
    }
    const results = new Map(scenarios.map((s) => [s.key, []]));
    // The reads, then the writes (each compared only with floors of its own kind), interleaved.
    const groups = [scenarios.filter((s) => !s.write), scenarios.filter((s) => s.write)].filter((g) => g.length > 0);
    for (let round = 1; round <= ROUNDS; round += 1) {
      const slices = new Map(scenarios.map((s) => [s.key, []]));
      for (const group of groups)
        for (let slice = 0; slice < SLICES; slice += 1)
          for (const s of group) slices.get(s.key).push(await run(s, SECONDS / SLICES, measuredProcesses));
      for (const s of scenarios) {
        const r = mergeSlices(slices.get(s.key));
        results.get(s.key).push(r);
        const cpu = Object.entries(r.cpuSeconds)
          .filter(([, seconds]) => (seconds * 1000) / r.requests >= 0.05)
          .map(([key, seconds]) => `${key} ${((seconds * 1000) / r.requests).toFixed(2)}`)
          .join(', ');
        log(
          `round ${round}, ${s.name} @${s.connections}: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, statuses ${JSON.stringify(r.statuses)}, load ${r.loadBefore[0].toFixed(2)} -> ${r.loadAfter[0].toFixed(2)}; CPU ms/request: ${cpu}`,
        );
      }
    }
    if (ONLY) log('--only: no report written');
    else writeReport(scenarios, results);
  } finally {
    for (const f of floors) await f.stop();
    await redis.del(`${credentialPrefix}${account?.user.id}`).catch(() => undefined);
    redis.disconnect();
    await system.stop();
  }
}

function writeReport(scenarios, results) {
  const byKey = Object.fromEntries(scenarios.map((s) => [s.key, s]));
  const fixed = (v, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
  const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
  /** The ratio of `key`'s req/s to `base`'s, round by round (both measured in the same round). */
  const ratios = (key, base) => results.get(key).map((r, i) => r.rps / results.get(base)[i].rps);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const worstP99 = (key) => Math.max(...results.get(key).map((r) => r.p99));

  const mainRows = [];
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const s of scenarios) {
      const r = results.get(s.key)[round];
      const base = comparedWith(s);
      const ratio = base ? `${(r.rps / results.get(base)[round].rps).toFixed(2)}× ${byKey[base].name.split(':')[0]}` : '1';
      mainRows.push(
        `| ${round + 1} | ${s.name} | ${s.connections} | ${r.requests} | ${Math.round(r.rps)} | ${fixed(r.p50)} | ${fixed(r.p99)} | ${ratio} | ${JSON.stringify(r.statuses)} | ${load(r.loadBefore)} → ${load(r.loadAfter)} |`,
      );
    }
  }

  const targetLines = TARGETS.map(([key, base, minRatio, p99Limit]) => {
    const s = byKey[key];
    const parts = [];
    let met = true;
    if (base) {
      const rs = ratios(key, base);
      const ok = mean(rs) >= minRatio;
      met &&= ok;
      parts.push(
        `${rs.map((x) => x.toFixed(2)).join(', ')}× the ${byKey[base].name.split(':')[0]} by round (mean ${mean(rs).toFixed(2)}×; target ≥ ${minRatio}×)`,
      );
    }
    if (p99Limit) {
      const worst = worstP99(key);
      met &&= worst < p99Limit;
      parts.push(`worst p99 ${worst.toFixed(1)} ms at ${s.connections} clients (target < ${p99Limit} ms)`);
    }
    return `- ${s.name}: ${parts.join('; ')} — ${met ? 'met' : 'NOT met'}.`;
  });
  const chainOfRaw = ratios('chain', 'raw');
  const extraLines = [
    `- The chain floor against the raw floor: ${chainOfRaw.map((x) => x.toFixed(2)).join(', ')}× by round (the issue measured 0.60–0.62×).`,
    `- GET /contacts/{id} against the wrapper floor (the same chain reading crm-core's own wrapper statement): ${ratios(
      'contact',
      'wrapper',
    )
      .map((x) => x.toFixed(2))
      .join(', ')}× by round; the wrapper floor against the chain floor: ${ratios('wrapper', 'chain')
      .map((x) => x.toFixed(2))
      .join(', ')}× (what the wrapper's data costs by itself).`,
    `- POST /contacts/{id}/deals against the note write floor: ${ratios('deals', 'write-notes')
      .map((x) => x.toFixed(2))
      .join(', ')}× by round (the deal floor itself: ${ratios('write-deals', 'write-notes')
      .map((x) => x.toFixed(2))
      .join(', ')}× of it); POST /contacts against the write floor: ${ratios('contacts', 'write-notes')
      .map((x) => x.toFixed(2))
      .join(', ')}× (no target).`,
  ];

  // CPU ms per request over all rounds: CPU seconds used during the scenario's runs / its requests.
  const shownKeys = CPU_KEYS.filter(([key]) => scenarios.some((s) => results.get(s.key).some((r) => (r.cpuSeconds[key] ?? 0) > 0)));
  const cpuRows = scenarios.map((s) => {
    const rs = results.get(s.key);
    const requests = rs.reduce((sum, r) => sum + r.requests, 0);
    const perRequest = (key) => (rs.reduce((sum, r) => sum + (r.cpuSeconds[key] ?? 0), 0) * 1000) / requests;
    const system = shownKeys.filter(([key]) => key !== 'load').reduce((sum, [key]) => sum + perRequest(key), 0);
    return `| ${s.name} | ${shownKeys.map(([key]) => (perRequest(key) >= 0.005 ? perRequest(key).toFixed(2) : '-')).join(' | ')} | ${system.toFixed(2)} |`;
  });

  const report = [
    `# Hot path against its floors ${new Date().toISOString()}`,
    '',
    `Machine: ${machineDescription()}. ${CONTACTS.toLocaleString('en')} contacts in one account, seeded with SQL through crm-core's column rules${DEALS > 0 ? `, and ${DEALS.toLocaleString('en')} pending deals on random ones (SQL, through the deals' triggers)` : ''}. The four services from a fresh build (NODE_ENV=production, LOG_LEVEL=warn, one replica each) with the full production chain — HTTP Basic API key, per-user limits in Redis (only their ceilings raised: one user drives all the load), validation, NATS, crm-core, PostgreSQL, the outbox relay — and the floors of bench/floors.mjs against the same database, all on this machine with PostgreSQL, Redis, NATS and the load generator (autocannon in one process, keep-alive, closed loop, a random contact per request). ${ROUNDS} round(s), each giving every scenario ${SECONDS} s in ${SLICES} interleaved slice(s) (the reads' slices in turn, then the writes'), after a ${WARMUP} s warm-up of each.`,
    '',
    '- raw floor: node:http + one pg query by primary key + JSON.stringify of the envelope;',
    '- chain floor: an HTTP edge (node:http: Basic credential, its keyed hash from Redis in one GET compared with timingSafeEqual, a NATS request, the reply wrapped in the envelope) and a process in a NATS queue group answering from PostgreSQL by primary key with a named prepared statement; no framework, no validation, no limits;',
    "- wrapper floor: the chain floor's two processes, the second answering with crm-core's own one-statement contact wrapper read (the contact, its company's first contacts, the open actions of both as the caller sees them, the company, the field definitions; contactWrapperPartsSql from the build), its JSON parts spliced into the reply as PostgreSQL wrote them (the contact documents' text as a JSON string): what a wrapper's data costs through the chain, without our framework, DTOs, validation or limits;",
    "- write floor: node:http + one transaction inserting the row (a note, or a deal) and the outbox row with pg_notify as crm-core's insertOutboxEvent writes them (crm-core's relay publishes those events as it does the API's).",
    '',
    '| round | scenario | clients | requests | req/s | p50 ms | p99 ms | ratio | statuses | load average before → after |',
    '|---|---|---|---|---|---|---|---|---|---|',
    ...mainRows,
    '',
    '## Targets (issue 17 "Done when")',
    '',
    ...targetLines,
    ...extraLines,
    '',
    '## CPU ms per request, per process',
    '',
    "From /proc over every round of the scenario: the run's services by their CRM_NAMESPACE, the PostgreSQL backends of the run's database, the PostgreSQL server's own processes (WAL writer, checkpointer...; shared with any other database), nats-server and redis-server (shared with anything else on the machine), the floors by pid and the load generator (this process). The total leaves out the load generator.",
    '',
    `| scenario | ${shownKeys.map(([, label]) => label).join(' | ')} | total |`,
    `|---|${shownKeys.map(() => '---|').join('')}---|`,
    ...cpuRows,
    '',
  ].join('\n');
  for (const line of [...targetLines, ...extraLines]) log(line);
  mkdirSync(path.join(root, 'bench/results'), { recursive: true });
  const file = path.join(root, 'bench/results', `${new Date().toISOString().slice(0, 10)}-hotpath.md`);
  writeFileSync(file, report);
  log(`report written to ${path.relative(root, file)}`);
}

main().catch((error) => {
  console.error(
    `[bench:hotpath] failed: ${error.stack ?? error.message}\n[bench:hotpath] check that PostgreSQL, Redis and NATS run (npm start brings them up) and that ports 3450-3457 are free.`,
  );
  process.exit(1);
});
