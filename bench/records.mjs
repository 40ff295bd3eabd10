#!/usr/bin/env node
// `npm run bench:records` (part of `npm run bench`): deals, notes, calls, meetings and actions through
// the full production chain (HTTP -> gateway authentication, limits and validation -> NATS ->
// crm-core -> PostgreSQL, outbox event in the same transaction) on a private system with 100,000
// deals and 30,000 each of notes, calls, meetings and actions (one open action per contact, the
// rest done) seeded by SQL over 5,000 contacts.
// Scenarios (closed loop, keep-alive, 16 clients by default), the reads first on the seeded tables:
//   list:  GET /deals?status=pending;
//   lists: the account-wide lists, page 1 of 100: GET /notes, /calls, /meetings, /actions, /deals
//          (no filter), and GET /notes?per_page=100&page=<random 1..250> (deep pages);
//   deals: POST /contacts/{id}/deals;  notes: POST /notes.
// Prints throughput and p50/p99; report in bench/results/.
//
//   npm run bench:records [-- --seconds 15 --connections 16 --deals 100000 --records 30000 --contacts 5000 --only list,lists,deals,notes]
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
/** Notes, calls, meetings and actions seeded (each). */
const RECORDS = Number(args.records ?? 30_000);
/** GET /notes deep pages: a page from 1 to this (at most the pages the seeded notes fill). */
const DEEP_PAGES = Math.max(1, Math.min(250, Math.ceil(RECORDS / 100)));
/** `--only list,lists,deals,notes` runs some of the scenarios. */
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

/** An id like the API's: 8 hex digits of `seed` (an SQL expression), then 16 random ones. */
const hexId = (seed) => `lpad(to_hex(${seed}), 8, '0') || substr(md5(random()::text || ${seed}::text), 1, 16)`;

/** Contacts and deals straight into PostgreSQL (the API would take minutes for 100,000 deals). */
async function seed(databaseUrl, accountId, userId) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    const [{ id: statusId }] = (await db.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [accountId])).rows;
    const pipelines = (await db.query('SELECT id, kind FROM crm.pipelines WHERE account_id = $1 AND is_default', [accountId])).rows;
    const pipelineId = pipelines.find((p) => p.kind === 'pipeline').id;
    const salesId = pipelines.find((p) => p.kind === 'sales').id;
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

/** Rows per INSERT of {@link seedRecords}. */
const RECORD_BATCH = 10_000;

/**
 * What {@link seedRecords} inserts per table: the columns, and the values of record `g` (1..RECORDS)
 * over `c.ids` (the account's contact ids; record g belongs to contact 1 + g % count, so records
 * spread evenly over the contacts), `t.at` (a time in the last two years, the record's creation)
 * and `t.due` (a time from 20 days ago to 40 days ahead, an open action's). $1 is the account,
 * $2 the bench user. The id's first 8 hex digits are g offset per table.
 */
const RECORD_TABLES = [
  {
    table: 'notes',
    columns: 'id, account_id, contact_id, author_id, text, date, created_at, modified_at',
    values: `${hexId('(g + 536870912)')}, $1, c.ids[1 + (g % array_length(c.ids, 1))], $2, 'Bench note ' || g, t.at::date, t.at, t.at`,
  },
  {
    table: 'calls',
    columns: 'id, account_id, contact_id, author_id, text, call_result, call_time_int, created_at, modified_at',
    values: `${hexId('(g + 805306368)')}, $1, c.ids[1 + (g % array_length(c.ids, 1))], $2, 'Bench call ' || g, 'interested',
             extract(epoch FROM t.at)::bigint, t.at, t.at`,
  },
  {
    table: 'meetings',
    columns: 'id, account_id, contact_id, author_id, text, meeting_time_int, place, created_at, modified_at',
    values: `${hexId('(g + 1073741824)')}, $1, c.ids[1 + (g % array_length(c.ids, 1))], $2, 'Bench meeting ' || g,
             extract(epoch FROM t.at)::bigint, 'Office', t.at, t.at`,
  },
  {
    // The first record of each contact (g <= contacts) is its open action (actions_next_uq allows
    // one per contact and assignee): asap, date, date_time or waiting; the others are done (as
    // mark_as_done leaves them: done, done_at, status_before_done), dated in the past.
    table: 'actions',
    columns:
      'id, account_id, contact_id, assignee_id, text, status, date, exact_time, position, done, done_at, status_before_done, created_at, modified_at',
    values: `${hexId('(g + 1342177280)')}, $1, c.ids[1 + (g % array_length(c.ids, 1))], $2, 'Bench action ' || g, s.status,
             CASE WHEN s.status = 'done' THEN t.at::date WHEN s.status IN ('date', 'date_time') THEN (t.due AT TIME ZONE 'UTC')::date END,
             CASE WHEN s.status = 'date_time' THEN extract(epoch FROM t.due)::bigint END,
             0, s.status = 'done', CASE WHEN s.status = 'done' THEN t.at::date END, CASE WHEN s.status = 'done' THEN 'date' END,
             t.at, t.at`,
    from: `LATERAL (SELECT CASE WHEN g > array_length(c.ids, 1) THEN 'done' WHEN g % 10 = 0 THEN 'asap' WHEN g % 10 < 7 THEN 'date'
                               WHEN g % 10 < 9 THEN 'date_time' ELSE 'waiting' END AS status) s`,
  },
];

/**
 * `RECORDS` notes, calls, meetings and actions of the bench user straight into PostgreSQL, set-based
 * in batches of {@link RECORD_BATCH}, over the contacts {@link seed} made; then vacuumed and analyzed,
 * as autovacuum would have left the tables of an account that grew to this size.
 */
async function seedRecords(databaseUrl, accountId, userId) {
  const db = new pg.Client({ connectionString: databaseUrl });
  await db.connect();
  try {
    for (const { table, columns, values, from } of RECORD_TABLES) {
      const t0 = Date.now();
      for (let start = 1; start <= RECORDS; start += RECORD_BATCH) {
        const end = Math.min(RECORDS, start + RECORD_BATCH - 1);
        await db.query(
          `WITH c AS (SELECT array_agg(id ORDER BY id) AS ids FROM crm.contacts WHERE account_id = $1)
           INSERT INTO crm.${table} (${columns})
           SELECT ${values}
           FROM generate_series($3::int, $4::int) g CROSS JOIN c,
                LATERAL (SELECT now() - ((g::bigint * 7919) % 63072000)::float8 * interval '1 second' AS at,
                                now() + ((g::bigint * 7919) % 5184000 - 1728000)::float8 * interval '1 second' AS due) t
                ${from ? `, ${from}` : ''}`,
          [accountId, userId, start, end],
        );
        log(`seeding ${table}: ${end}/${RECORDS}`);
      }
      await db.query(`VACUUM ANALYZE crm.${table}`);
      log(`seeded ${RECORDS} ${table} in ${((Date.now() - t0) / 1000).toFixed(1)} s (vacuumed and analyzed)`);
    }
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
    log(`seeding ${RECORDS} each of notes, calls, meetings and actions with SQL`);
    const t1 = Date.now();
    await seedRecords(system.env.DATABASE_URL, account.account.id, account.user.id);
    log(`seeded in ${((Date.now() - t1) / 1000).toFixed(1)} s`);
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
    // The account-wide lists, page 1 of 100 in each list's default order, and random deep pages of notes.
    const listOf = (list) => () => request(`${gateway}/api/v3/${list}?per_page=100`, { headers });
    const lists = ['notes', 'calls', 'meetings', 'actions', 'deals'].map((list) => [list, `GET /${list}?per_page=100`, listOf(list)]);
    const notesDeep = () => request(`${gateway}/api/v3/notes?per_page=100&page=${1 + Math.floor(Math.random() * DEEP_PAGES)}`, { headers });
    const listScenarios = [
      ...lists.map(([, name, run]) => ['lists', name, run, false]),
      ['lists', `GET /notes?per_page=100&page=(random 1..${DEEP_PAGES})`, notesDeep, false],
    ];

    const probe = JSON.parse((await listPending()).body);
    log(`GET /deals?status=pending answers total_count ${probe.data?.total_count}`);
    // How many records each list holds (its total_count), from one request before any scenario.
    const listCounts = {};
    for (const [list, name, run] of lists) {
      const res = await run();
      if (res.status !== 200) throw new Error(`${name} answered ${res.status}: ${res.body.slice(0, 300)}`);
      listCounts[list] = JSON.parse(res.body).data?.total_count;
    }
    const listCountsText = Object.entries(listCounts)
      .map(([list, count]) => `${list} ${count}`)
      .join(', ');
    log(`the lists hold ${listCountsText}`);
    const runLists = ONLY === null || ONLY.includes('lists');
    log(`warming up (2 s${runLists ? ' + 2 s' : ''} + 2 s), then ${SECONDS} s per scenario at ${CONNECTIONS} clients`);
    await load('warm-up', listPending, { seconds: 2 });
    if (runLists) {
      // Every list in turn (page 1 of each, then a deep page of notes), request by request.
      const warm = listScenarios.map(([, , run]) => run);
      let i = 0;
      await load('warm-up', () => warm[(i += 1) % warm.length](), { seconds: 2 });
    }
    await load('warm-up', createDeal, { seconds: 2 });
    // The lists run first, on the seeded data (vacuumed, as autovacuum keeps a settled table);
    // right after tens of thousands of inserts their index-only counts also visit the new heap pages.
    const scenarios = [
      ['list', 'GET /deals?status=pending', listPending, false],
      ...listScenarios,
      ['deals', 'POST /contacts/{id}/deals', createDeal, true],
      ['notes', 'POST /notes', createNote, true],
    ].filter(([key]) => ONLY === null || ONLY.includes(key));
    const rows = [];
    for (const [key, name, run, write] of scenarios) rows.push({ ...(await load(name, run)), key, write });

    // The account-wide lists have no target of issue 5: they are measured to see them stay bounded.
    const verdict = (row, write) => {
      if (row.key === 'lists') return '-';
      const rate = write ? row.rps >= TARGET_WRITES_PER_SECOND : true;
      return rate && row.p99 < TARGET_P99_MS ? 'met' : 'missed';
    };
    const machine = machineDescription();
    const report = [
      `# Records benchmark ${new Date().toISOString()}`,
      '',
      `Machine: ${machine}. One replica of each service (NODE_ENV=production, LOG_LEVEL=warn), the load generator, PostgreSQL, Redis and NATS on the same machine. Closed loop, keep-alive, HTTP Basic with a real API key through the gateway's full chain (authentication, rate and concurrency limits in Redis, validation, NATS request to crm-core, PostgreSQL transaction with the outbox event, relay to JetStream running alongside). ${SECONDS} s per scenario after 2 s warm-ups (list, ${runLists ? 'lists, ' : ''}create), ${CONNECTIONS} clients; the lists run first, on the seeded (vacuumed) tables, then the writes.`,
      '',
      `Data: ${CONTACTS} contacts and ${DEALS} deals seeded with SQL (60% pending, 25% won, 15% lost; ${probe.data?.total_count} pending at the start), contacts picked at random per request.`,
      '',
      `Lists: ${RECORDS} each of notes, calls, meetings and actions seeded with SQL, spread evenly over the contacts (times over the last two years; ${Math.min(CONTACTS, RECORDS)} open actions, one per contact, the rest done), vacuumed and analyzed. Each list's total_count before the scenarios: ${listCountsText}. The list scenarios read page 1 of 100 in each list's default order, and random pages 1 to ${DEEP_PAGES} of notes (100 each).`,
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
