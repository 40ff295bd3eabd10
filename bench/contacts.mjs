#!/usr/bin/env node
// `npm run bench:contacts` (also part of `npm run bench`): 50,000 contacts in one account, seeded
// with SQL through the same column rules as the API (sort_name, letter, search_text from
// crm-core's contact-columns), then driven through the gateway's full production chain (HTTP
// Basic authentication, per-user limits, validation, NATS, crm-core, PostgreSQL; no caching):
//
//   - GET /contacts/{id} at 32 clients, against the raw floor (bench/floors.mjs raw: node:http and
//     one pg query by primary key on the same table) at 32 clients;
//   - GET /contacts?per_page=100 and GET /contacts?search=... at 16 clients;
//   - a whole cascade walk (500 batches of 100) following next_set_url, time per batch;
//   - EXPLAIN (ANALYZE, BUFFERS) of the cascade query at the first and at a deep batch;
//   - scale (issue 12): one company with 20,000 contacts; creates into it against creates into a
//     new company (16 clients), a read of one of its contacts against a contact with no company,
//     and GET /companies/{id}, each reported as a ratio.
//   - summary (`--only summary`): the summary blocks (GET /bootstrap, GET /tags, and the
//     single-contact writes that answer with them: assign_tag, change_status) on an account of
//     50,000 contacts against the same on an account of 500 of the same shape (most contacts in the
//     user's action stream, most tagged), each a ratio big/small: what the account's size costs.
//
// Writes bench/results/<date>-contacts.md (with --only scale: <date>-contacts-scale.md).
//   npm run bench:contacts [-- --seconds 10 --contacts 50000 --scale-contacts 20000]
//   npm run bench:contacts -- --only scale [--scale-contacts 20000 --seconds 10]
//   npm run bench:contacts -- --only summary [--contacts 50000 --small-contacts 500 --seconds 10]
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { cpuSnapshot, cpuUsedPerKey, machineDescription, node, parseArgs, root, startSystem, waitReady } from './lib.mjs';
import { contactColumns, FIRST, insertContacts, objectId, rng, seedContacts, word } from './seed.mjs';

const args = parseArgs(process.argv.slice(2));
const SECONDS = Number(args.seconds ?? 10);
const CONTACTS = Number(args.contacts ?? 50_000);
const SCALE_CONTACTS = Number(args['scale-contacts'] ?? 20_000);
// Pending deals of the big company, spread over its contacts: its pending_deals (in every wrapper of its contacts) are real.
const SCALE_PENDING_DEALS = 200;
/** Contacts of the small account of the summary scenario. */
const SMALL_CONTACTS = Number(args['small-contacts'] ?? 500);
/** Contacts (each with a pending deal) of the small company the big one's contact reads are compared with. */
const SMALL_COMPANY_CONTACTS = 30;
// `--only scale` (or `--only=scale`): the scale scenario alone.
const ONLY =
  args.only ??
  Object.keys(args)
    .find((k) => k.startsWith('only='))
    ?.slice('only='.length);
const log = (msg) => console.log(`[bench:contacts] ${msg}`);

const ports = { gateway: 3410, auth: 3411, core: 3412, dispatcher: 3413 };
const FLOOR_PORT = 3419;
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });

function request(url, headers = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

function send(method, url, headers, body) {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      url,
      { method, agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(data) } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** This run's namespace and database, for lib.mjs cpuSnapshot (CPU per request per process, from /proc). */
const measured = { namespace: '', database: '' };

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Closed loop: `connections` workers, each sending the next request when the last answered. */
async function load(name, makeRequest, { seconds = SECONDS, connections }) {
  const latencies = [];
  const statuses = new Map();
  const until = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
  const cpuBefore = cpuSnapshot(measured);
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        const t0 = process.hrtime.bigint();
        const { status } = await makeRequest().catch(() => ({ status: 'error' }));
        latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
      }
    }),
  );
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9;
  const used = cpuUsedPerKey(cpuBefore, cpuSnapshot(measured));
  latencies.sort((a, b) => a - b);
  const perRequest = (key) => (cpuBefore ? (((used[key] ?? 0) * 1000) / latencies.length).toFixed(2) : 'n/a');
  const cpu = { gateway: perRequest('api-gateway'), core: perRequest('crm-core'), postgres: perRequest('postgres') };
  const row = {
    name,
    connections,
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50: percentile(latencies, 50).toFixed(1),
    p99: percentile(latencies, 99).toFixed(1),
    statuses: Object.fromEntries(statuses),
    cpu,
  };
  log(
    `${name} @${connections}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, statuses ${JSON.stringify(row.statuses)}, CPU ms/request ${JSON.stringify(cpu)}`,
  );
  return row;
}

/**
 * EXPLAIN (ANALYZE, BUFFERS) of the cascade's queries as crm-core runs them for the batch after the
 * `after`-th contact: the batch itself and its `items_left` (the contacts after the batch).
 */
async function explainCascade(dbUrl, accountId, ownerId, after) {
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const keyAt = async (offset) =>
      (
        await db.query(
          'SELECT sort_name, id FROM crm.contacts WHERE account_id = $1 AND owner_id = $2 AND deleted_at IS NULL ORDER BY sort_name, id OFFSET $3 LIMIT 1',
          [accountId, ownerId, offset],
        )
      ).rows[0];
    const scope = 'c.account_id = $1 AND c.deleted_at IS NULL AND c.owner_id = $2';
    const bound = after === 0 ? null : await keyAt(after - 1);
    const sql = `SELECT c.id, c.sort_name FROM crm.contacts c WHERE ${scope}${bound ? ' AND (c.sort_name, c.id) > ($3, $4)' : ''} ORDER BY c.sort_name, c.id LIMIT 100`;
    const plan = (
      await db.query(
        `EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`,
        bound ? [accountId, ownerId, bound.sort_name, bound.id] : [accountId, ownerId],
      )
    ).rows
      .map((r) => r['QUERY PLAN'])
      .join('\n');
    const end = await keyAt(after + 99);
    const explain = async (sql, params) =>
      (await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, params)).rows.map((r) => r['QUERY PLAN']).join('\n');
    const endParams = [accountId, ownerId, end.sort_name, end.id];
    // As crm-core counts items_left: near the start, the contacts up to the batch's end (at most
    // 20,000, on the name index) subtracted from the total; further in, those after the end.
    let count;
    let countPlan;
    if (after + 100 < 20_000) {
      const before = `SELECT count(*)::int AS n FROM (SELECT 1 FROM crm.contacts c WHERE ${scope} AND (c.sort_name, c.id) <= ($3, $4) ORDER BY c.sort_name, c.id LIMIT 20000) s`;
      const total = `SELECT count(*)::int AS total FROM crm.contacts c WHERE ${scope}`;
      count = `${before};\n${total};`;
      countPlan = `${await explain(before, endParams)}\n\n${await explain(total, [accountId, ownerId])}`;
    } else {
      count = `SELECT count(*)::int AS n FROM (SELECT 1 FROM crm.contacts c WHERE ${scope} AND (c.sort_name, c.id) > ($3, $4) ORDER BY c.sort_name, c.id) s;`;
      countPlan = await explain(count.slice(0, -1), endParams);
    }
    return { sql, plan, count, countPlan };
  } finally {
    await db.end();
  }
}

/**
 * The search's statement as crm-core writes it (ContactsRepository from the build: the first
 * batch of the search in name order, the same rows and plan shape as its list), and its plan.
 */
async function explainSearch(dbUrl, accountId, ownerId, term) {
  const require = createRequire(import.meta.url);
  require('reflect-metadata');
  const { ContactsRepository } = require(path.join(root, 'dist/apps/crm-core/src/contacts/contacts.repository.js'));
  const contacts = new ContactsRepository();
  const { text: sql, values } = contacts
    .cascadeBatchStatement(contacts.filter(accountId, ownerId, { search: term }, null), null, 10)
    .compile();
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    return {
      sql,
      plan: (await db.query(`EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) ${sql}`, values)).rows.map((r) => r['QUERY PLAN']).join('\n'),
    };
  } finally {
    await db.end();
  }
}

/** SCALE_PENDING_DEALS pending deals, one per contact spread evenly over `members`, dated over the last 90 days. */
async function insertPendingDeals(db, random, accountId, ownerId, members, now) {
  const { rows: pipelines } = await db.query('SELECT id, kind FROM crm.pipelines WHERE account_id = $1 AND is_default', [accountId]);
  const pipelineOf = (kind) => pipelines.find((p) => p.kind === kind).id;
  const count = Math.min(SCALE_PENDING_DEALS, members.length);
  const step = members.length / count;
  const contactIds = Array.from({ length: count }, (_, i) => members[Math.floor(i * step)]);
  const ids = contactIds.map((_, i) => objectId(random, now - 3600 + i));
  await db.query(
    `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, status, stage,
                            expected_close_date, close_date, date, amount, months)
     SELECT v.id, $1, v.contact_id, $2, $2, $3, $4, 'Renewal ' || v.n, 'pending', 10,
            current_date + v.n::int, current_date + v.n::int, current_date - (v.n::int % 90), 100 + v.n, 12
     FROM unnest($5::varchar[], $6::varchar[]) WITH ORDINALITY AS v(id, contact_id, n)`,
    [accountId, ownerId, pipelineOf('pipeline'), pipelineOf('sales'), ids, contactIds],
  );
}

/**
 * One company with SCALE_CONTACTS contacts (SCALE_PENDING_DEALS of them with a pending deal) and a
 * few hundred contacts without a company (and without deals), seeded
 * with SQL in batches through crm-core's column rules; the counters are kept by the triggers of
 * migration 1764200000000 as the rows go in. Progress is printed as it goes.
 */
async function seedScale(dbUrl, accountId, ownerId, columns) {
  const random = rng(2026);
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  try {
    const [{ id: statusId }] = (await db.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [accountId])).rows;
    const now = Math.floor(Date.now() / 1000);
    /** One contact row (derived columns by crm-core's rules) created at `second`, in `company` or none. */
    const scaleRow = (tag, second, company) => {
      const first = FIRST[Math.floor(random() * FIRST.length)];
      const last = word(random, 2 + Math.floor(random() * 2));
      const emails = [{ type: 'work', value: `${first.toLowerCase()}.${last.toLowerCase()}.${tag}@example.test` }];
      const parts = { first_name: first, last_name: last, company_name: company?.name ?? '', phones: [], emails, urls: [] };
      const sortName = columns.sortNameOf(parts);
      return {
        id: objectId(random, second),
        first,
        last,
        company,
        phones: [],
        emails,
        sortName,
        letter: columns.letterOf(sortName),
        search: columns.searchTextOf(parts),
        created: new Date(second * 1000).toISOString(),
      };
    };
    const company = { id: objectId(random, now - 86_400), name: `Scale Holdings ${Date.now()}` };
    await db.query('INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, $3)', [company.id, accountId, company.name]);
    const LOOSE = 500;
    const total = SCALE_CONTACTS + LOOSE;
    const BATCH = 2000;
    const started = Date.now();
    const members = [];
    const loose = [];
    for (let start = 0; start < total; start += BATCH) {
      const rows = [];
      for (let i = start; i < Math.min(total, start + BATCH); i += 1) {
        const inCompany = i < SCALE_CONTACTS;
        const row = scaleRow(`s${i}`, now - 86_400 + i, inCompany ? company : null);
        (inCompany ? members : loose).push(row.id);
        rows.push(row);
      }
      await insertContacts(db, accountId, ownerId, statusId, rows);
      log(
        `scale: seeded ${Math.min(total, start + BATCH).toLocaleString('en')} / ${total.toLocaleString('en')} contacts (${((Date.now() - started) / 1000).toFixed(1)} s)`,
      );
    }
    await insertPendingDeals(db, random, accountId, ownerId, members, now);
    log(`scale: seeded ${SCALE_PENDING_DEALS} pending deals over the company's contacts`);
    // The like-for-like baseline: a small company whose contacts embed as many pending deals (the
    // cap) as the big one's, so the ratio shows what the company's size costs and nothing else.
    const small = { id: objectId(random, now - 86_300), name: `Small Shop ${Date.now()}` };
    await db.query('INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, $3)', [small.id, accountId, small.name]);
    const smallRows = Array.from({ length: SMALL_COMPANY_CONTACTS }, (_, i) => scaleRow(`m${i}`, now - 86_300 + i, small));
    await insertContacts(db, accountId, ownerId, statusId, smallRows);
    const smallMembers = smallRows.map((r) => r.id);
    await insertPendingDeals(db, random, accountId, ownerId, smallMembers, now);
    log(`scale: seeded a company of ${SMALL_COMPANY_CONTACTS} contacts, each with a pending deal`);
    await db.query('VACUUM ANALYZE crm.contacts');
    await db.query('VACUUM ANALYZE crm.deals');
    await db.query('VACUUM ANALYZE crm.company_counters');
    return { company, members, loose, smallMembers };
  } finally {
    await db.end();
  }
}

/** A new account through the operator API, with its admin's HTTP Basic header. */
async function createAccount(operator, name) {
  const created = await fetch(`${operator.url}/operator/accounts`, {
    method: 'POST',
    headers: operator.headers,
    body: JSON.stringify({
      name,
      admin: {
        first_name: 'Bench',
        last_name: 'Admin',
        email: `bench-${Date.now()}-${Math.random()}@example.com`,
        password: 'bench password 1',
      },
    }),
  });
  if (created.status !== 201)
    throw new Error(`POST /operator/accounts answered ${created.status}: ${(await created.text()).slice(0, 300)}`);
  const account = await created.json();
  return {
    accountId: account.account.id,
    userId: account.user.id,
    basic: { authorization: `Basic ${Buffer.from(`${account.user.id}:${account.user.api_key}`).toString('base64')}` },
  };
}

/**
 * The scale scenario of issue 12: creates into the big company against creates into a new one,
 * reads of its contacts against contacts without a company, GET /companies/{id}; ratios and the
 * targets (create ≥ 0.8×, read ≤ 1.2×, company p99 < 100 ms). Returns the report's section.
 */
async function scaleScenario({ api, basic, dbUrl, accountId, userId, columns }) {
  log(`scale: seeding one company with ${SCALE_CONTACTS.toLocaleString('en')} contacts`);
  const seedStart = Date.now();
  const { company, members, loose, smallMembers } = await seedScale(dbUrl, accountId, userId, columns);
  log(`scale: seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);
  const random = rng(11);
  const pickOf = (ids) => () => ids[Math.floor(random() * ids.length)];
  const check = await request(`${api}/companies/${company.id}`, basic);
  if (check.status !== 200) throw new Error(`GET /companies/{id} answered ${check.status}: ${check.body.slice(0, 300)}`);
  const shown = JSON.parse(check.body).data.company;
  log(
    `scale: GET /companies/{id} shows contacts_count ${shown.contacts_count} and embeds ${shown.contacts.length} contacts (${(check.body.length / 1024).toFixed(0)} KiB)`,
  );
  // A new company for the baseline: made by the first create, then every create links it by id.
  const fresh = await send('POST', `${api}/contacts`, basic, { last_name: 'Fresh', company_name: `Fresh Company ${Date.now()}` });
  if (fresh.status !== 201) throw new Error(`POST /contacts answered ${fresh.status}: ${fresh.body.slice(0, 300)}`);
  const freshCompanyId = JSON.parse(fresh.body).data.contact.company_id;
  let n = 0;
  const create = (companyId) => () =>
    send('POST', `${api}/contacts`, basic, { first_name: 'Load', last_name: `Create ${(n += 1)}`, company_id: companyId });
  await load('scale warm-up', create(freshCompanyId), { seconds: 2, connections: 16 });
  const rows = [];
  rows.push(await load('POST /contacts into a new company', create(freshCompanyId), { connections: 16 }));
  rows.push(
    await load(`POST /contacts into the company of ${SCALE_CONTACTS.toLocaleString('en')}`, create(company.id), { connections: 16 }),
  );
  const pickLoose = pickOf(loose);
  const pickMember = pickOf(members);
  rows.push(
    await load('GET /contacts/{id}, a contact without a company', () => request(`${api}/contacts/${pickLoose()}`, basic), {
      connections: 16,
    }),
  );
  const pickSmall = pickOf(smallMembers);
  rows.push(
    await load(
      `GET /contacts/{id}, a contact of a company of ${SMALL_COMPANY_CONTACTS} with as many pending deals shown`,
      () => request(`${api}/contacts/${pickSmall()}`, basic),
      { connections: 16 },
    ),
  );
  rows.push(
    await load(
      `GET /contacts/{id}, a contact of the company of ${SCALE_CONTACTS.toLocaleString('en')}`,
      () => request(`${api}/contacts/${pickMember()}`, basic),
      { connections: 16 },
    ),
  );
  rows.push(
    await load(
      `GET /companies/{id}, the company of ${SCALE_CONTACTS.toLocaleString('en')} (1 client)`,
      () => request(`${api}/companies/${company.id}`, basic),
      { connections: 1 },
    ),
  );
  rows.push(
    await load(
      `GET /companies/{id}, the company of ${SCALE_CONTACTS.toLocaleString('en')} (16 clients)`,
      () => request(`${api}/companies/${company.id}`, basic),
      { connections: 16 },
    ),
  );
  const [createFresh, createBig, readLoose, readSmall, readMember, company1, company16] = rows;
  const createRatio = createBig.rps / createFresh.rps;
  const readRatio = Number(readMember.p50) / Number(readLoose.p50);
  const readRate = readLoose.rps / readMember.rps;
  const sizeRatio = Number(readMember.p50) / Number(readSmall.p50);
  const sizeRate = readSmall.rps / readMember.rps;
  const lines = [
    `## Scale: one company with ${SCALE_CONTACTS.toLocaleString('en')} contacts`,
    '',
    `Seeded with SQL (the counters kept by the triggers as the rows went in) in ${((Date.now() - seedStart) / 1000).toFixed(0)} s, then measured through the same chain, ${SECONDS} s per scenario. GET /companies/{id} embeds ${shown.contacts.length} of its contacts (${(check.body.length / 1024).toFixed(0)} KiB reply; the rest through GET /contacts?company_id=). The company has ${shown.pending_deals_count} pending deals spread over its contacts; it embeds ${shown.pending_deals.length} of them, and so does the \`company\` of each of its contacts' wrappers (the contact without a company has none).`,
    '',
    '| scenario | clients | requests | req/s | p50 ms | p99 ms | CPU ms per request: gateway / crm-core / PostgreSQL | statuses |',
    '|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (r) =>
        `| ${r.name} | ${r.connections} | ${r.requests} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.cpu.gateway} / ${r.cpu.core} / ${r.cpu.postgres} | ${JSON.stringify(r.statuses)} |`,
    ),
    '',
    `- Create into the big company: ${createBig.rps} req/s = ${createRatio.toFixed(2)}× the rate into a new company (${createFresh.rps} req/s), 16 clients (target ≥ 0.8×) — ${createRatio >= 0.8 ? 'met' : 'NOT met'}.`,
    `- Read one of its contacts: p50 ${readMember.p50} ms = ${readRatio.toFixed(2)}× a contact with no company (p50 ${readLoose.p50} ms); by rate ${readRate.toFixed(2)}× (target ≤ 1.2×) — ${readRatio <= 1.2 && readRate <= 1.2 ? 'met' : 'NOT met'}; the difference is the company and its pending deals that the reply embeds, which a contact without a company does not show.`,
    `- Against a contact of a company of ${SMALL_COMPANY_CONTACTS} whose reply embeds as many pending deals: p50 ${readMember.p50} ms = ${sizeRatio.toFixed(2)}× (p50 ${readSmall.p50} ms); by rate ${sizeRate.toFixed(2)}× — what the company's ${SCALE_CONTACTS.toLocaleString('en')} contacts cost a read (target ≤ 1.2×) — ${sizeRatio <= 1.2 && sizeRate <= 1.2 ? 'met' : 'NOT met'}.`,
    `- GET /companies/{id}: p99 ${company1.p99} ms at 1 client, ${company16.p99} ms at 16 clients (target < 100 ms) — ${Number(company1.p99) < 100 ? 'met' : 'NOT met'} at 1 client.`,
    '',
  ];
  for (const line of lines.slice(-5, -1)) log(line);
  return lines;
}

/** An id like the API's from an SQL expression `seed` (8 hex digits of it, then 16 random ones). */
const sqlId = (seed) => `lpad(to_hex(${seed}), 8, '0') || substr(md5(random()::text || (${seed})::text), 1, 16)`;

/**
 * The summary scenario's data, straight into PostgreSQL for one account: 5 tags and `Hot`; 60% of
 * its contacts tagged (one of the 5 each), 90% with a next action of `userId` (its action stream,
 * as in OnePageCRM where nearly every contact has one). Returns the account's status ids.
 */
async function seedSummary(db, accountId, userId, idBase) {
  await db.query(
    `INSERT INTO crm.tags (id, account_id, name) SELECT ${sqlId(`$2::int + g`)}, $1, CASE WHEN g = 0 THEN 'Hot' ELSE 'Bench tag ' || g END
     FROM generate_series(0, 5) g`,
    [accountId, idBase],
  );
  // In batches of 2,000 contacts: builds before migration 1764801200000 took time quadratic in a
  // statement's rows for these bulk contact updates.
  const [{ n: count }] = (await db.query('SELECT count(*)::int AS n FROM crm.contacts WHERE account_id = $1', [accountId])).rows;
  for (let from = 1; from <= count; from += 2000) {
    const range = [accountId, from, from + 1999];
    await db.query(
      `WITH c AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM crm.contacts WHERE account_id = $1),
            t AS (SELECT array_agg(id ORDER BY name) AS ids FROM crm.tags WHERE account_id = $1 AND name LIKE 'Bench tag %')
       INSERT INTO crm.contact_tags (contact_id, tag_id, account_id)
       SELECT c.id, t.ids[1 + c.n % 5], $1 FROM c CROSS JOIN t WHERE c.n % 10 < 6 AND c.n BETWEEN $2 AND $3`,
      range,
    );
    await db.query(
      `WITH c AS (SELECT id, row_number() OVER (ORDER BY id) AS n FROM crm.contacts WHERE account_id = $1)
       INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, position)
       SELECT ${sqlId(`$5::int + c.n::int`)}, $1, c.id, $4, 'Bench next action ' || c.n, 'asap', 0 FROM c
       WHERE c.n % 10 < 9 AND c.n BETWEEN $2 AND $3`,
      [...range, userId, idBase + 1000],
    );
    if (from % 10_000 === 1) log(`summary: tags and next actions of ${Math.min(count, from + 1999)} of ${count} contacts`);
  }
  return (await db.query('SELECT id FROM crm.statuses WHERE account_id = $1 ORDER BY id', [accountId])).rows.map((r) => r.id);
}

/**
 * The summary scenario: the summary blocks on an account of CONTACTS contacts against one of
 * SMALL_CONTACTS (copies of the first ones, same shape), each scenario a ratio big/small (1: the
 * account's size costs nothing). Returns the report's section.
 */
async function summaryScenario({ api, operator, dbUrl, big }) {
  const small = await createAccount(operator, 'Bench small');
  const db = new pg.Client({ connectionString: dbUrl });
  await db.connect();
  const accounts = [];
  try {
    log(`summary: seeding ${CONTACTS.toLocaleString('en')} contacts, then a copy of ${SMALL_CONTACTS} of them in a second account`);
    const { ids } = await seedContacts(dbUrl, big.accountId, big.userId, contactColumns(), CONTACTS);
    await db.query(
      `INSERT INTO crm.contacts (id, account_id, owner_id, status_id, first_name, last_name, company_name, sort_name, letter, search_text)
       SELECT ${sqlId('(row_number() OVER (ORDER BY c.id))::int + 1879048192')}, $2::varchar, $3::varchar, (SELECT id FROM crm.statuses WHERE account_id = $2::varchar AND is_lead),
              c.first_name, c.last_name, c.company_name, c.sort_name, c.letter, c.search_text
       FROM crm.contacts c WHERE c.account_id = $1 ORDER BY c.id LIMIT $4`,
      [big.accountId, small.accountId, small.userId, SMALL_CONTACTS],
    );
    for (const [i, account] of [big, small].entries()) {
      const statusIds = await seedSummary(db, account.accountId, account.userId, 1610612736 + i * 100_000_000);
      const contactIds = (await db.query('SELECT id FROM crm.contacts WHERE account_id = $1', [account.accountId])).rows.map((r) => r.id);
      accounts.push({ ...account, statusIds, contactIds });
    }
    for (const table of ['contacts', 'actions', 'contact_tags', 'tags']) await db.query(`VACUUM ANALYZE crm.${table}`);
    log(`summary: seeded (${ids.length} and ${accounts[1].contactIds.length} contacts)`);
  } finally {
    await db.end();
  }
  const random = rng(13);
  const pickOf = (values) => values[Math.floor(random() * values.length)];
  const scenarios = [
    { name: 'GET /bootstrap', make: (a) => () => request(`${api}/bootstrap`, a.basic) },
    { name: 'GET /tags', make: (a) => () => request(`${api}/tags`, a.basic) },
    {
      name: 'PUT /contacts/{id}/assign_tag/Hot',
      make: (a) => () => send('PUT', `${api}/contacts/${pickOf(a.contactIds)}/assign_tag/Hot`, a.basic, {}),
    },
    {
      name: 'PUT /contacts/{id}/change_status/{status_id}',
      make: (a) => () => send('PUT', `${api}/contacts/${pickOf(a.contactIds)}/change_status/${pickOf(a.statusIds)}`, a.basic, {}),
    },
  ];
  for (const account of accounts) {
    const check = await request(`${api}/tags`, account.basic);
    if (check.status !== 200) throw new Error(`GET /tags answered ${check.status}: ${check.body.slice(0, 300)}`);
  }
  const loadBefore = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
  const rows = [];
  for (const scenario of scenarios) {
    await load(`summary warm-up: ${scenario.name}`, scenario.make(accounts[0]), { seconds: 2, connections: 16 });
    const measuredRows = [];
    for (const [i, account] of accounts.entries())
      measuredRows.push(
        await load(`${scenario.name}, ${i === 0 ? CONTACTS.toLocaleString('en') : SMALL_CONTACTS} contacts`, scenario.make(account), {
          connections: 16,
        }),
      );
    rows.push({ scenario: scenario.name, big: measuredRows[0], small: measuredRows[1] });
  }
  const loadAfter = os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(', ');
  return [
    `## Summary blocks: an account of ${CONTACTS.toLocaleString('en')} contacts against one of ${SMALL_CONTACTS}`,
    '',
    `Both accounts have the same shape: 60% of the contacts tagged (one of 5 tags each), 90% in the user's action stream (a next action each), one status. Seeded with SQL (the triggers kept their counters as the rows went in), vacuumed and analyzed; then each scenario ${SECONDS} s at 16 clients on the big account and then the small one, after 2 s of warm-up. The writes pick a random contact of the account (assign_tag: the tag Hot, often already there; change_status: a random status of the account) and answer with the five summary blocks. Load average (1, 5, 15 min) ${loadBefore} before, ${loadAfter} after.`,
    '',
    '| scenario | contacts | requests | req/s | p50 ms | p99 ms | CPU ms per request: gateway / crm-core / PostgreSQL | statuses | big / small (req/s) |',
    '|---|---|---|---|---|---|---|---|---|',
    ...rows.flatMap(({ scenario, big: b, small: s }) =>
      [
        [CONTACTS.toLocaleString('en'), b],
        [String(SMALL_CONTACTS), s],
      ].map(
        ([n, r], i) =>
          `| ${scenario} | ${n} | ${r.requests} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.cpu.gateway} / ${r.cpu.core} / ${r.cpu.postgres} | ${JSON.stringify(r.statuses)} | ${i === 0 ? `${(b.rps / s.rps).toFixed(2)}×` : ''} |`,
      ),
    ),
    '',
  ];
}

async function main() {
  const system = await startSystem({ ports, log, extraEnv: { PUBLIC_URL: `http://127.0.0.1:${ports.gateway}` } });
  let floor;
  try {
    const { gateway } = system.urls;
    measured.namespace = system.env.CRM_NAMESPACE;
    measured.database = new URL(system.env.DATABASE_URL).pathname.slice(1);
    const operator = { url: system.operatorUrl, headers: system.operatorHeaders };
    const bench = await createAccount(operator, 'Bench');
    const { accountId, userId, basic } = bench;
    const columns = contactColumns();
    const scale = () => scaleScenario({ api: `${gateway}/api/v3`, basic, dbUrl: system.env.DATABASE_URL, accountId, userId, columns });

    if (ONLY === 'summary' || ONLY === 'scale') {
      const section =
        ONLY === 'summary'
          ? await summaryScenario({ api: `${gateway}/api/v3`, operator, dbUrl: system.env.DATABASE_URL, big: bench })
          : await scale();
      const report = [
        `# Contacts benchmark, ${ONLY} scenario ${new Date().toISOString()}`,
        '',
        `Machine: ${machineDescription()}. Services from a fresh build with NODE_ENV=production, LOG_LEVEL=warn, one replica each; the full production chain (HTTP Basic API key, per-user limits in Redis with their ceilings raised, validation, NATS, crm-core, PostgreSQL); load generator on the same machine (closed loop, keep-alive).`,
        '',
        ...section,
      ].join('\n');
      mkdirSync(path.join(root, 'bench/results'), { recursive: true });
      const file = path.join(root, 'bench/results', `${new Date().toISOString().slice(0, 10)}-contacts-${ONLY}.md`);
      writeFileSync(file, report);
      log(`report written to ${path.relative(root, file)}`);
      return;
    }

    log(`seeding ${CONTACTS} contacts with SQL`);
    const seedStart = Date.now();
    const { ids, lastNames } = await seedContacts(system.env.DATABASE_URL, accountId, userId, columns, CONTACTS);
    log(`seeded ${ids.length} contacts in ${((Date.now() - seedStart) / 1000).toFixed(1)} s`);

    floor = spawn(node, [path.join(root, 'bench/floors.mjs'), 'raw'], {
      env: { ...process.env, DATABASE_URL: system.env.DATABASE_URL, PORT: String(FLOOR_PORT) },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    await new Promise((r) => setTimeout(r, 500));
    const floorUrl = `http://127.0.0.1:${FLOOR_PORT}`;
    await waitReady(`${floorUrl}/contacts/${ids[0]}`);

    const random = rng(7);
    const pick = () => ids[Math.floor(random() * ids.length)];
    const terms = lastNames.filter((_, i) => i % 97 === 0).map((n) => columns.fold(n).slice(0, 5));
    const api = `${gateway}/api/v3`;

    // Sanity: the API answers what it should before anything is measured.
    const check = await request(`${api}/contacts/${ids[0]}`, basic);
    if (check.status !== 200) throw new Error(`GET /contacts/{id} answered ${check.status}: ${check.body}`);

    const loadBefore = os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(', ');
    log(`warming up, then ${SECONDS} s per scenario`);
    await load('warm-up', () => request(`${api}/contacts/${pick()}`, basic), { seconds: 3, connections: 16 });
    await load('warm-up floor', () => request(`${floorUrl}/contacts/${pick()}`), { seconds: 2, connections: 16 });
    const rows = [];
    rows.push(await load('GET /contacts/{id} (gateway)', () => request(`${api}/contacts/${pick()}`, basic), { connections: 32 }));
    rows.push(
      await load('GET /contacts/{id} (floor: node:http + one pg query)', () => request(`${floorUrl}/contacts/${pick()}`), {
        connections: 32,
      }),
    );
    rows.push(
      await load('GET /users/{id} (the same chain with the smallest read, for reference)', () => request(`${api}/users/${userId}`, basic), {
        connections: 32,
      }),
    );
    rows.push(await load('GET /contacts?per_page=100', () => request(`${api}/contacts?per_page=100`, basic), { connections: 16 }));
    rows.push(
      await load(
        'GET /contacts?per_page=100&page=<1..500>',
        () => request(`${api}/contacts?per_page=100&page=${1 + Math.floor(random() * 500)}`, basic),
        { connections: 16 },
      ),
    );
    rows.push(
      await load(
        'GET /contacts?search=<name fragment>',
        () => request(`${api}/contacts?search=${encodeURIComponent(terms[Math.floor(random() * terms.length)])}`, basic),
        { connections: 16 },
      ),
    );

    log('walking the whole cascade');
    const batchMs = [];
    let url = `${api}/contacts/cascade/0`;
    let seen = 0;
    const walkStart = Date.now();
    while (url) {
      const t0 = process.hrtime.bigint();
      const res = await request(url, basic);
      batchMs.push(Number(process.hrtime.bigint() - t0) / 1e6);
      if (res.status !== 200) throw new Error(`cascade answered ${res.status}: ${res.body.slice(0, 300)}`);
      const body = JSON.parse(res.body);
      seen += body.data.contacts.length;
      url = body.data.next_set_url;
    }
    const walkSeconds = (Date.now() - walkStart) / 1000;
    if (seen !== ids.length) throw new Error(`the cascade returned ${seen} contacts, expected ${ids.length}`);
    const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const segments = [
      ['batches 1-10 (contacts 1-1,000)', batchMs.slice(0, 10)],
      ['batches 101-110 (contacts 10,001-11,000)', batchMs.slice(100, 110)],
      ['batches 191-200 (around the 20,000th)', batchMs.slice(190, 200)],
      ['batches 251-260', batchMs.slice(250, 260)],
      ['last 10 batches', batchMs.slice(-10)],
    ];
    for (const [name, xs] of segments) log(`cascade ${name}: mean ${mean(xs).toFixed(1)} ms`);
    const sortedBatches = [...batchMs].sort((a, b) => a - b);
    log(
      `cascade: ${batchMs.length} batches, ${seen} contacts in ${walkSeconds.toFixed(1)} s; per batch p50 ${percentile(sortedBatches, 50).toFixed(1)} ms, p99 ${percentile(sortedBatches, 99).toFixed(1)} ms`,
    );

    const firstPlan = await explainCascade(system.env.DATABASE_URL, accountId, userId, 0);
    const deepPlan = await explainCascade(system.env.DATABASE_URL, accountId, userId, Math.min(45_000, ids.length - 100));
    const searchPlan = await explainSearch(system.env.DATABASE_URL, accountId, userId, terms[0]);

    const scaleSection = await scale();
    const [gw, fl, users, list, listPages, search] = rows;
    const ratio = gw.rps / fl.rps;
    const report = [
      `# Contacts benchmark ${new Date().toISOString()}`,
      '',
      `Machine: ${machineDescription()}. ${ids.length.toLocaleString('en')} contacts in one account (40% with a company), seeded with SQL through crm-core's column rules. Services from a fresh build with NODE_ENV=production, LOG_LEVEL=warn, one replica each; the full production chain (HTTP Basic API key, per-user rate limits in Redis, validation, NATS, crm-core, PostgreSQL; no response caching); the load generator runs on the same machine (closed loop, keep-alive, ${SECONDS} s per scenario after a warm-up). The machine is shared with other work, so figures vary by a few percent between runs.`,
      '',
      '| scenario | clients | requests | req/s | p50 ms | p99 ms | CPU ms per request: gateway / crm-core / PostgreSQL | statuses |',
      '|---|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${r.connections} | ${r.requests} | ${r.rps} | ${r.p50} | ${r.p99} | ${r.name.includes('floor') ? '- / - / ' + r.cpu.postgres : `${r.cpu.gateway} / ${r.cpu.core} / ${r.cpu.postgres}`} | ${JSON.stringify(r.statuses)} |`,
      ),
      '',
      `Load average of the machine before the measurements: ${loadBefore}; after: ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(', ')} (2 cores; other work was running).`,
      '',
      '## Targets',
      '',
      `- GET /contacts/{id} at 32 clients: ${gw.rps} req/s = ${(ratio * 100).toFixed(0)}% of the floor's ${fl.rps} req/s (target: at least 50%) — ${ratio >= 0.5 ? 'met' : 'NOT met'}.`,
      `- For reference, GET /users/{id} (one small row, the same chain) reaches ${users.rps} req/s = ${((users.rps / fl.rps) * 100).toFixed(0)}% of the floor: the chain itself (three processes, Redis, NATS) sets the ceiling; the contact read costs ${((1 - gw.rps / users.rps) * 100).toFixed(0)}% on top of it.`,
      `- GET /contacts?per_page=100 at 16 clients: p99 ${list.p99} ms (target under 100 ms) — ${Number(list.p99) < 100 ? 'met' : 'NOT met'}; random pages 1-500: p99 ${listPages.p99} ms.`,
      `- GET /contacts?search=... at 16 clients: p99 ${search.p99} ms (target under 100 ms) — ${Number(search.p99) < 100 ? 'met' : 'NOT met'}.`,
      `- Cascade: ${batchMs.length} batches of 100 (${seen.toLocaleString('en')} contacts) in ${walkSeconds.toFixed(1)} s, one client; time per batch: ${segments.map(([name, xs]) => `${name} ${mean(xs).toFixed(1)} ms`).join('; ')}; p50 ${percentile(sortedBatches, 50).toFixed(1)} ms, p99 ${percentile(sortedBatches, 99).toFixed(1)} ms. The batch query starts at the keyset bound on the index (plans below), so its cost does not depend on the position; \`items_left\` is counted from the nearer end of the name order.`,
      '',
      '## What a request costs',
      '',
      "The CPU column is measured from /proc for this run's own processes (gateway and crm-core by their namespace, the PostgreSQL backends of this run's database), so it does not depend on how busy the shared machine was. Two cores give at most 2,000 CPU ms per second to share between the gateway, crm-core, PostgreSQL, Redis, NATS and the load generator:",
      '',
      ...[gw, users, list, listPages, search].map((r) => {
        const total = ['gateway', 'core', 'postgres'].reduce((sum, k) => sum + Number(r.cpu[k]), 0);
        return `- ${r.name}: ${total.toFixed(2)} CPU ms per request in the three processes, so at most about ${Math.round(2000 / total)} req/s on two otherwise idle cores (measured: ${r.rps}).`;
      }),
      '',
      "The floor is one process doing one indexed query and `JSON.stringify`. A gateway request adds: the API-key check (one Redis GET plus an HMAC), the per-user limits (one Redis Lua script), routing and class-validator validation, a NATS request-reply to crm-core, validation again there, and the reply turned into the envelope. GET /contacts/{id} costs about what GET /users/{id} costs: the contact wrapper is two prepared statements (the contact with its computed fields; the caller's open actions) plus, for a contact with a company, the company with its counters (a third); pending deals are read only for companies that have some. A list of 100 adds `total_count` (an index-only scan of a narrow partial index), the page of ids, and about 100 KB of JSON that crm-core serializes and the gateway parses and serializes again. Deep pages (`page` up to 500) pay OFFSET over the index: the cascade is the keyset way to walk everything.",
      '',
      '## Cascade query plans',
      '',
      'The batch query (owner scope, as `GET /contacts/cascade/{last_id}` runs it):',
      '',
      '```sql',
      deepPlan.sql,
      '```',
      '',
      'First batch:',
      '',
      '```',
      firstPlan.plan,
      '```',
      '',
      `After the ${Math.min(45_000, ids.length - 100).toLocaleString('en')}th contact: the keyset bound is an index condition, so the scan starts at the bound (no OFFSET, no rows read and dropped):`,
      '',
      '```',
      deepPlan.plan,
      '```',
      '',
      "`items_left` is counted from the nearer end, so no batch counts the whole account: near the start of the name order, the contacts up to the end of the batch (at most 20,000, on the name index) are subtracted from the total (`total_count`'s narrow index); further in, the contacts after the batch are counted from the bound on the name index. After the first batch:",
      '',
      '```sql',
      firstPlan.count,
      '```',
      '',
      '```',
      firstPlan.countPlan,
      '```',
      '',
      `After the batch at the ${Math.min(45_000, ids.length - 100).toLocaleString('en')}th contact:`,
      '',
      '```sql',
      deepPlan.count,
      '```',
      '',
      '```',
      deepPlan.countPlan,
      '```',
      '',
      `Search (\`search=${terms[0]}\`): the trigram index on search_text finds the matches first (a materialized CTE of whole rows), then they are filtered and ordered by name as they are, never looked up again by id; the count of the same matches gives \`total_count\`. Terms of one or two characters (no trigram) filter the name order instead.`,
      '',
      '```sql',
      searchPlan.sql,
      '```',
      '',
      '```',
      searchPlan.plan,
      '```',
      '',
      ...scaleSection,
    ].join('\n');
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    const file = path.join(root, 'bench/results', `${new Date().toISOString().slice(0, 10)}-contacts.md`);
    writeFileSync(file, report);
    log(`report written to ${path.relative(root, file)}`);
  } finally {
    floor?.kill('SIGTERM');
    await system.stop();
    agent.destroy();
  }
}

main().catch((error) => {
  console.error(
    `[bench:contacts] failed: ${error.stack ?? error.message}\n[bench:contacts] check that PostgreSQL, Redis and NATS run (npm start brings them up) and that ports 3410-3419 are free.`,
  );
  process.exit(1);
});
