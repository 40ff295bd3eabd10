#!/usr/bin/env node
// The floors the benchmarks compare the API with (issue 17): what this machine does with the
// design's shape and nothing else (no framework, no validation, no limits). One mode per process:
//
//   raw         node:http + one pg query by primary key on crm.contacts + JSON.stringify of the
//               envelope. GET /contacts/{id}.
//   chain-edge  the CHAIN FLOOR's HTTP edge: parses `Authorization: Basic base64(user:key)`, GETs
//               the credential's keyed hash from Redis (FLOOR_CREDENTIAL_PREFIX + user, the raw
//               HMAC-SHA256(FLOOR_PEPPER, key) the bench seeds), compares it with
//               crypto.timingSafeEqual, sends a NATS request and wraps the reply in the envelope.
//               GET /contacts/{id}.
//   chain-core  the CHAIN FLOOR's second process: subscribed in a queue group, answers from
//               PostgreSQL by primary key with a named prepared statement: {contact: row}.
//               It also answers the WRAPPER FLOOR (the edge's /wrappers/{id}): the same chain,
//               but the data is crm-core's own one-statement contact wrapper read
//               (contactWrapperPartsSql from dist/, as the caller FLOOR_USER_ID sees it), its
//               JSON parts spliced into the reply as PostgreSQL wrote them, and the contact
//               documents' text as a JSON string: what a wrapper's data
//               costs through the chain without our framework, DTOs or limits.
//   write       the WRITE FLOOR: one transaction (the row, then the outbox row + pg_notify exactly
//               as crm-core's insertOutboxEvent writes them), 201 with the envelope.
//               POST /notes {contact_id, text}; POST /contacts/{id}/deals {name, amount, months}.
//
// Environment: DATABASE_URL, PORT, POOL_SIZE (10); chain: REDIS_URL, NATS_URL, FLOOR_SUBJECT (a
// private subject prefix per run), FLOOR_CREDENTIAL_PREFIX, FLOOR_PEPPER; write: FLOOR_ACCOUNT_ID,
// FLOOR_USER_ID (author and owner), FLOOR_PIPELINE_ID, FLOOR_SALES_PIPELINE_ID (deals).
//
//   DATABASE_URL=postgres://... PORT=3455 node bench/floors.mjs raw
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';

const mode = process.argv[2];
const env = process.env;
const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: Number(env.POOL_SIZE ?? 10) });
/** NOTIFY channel of crm-core's outbox (apps/crm-core/src/outbox/outbox.repository.ts OUTBOX_CHANNEL). */
const OUTBOX_CHANNEL = 'crm_outbox';
const CONTACT_PATH = /^\/contacts\/([0-9a-f]{24})$/;
const WRAPPER_PATH = /^\/wrappers\/([0-9a-f]{24})$/;
/** The chain floor's subjects between its edge and its core: a contact row, a contact wrapper. */
const CONTACT_SUBJECT = `${env.FLOOR_SUBJECT}.contacts.get`;
const WRAPPER_SUBJECT = `${env.FLOOR_SUBJECT}.contacts.wrapper`;

/** The API's envelope around `data` already serialized (spliced in, as the gateway builds its replies). */
const envelope = (dataJson) => `{"status":0,"message":"OK","timestamp":${Math.floor(Date.now() / 1000)},"data":${dataJson}}`;
const reply = (res, status, body = '{}') => res.writeHead(status, { 'content-type': 'application/json' }).end(body);
/** An objectid-like id (4-byte seconds + 8 random bytes, hex), as crm-core's newId makes them. */
const newId = () => Math.floor(Date.now() / 1000).toString(16) + randomBytes(8).toString('hex');

function serve(handler, closers = []) {
  const server = http.createServer((req, res) =>
    handler(req, res).catch((error) => {
      if (!res.headersSent) reply(res, 500, JSON.stringify({ error: String(error) }));
    }),
  );
  server.keepAliveTimeout = 65_000;
  server.listen(Number(env.PORT), '127.0.0.1', () => process.stdout.write(`floor ${mode} listening on ${env.PORT}\n`));
  const stop = () => server.close(() => Promise.all([pool.end(), ...closers.map((c) => c())]).then(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

async function raw() {
  serve(async (req, res) => {
    const match = CONTACT_PATH.exec(req.url ?? '');
    if (!match) return reply(res, 404);
    const { rows } = await pool.query('SELECT * FROM crm.contacts WHERE id = $1', [match[1]]);
    if (rows.length === 0) return reply(res, 404);
    reply(res, 200, JSON.stringify({ status: 0, message: 'OK', timestamp: Math.floor(Date.now() / 1000), data: { contact: rows[0] } }));
  });
}

async function chainEdge() {
  const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const nc = await connect({ servers: env.NATS_URL ?? '127.0.0.1:4222', noAsyncTraces: true });
  const pepper = env.FLOOR_PEPPER;
  serve(
    async (req, res) => {
      const contact = CONTACT_PATH.exec(req.url ?? '');
      const match = contact ?? WRAPPER_PATH.exec(req.url ?? '');
      if (!match) return reply(res, 404);
      const auth = req.headers.authorization ?? '';
      if (!auth.startsWith('Basic ')) return reply(res, 401);
      const decoded = Buffer.from(auth.slice(6), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon < 1) return reply(res, 401);
      const stored = await redis.getBuffer(`${env.FLOOR_CREDENTIAL_PREFIX}${decoded.slice(0, colon)}`);
      const presented = createHmac('sha256', pepper)
        .update(decoded.slice(colon + 1))
        .digest();
      if (!stored || stored.length !== presented.length || !timingSafeEqual(stored, presented)) return reply(res, 401);
      const msg = await nc.request(contact ? CONTACT_SUBJECT : WRAPPER_SUBJECT, match[1], { timeout: 5000 });
      if (msg.data.length === 0) return reply(res, 404);
      reply(res, 200, envelope(msg.string()));
    },
    [() => redis.quit(), () => nc.close()],
  );
}

async function chainCore() {
  const nc = await connect({ servers: env.NATS_URL ?? '127.0.0.1:4222', noAsyncTraces: true });
  nc.subscribe(CONTACT_SUBJECT, {
    queue: 'floor-core',
    callback: (err, msg) => {
      if (err) return;
      pool
        .query({ name: 'floor-contact-by-id', text: 'SELECT * FROM crm.contacts WHERE id = $1', values: [msg.string()] })
        .then(({ rows }) => msg.respond(rows.length === 0 ? '' : JSON.stringify({ contact: rows[0] })))
        .catch(() => msg.respond(''));
    },
  });
  // The wrapper floor: crm-core's statement, compiled from the build (npm run build runs first).
  const dist = path.join(path.dirname(fileURLToPath(import.meta.url)), '../dist/apps/crm-core/src');
  const require = createRequire(import.meta.url);
  require('reflect-metadata');
  const { contactWrapperPartsSql } = require(path.join(dist, 'read-models/contact-wrapper.repository.js'));
  const { WRAPPER_COMPANY_CONTACTS_CAP, QUEUED_ACTIONS_CAP } = require(path.join(dist, 'read-models/caps.js'));
  const asText = { getTypeParser: () => (value) => value };
  // Planned as crm-core plans it (crm-data-source.ts: one generic plan per statement text): with
  // custom plans this statement is planned at every call, which costs more than running it.
  const wrapperPool = new pg.Pool({
    connectionString: env.DATABASE_URL,
    max: Number(env.POOL_SIZE ?? 10),
    options: '-c plan_cache_mode=force_generic_plan',
  });
  nc.subscribe(WRAPPER_SUBJECT, {
    queue: 'floor-core',
    callback: (err, msg) => {
      if (err) return;
      const { text, values } = contactWrapperPartsSql({
        accountId: env.FLOOR_ACCOUNT_ID,
        ids: [msg.string()],
        viewerId: env.FLOOR_USER_ID,
        mateLimit: WRAPPER_COMPANY_CONTACTS_CAP,
        actionLimit: QUEUED_ACTIONS_CAP,
        knownCompanyIds: [],
      }).compile();
      wrapperPool
        .query({ name: 'floor-contact-wrapper', text, values, types: asText })
        .then(({ rows: [parts] }) =>
          msg.respond(
            parts.stale === '[]' && parts.documents === null
              ? ''
              : `{"documents":${JSON.stringify(parts.documents)},"stale":${parts.stale},"mates":${parts.mates},"actions":${parts.actions},"companies":${parts.companies},"company_fields":${parts.company_fields}}`,
          ),
        )
        .catch(() => msg.respond(''));
    },
  });
  await nc.flush();
  process.stdout.write(`floor chain-core subscribed to ${CONTACT_SUBJECT} and ${WRAPPER_SUBJECT}\n`);
  const stop = () => nc.drain().then(() => Promise.all([pool.end(), wrapperPool.end()]).then(() => process.exit(0)));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** One transaction: `insert` (the row), then the outbox row and its NOTIFY as insertOutboxEvent writes them. */
async function writeWithEvent(insert, event) {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await insert(client);
    await client.query({
      name: 'floor-outbox',
      text: `WITH written AS (
               INSERT INTO crm.outbox (event_id, account_id, type, reason, record_id, contact_status_id, data, truncated_bytes, request_id, traceparent)
               VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9, $10)
               RETURNING 1)
             SELECT pg_notify($11, '') FROM written`,
      values: [newId(), env.FLOOR_ACCOUNT_ID, event.type, 'created', event.id, null, event.json, null, null, null, OUTBOX_CHANNEL],
    });
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

async function write() {
  const accountId = env.FLOOR_ACCOUNT_ID;
  const userId = env.FLOOR_USER_ID;
  const DEALS_PATH = /^\/contacts\/([0-9a-f]{24})\/deals$/;
  serve(async (req, res) => {
    if (req.method !== 'POST') return reply(res, 404);
    const body = JSON.parse(await readBody(req));
    const now = new Date();
    const today = now.toISOString().slice(0, 10);
    if (req.url === '/notes') {
      const note = {
        id: newId(),
        contact_id: body.contact_id,
        author_id: userId,
        text: body.text,
        date: today,
        linked_deal_id: null,
        created_at: now.toISOString(),
        modified_at: now.toISOString(),
      };
      const json = JSON.stringify({ note });
      await writeWithEvent(
        (db) =>
          db.query({
            name: 'floor-note',
            text: 'INSERT INTO crm.notes (id, account_id, contact_id, author_id, text, date) VALUES ($1, $2, $3, $4, $5, $6)',
            values: [note.id, accountId, note.contact_id, userId, note.text, today],
          }),
        { type: 'note', id: note.id, json },
      );
      return reply(res, 201, envelope(json));
    }
    const match = DEALS_PATH.exec(req.url ?? '');
    if (!match) return reply(res, 404);
    const deal = {
      id: newId(),
      contact_id: match[1],
      owner_id: userId,
      author_id: userId,
      pipeline_id: env.FLOOR_PIPELINE_ID,
      sales_pipeline_id: env.FLOOR_SALES_PIPELINE_ID,
      name: body.name,
      status: 'pending',
      stage: 10,
      expected_close_date: today,
      date: today,
      amount: body.amount ?? 0,
      months: body.months ?? 1,
      created_at: now.toISOString(),
      modified_at: now.toISOString(),
    };
    const json = JSON.stringify({ deal });
    await writeWithEvent(
      (db) =>
        db.query({
          name: 'floor-deal',
          text: `INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, status, stage,
                                        expected_close_date, close_date, date, amount, months)
                 VALUES ($1, $2, $3, $4, $4, $5, $6, $7, 'pending', 10, $8, $8, $8, $9, $10)`,
          values: [
            deal.id,
            accountId,
            deal.contact_id,
            userId,
            deal.pipeline_id,
            deal.sales_pipeline_id,
            deal.name,
            today,
            deal.amount,
            deal.months,
          ],
        }),
      { type: 'deal', id: deal.id, json },
    );
    reply(res, 201, envelope(json));
  });
}

const MODES = { raw, 'chain-edge': chainEdge, 'chain-core': chainCore, write };
if (!MODES[mode]) {
  console.error(`usage: node bench/floors.mjs ${Object.keys(MODES).join('|')}`);
  process.exit(2);
}
await MODES[mode]();
