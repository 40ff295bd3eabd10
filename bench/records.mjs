#!/usr/bin/env node
// `npm run bench:records` (part of `npm run bench`): deals and notes through the full production
// chain (HTTP -> gateway authentication, limits and validation -> NATS -> crm-core -> PostgreSQL,
// outbox event in the same transaction) on a private system with 100,000 deals seeded by SQL.
// Scenarios (closed loop, keep-alive, 16 clients by default): POST /contacts/{id}/deals,
// POST /notes, GET /deals?status=pending. Prints throughput and p50/p99; report in bench/results/.
//
//   npm run bench:records [-- --seconds 15 --connections 16 --deals 100000 --contacts 5000 --only deals,notes,list]
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import pg from 'pg';
import { machineDescription, parseArgs, root, startSystem } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const SECONDS = Number(args.seconds ?? 15);
const CONNECTIONS = Number(args.connections ?? 16);
const DEALS = Number(args.deals ?? 100_000);
const CONTACTS = Number(args.contacts ?? 5_000);
/** `--only deals,notes,list` runs some of the scenarios. */
const ONLY = args.only ? String(args.only).split(',') : null;
const TARGET_WRITES_PER_SECOND = 1000;
const TARGET_P99_MS = 50;
const log = (msg) => console.log(`[bench:records] ${msg}`);
const ports = { gateway: 3420, auth: 3421, core: 3422, dispatcher: 3423 };
const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          body: Buffer.concat(chunks).toString('utf8'),
        }),
      );
    });
    req.on('error', reject);
    if (body) req.end(body);
    else req.end();
  });
}

/** Closed loop: `connections` clients, each sending its next request when the last one answered. */
async function load(name, makeRequest, { seconds = SECONDS, connections = CONNECTIONS } = {}) {
  const latencies = [];
  const statuses = new Map();
  let firstFailure = null;
  const until = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        const t0 = process.hrtime.bigint();
        const res = await makeRequest().catch((error) => ({
          status: 'error',
          body: error.message,
        }));
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if ((res.status === 'error' || res.status >= 400) && !firstFailure)
          firstFailure = `${res.status} ${String(res.body).slice(0, 300)}`;
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))];
  const row = {
    name,
    connections,
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50: pct(50),
    p99: pct(99),
    statuses: Object.fromEntries(statuses),
  };
  log(`${name}: ${row.rps} req/s, p50 ${row.p50.toFixed(2)} ms, p99 ${row.p99.toFixed(2)} ms, statuses ${JSON.stringify(row.statuses)}`);
  if (firstFailure) log(`  first failure: ${firstFailure}`);
  return row;
}

/** Contacts and deals straight into PostgreSQL (the API would take minutes for 100,000 deals). */
async function seed(databaseUrl, accountId, userId) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const [{ id: statusId }] = (await db.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [accountId])).rows;
    const pipelines = (await db.query('SELECT id, kind FROM crm.pipelines WHERE account_id = $1 AND is_default', [accountId])).rows;
    const pipelineId = pipelines.find((p) => p.kind === 'pipeline').id;
    const salesId = pipelines.find((p) => p.kind === 'sales').id;
    const hexId = (seed) => `lpad(to_hex(${seed}), 8, '0') || substr(md5(random()::text || ${seed}::text), 1, 16)`;
    await db.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, first_name, last_name, status_id, sort_name, letter, search_text)
       SELECT ${hexId('g')}, $1, $2, 'Bench', 'Contact ' || g, $3, 'contact ' || g || ' bench', 'c', 'bench contact ' || g
       FROM generate_series(1, $4::int) g`,
      [accountId, userId, statusId, CONTACTS],
    );
    await db.query(
      `WITH c AS (SELECT array_agg(id ORDER BY id) AS ids FROM crm.contacts WHERE account_id = $1)
       INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, status, stage, last_stage,
                              expected_close_date, close_date, date, amount, months, cost)
       SELECT ${hexId('(g + 268435456)')}, $1, c.ids[1 + (g % array_length(c.ids, 1))], $2, $2, $3, $4, 'Deal ' || g, s.status,
              CASE WHEN s.status = 'pending' THEN 10 + (g % 80) END, CASE WHEN s.status <> 'pending' THEN 10 + (g % 80) END,
              d.day + 30, d.day + 30, d.day, round((random() * 10000)::numeric, 2), 1 + (g % 12), round((random() * 1000)::numeric, 2)
       FROM generate_series(1, $5::int) g CROSS JOIN c,
            LATERAL (SELECT CASE WHEN g % 20 < 12 THEN 'pending' WHEN g % 20 < 17 THEN 'won' ELSE 'lost' END AS status) s,
            LATERAL (SELECT (current_date - (g % 730))::date AS day) d`,
      [accountId, userId, pipelineId, salesId, DEALS],
    );
    await db.query('VACUUM ANALYZE crm.contacts');
    await db.query('VACUUM ANALYZE crm.deals');
    return (await db.query('SELECT id FROM crm.contacts WHERE account_id = $1', [accountId])).rows.map((r) => r.id);
  } finally {
    await db.end();
  }
}

async function main() {
  const system = await startSystem({ ports, log });
  const { gateway } = system.urls;
  try {
    const account = await (
      await fetch(`${system.operatorUrl}/operator/accounts`, {
        method: 'POST',
        headers: system.operatorHeaders,
        body: JSON.stringify({
          name: 'Records bench',
          admin: {
            first_name: 'Bench',
            last_name: 'Admin',
            email: `records-${Date.now()}@example.com`,
            password: 'bench password 1',
          },
        }),
      })
    ).json();
    log(`seeding ${CONTACTS} contacts and ${DEALS} deals with SQL`);
    const t0 = Date.now();
    const contactIds = await seed(system.env.DATABASE_URL, account.account.id, account.user.id);
    log(`seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const headers = {
      authorization: `Basic ${Buffer.from(`${account.user.id}:${account.user.api_key}`).toString('base64')}`,
      'content-type': 'application/json',
    };
    const pick = () => contactIds[Math.floor(Math.random() * contactIds.length)];
    let n = 0;
    const createDeal = () =>
      request(`${gateway}/api/v3/contacts/${pick()}/deals`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          name: `Bench deal ${(n += 1)}`,
          amount: 1200,
          months: 12,
          stage: 25,
          text: 'Created by [b]bench[/b]',
        }),
      });
    const createNote = () =>
      request(`${gateway}/api/v3/notes`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          contact_id: pick(),
          text: `Bench note ${(n += 1)}`,
        }),
      });
    const listPending = () => request(`${gateway}/api/v3/deals?status=pending`, { headers });

    const probe = JSON.parse((await listPending()).body);
    log(`GET /deals?status=pending answers total_count ${probe.data?.total_count}`);
    log(`warming up (2 s + 2 s), then ${SECONDS} s per scenario at ${CONNECTIONS} clients`);
    await load('warm-up', listPending, { seconds: 2 });
    await load('warm-up', createDeal, { seconds: 2 });
    // The list runs first, on the seeded data (vacuumed, as autovacuum keeps a settled table);
    // right after tens of thousands of inserts its index-only count also visits the new heap pages.
    const scenarios = [
      ['list', 'GET /deals?status=pending', listPending, false],
      ['deals', 'POST /contacts/{id}/deals', createDeal, true],
      ['notes', 'POST /notes', createNote, true],
    ].filter(([key]) => ONLY === null || ONLY.includes(key));
    const rows = [];
    for (const [, name, run, write] of scenarios) rows.push({ ...(await load(name, run)), write });

    const verdict = (row, write) => {
      const rate = write ? row.rps >= TARGET_WRITES_PER_SECOND : true;
      return rate && row.p99 < TARGET_P99_MS ? 'met' : 'missed';
    };
    const machine = machineDescription();
    const report = [
      `# Records benchmark ${new Date().toISOString()}`,
      '',
      `Machine: ${machine}. One replica of each service (NODE_ENV=production, LOG_LEVEL=warn), the load generator, PostgreSQL, Redis and NATS on the same machine. Closed loop, keep-alive, HTTP Basic with a real API key through the gateway's full chain (authentication, rate and concurrency limits in Redis, validation, NATS request to crm-core, PostgreSQL transaction with the outbox event, relay to JetStream running alongside). ${SECONDS} s per scenario after 2 s warm-ups (list, create), ${CONNECTIONS} clients; the list runs first, on the seeded (vacuumed) table, then the writes.`,
      '',
      `Data: ${CONTACTS} contacts and ${DEALS} deals seeded with SQL (60% pending, 25% won, 15% lost; ${probe.data?.total_count} pending at the start), contacts picked at random per request.`,
      '',
      `Targets (issue 5): writes at least ${TARGET_WRITES_PER_SECOND}/s, p99 under ${TARGET_P99_MS} ms at 16 clients.`,
      '',
      '| scenario | clients | requests | req/s | p50 ms | p99 ms | statuses | target |',
      '|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${r.connections} | ${r.requests} | ${r.rps} | ${r.p50.toFixed(2)} | ${r.p99.toFixed(2)} | ${JSON.stringify(r.statuses)} | ${verdict(r, r.write)} |`,
      ),
      '',
    ].join('\n');
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    const file = path.join(root, 'bench/results', `${new Date().toISOString().slice(0, 10)}-records.md`);
    writeFileSync(file, report);
    log(`report written to ${path.relative(root, file)}`);
  } finally {
    await system.stop();
    agent.destroy();
  }
}

main().catch((error) => {
  console.error(
    `[bench:records] failed: ${error.stack ?? error.message}\n[bench:records] check that PostgreSQL, Redis and NATS run (npm start brings them up) and that ports 3420-3423 are free.`,
  );
  process.exit(1);
});
