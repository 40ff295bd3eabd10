#!/usr/bin/env node
// The webhook chaos soak (issue 16): N events written through the public API while a chaos loop,
// at random intervals, SIGKILLs the ingesting webhook-dispatcher (and starts a replacement),
// restarts PostgreSQL and restarts NATS. Every committed event must reach the receiver at least
// once; duplicates are counted and reported.
//
// Everything runs on this machine against PRIVATE PostgreSQL and NATS servers on spare ports (the
// shared ones are never touched; Redis is the shared one, under a namespace of its own, and is not
// restarted). The four services come from dist/ (libs/testing's startServices).
//
// Definitions (docs/decisions.md "Webhook chaos soak (issue 16)"):
//  - committed event: a row of crm.outbox of the soak's account when the writes are over (its
//    transaction committed, whatever the client was answered). Every write the API answered 2xx
//    must have one (else it counts as lost too). A request answered 5xx, or not at all, is retried
//    with the same Idempotency-Key until it gets a 2xx, as a careful client does; crm-core records
//    the key with the write (decisions.md "Idempotency recorded with the write"), so a retry of a
//    first try that committed after all answers that record instead of writing a second one.
//  - records per key (the headline): the records each write's key made, by the index each write
//    puts in its record's name; a duplicate record is one beyond the first (target 0).
//  - delivered: the receiver got the event (type, reason, record id) at least once with a valid
//    Standard Webhooks signature.
//  - lost: committed and not delivered by the drain deadline.
//  - duplicate: a delivery beyond the first with the same webhook-id (one id per event and webhook).
//
// Used by `npm run bench:webhooks -- --chaos` (100,000 events, a report in bench/results/) and by
// test/e2e/webhook-chaos.e2e-spec.ts (a CI-sized run of this file as a child process):
//
//   node bench/chaos.mjs [--events 2000] [--clients 8] [--rate 0] [--seconds 0] [--chaos-every 3,12]
//                        [--down 0.5,3] [--dispatchers 2] [--drain-timeout 900] [--request-deadline 300]
//                        [--node-env production] [--log-level warn] [--rpc-timeout 5] [--json out.json] [--no-build]
import { spawnSync } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pg from 'pg';
import { Webhook } from 'standardwebhooks';
import { machineDescription, node, parseArgs, root } from './lib.mjs';

const require = createRequire(import.meta.url);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const between = ([min, max]) => min + Math.random() * (max - min);
/** Event types the soak writes (POST /contacts and POST /notes); the webhook subscribes to these. */
const TYPES = ['contact', 'note'];
/**
 * The faults, by name: the issue's three (the default) and harsher ones to choose with --kinds:
 * NATS killed with SIGKILL, PostgreSQL stopped in immediate mode (crash recovery at the start),
 * crm-core (the API's writer and the outbox relay) killed with SIGKILL and replaced.
 */
const FAULTS = {
  dispatcher: 'dispatcher SIGKILL',
  postgres: 'PostgreSQL restart',
  nats: 'NATS restart',
  'nats-crash': 'NATS SIGKILL',
  'postgres-crash': 'PostgreSQL crash',
  'crm-core': 'crm-core SIGKILL',
};
const FAULT_TEXT = {
  dispatcher: 'SIGKILL of the ingesting dispatcher, and a replacement started',
  postgres: 'PostgreSQL stopped (fast shutdown: sessions cut) and started',
  nats: 'NATS stopped (SIGTERM) and started',
  'nats-crash': 'NATS killed (SIGKILL) and started',
  'postgres-crash': 'PostgreSQL stopped in immediate mode (no checkpoint: crash recovery) and started',
  'crm-core': 'SIGKILL of crm-core, and a replacement started',
};
const DEFAULT_KINDS = ['dispatcher', 'postgres', 'nats'];

/** The options of a run, from `--name value` arguments (seconds on the command line, ms here). */
export function chaosOptions(args = {}) {
  const pair = (value, fallback) => (value ? value.split(',').map((v) => Number(v) * 1000) : fallback);
  return {
    events: Number(args.events ?? 2000),
    clients: Number(args.clients ?? 8),
    /** Writes started per second over all clients; 0: as fast as the clients get answers. */
    rate: Number(args.rate ?? 0),
    /** Stop writing after this many seconds even short of `events` (0: no limit). */
    writeSeconds: Number(args.seconds ?? 0),
    chaosEveryMs: pair(args['chaos-every'], [3000, 12000]),
    downMs: pair(args.down, [500, 3000]),
    dispatchers: Number(args.dispatchers ?? 2),
    kinds: args.kinds ? args.kinds.split(',') : DEFAULT_KINDS,
    drainTimeoutMs: Number(args['drain-timeout'] ?? 900) * 1000,
    /** A write still unanswered with a 2xx after this long is given up (and reported). */
    requestDeadlineMs: Number(args['request-deadline'] ?? 300) * 1000,
    /** The run stops with an error when no write got its 2xx for this long (a broken build, a service that does not recover). */
    stallMs: Number(args.stall ?? 120) * 1000,
    /**
     * Extra environment for the services: --node-env, --log-level, and --rpc-timeout (seconds the
     * gateway waits for crm-core's reply; lower, more replies arrive after the deadline or are lost).
     */
    env: Object.fromEntries(
      [
        ['NODE_ENV', args['node-env']],
        ['LOG_LEVEL', args['log-level']],
        ['RPC_TIMEOUT_MS', args['rpc-timeout'] ? String(Number(args['rpc-timeout']) * 1000) : undefined],
      ].filter(([, v]) => v),
    ),
  };
}

function statusKey(status) {
  return status === 0 ? 'no answer' : String(status);
}

/** One keep-alive HTTP receiver: verifies every signature, records every delivery by webhook-id and by event. */
async function startReceiver() {
  const state = {
    verifier: null,
    requests: 0,
    badSignatures: 0,
    /** webhook-id -> deliveries with a valid signature */
    byWebhookId: new Map(),
    /** `${type}:${reason}:${record id}` -> Set of webhook-ids */
    byEvent: new Map(),
    firstAt: 0,
    lastAt: 0,
  };
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      state.requests += 1;
      const body = Buffer.concat(chunks).toString();
      try {
        if (!state.verifier) throw new Error('no secret yet');
        state.verifier.verify(body, req.headers);
      } catch {
        state.badSignatures += 1;
        return res.writeHead(400).end();
      }
      const id = String(req.headers['webhook-id']);
      state.byWebhookId.set(id, (state.byWebhookId.get(id) ?? 0) + 1);
      try {
        const json = JSON.parse(body);
        const recordId = json.data?.[json.type]?.id ?? json.data?.id;
        const key = `${json.type}:${json.reason}:${recordId}`;
        let ids = state.byEvent.get(key);
        if (!ids) {
          state.byEvent.set(key, (ids = new Set()));
          state.lastAt = Date.now();
          state.firstAt ||= state.lastAt;
        }
        ids.add(id);
      } catch {
        state.badSignatures += 1; // signed but not an event: counted with the bad ones
      }
      res.writeHead(200).end();
    });
  });
  server.keepAliveTimeout = 65_000;
  server.maxRequestsPerSocket = 0;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    state,
    close: () => new Promise((r) => (server.closeAllConnections(), server.close(r))),
  };
}

const APPS = ['api-gateway', 'auth-server', 'crm-core', 'webhook-dispatcher'];

/**
 * A private copy of dist/ (under test-results/, so the copy still finds node_modules): the soak
 * starts replacement processes for as long as it runs, and dist/ is shared with anyone who builds
 * meanwhile (a build empties it first). Returns the copy's root (its services log under it).
 */
async function snapshotDist(log) {
  const dir = path.join(root, 'test-results', `chaos-dist-${randomBytes(4).toString('hex')}`);
  const needed = ['libs/testing/src/index.js', ...APPS.map((a) => `apps/${a}/src/main.js`)];
  for (let tries = 1; ; tries += 1) {
    rmSync(path.join(dir, 'dist'), { recursive: true, force: true });
    try {
      cpSync(path.join(root, 'dist'), path.join(dir, 'dist'), { recursive: true });
      if (needed.every((f) => existsSync(path.join(dir, 'dist', f)))) break;
    } catch (error) {
      if (tries >= 5) throw error;
    }
    if (tries >= 5) throw new Error('dist/ is incomplete: build it (npm run build) and run again');
    log('dist/ is being rebuilt by someone; copying it again in 3 s');
    await sleep(3000);
  }
  return dir;
}

async function metric(port, name) {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(2000) })).text();
    const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
    return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
  } catch {
    return null;
  }
}

/**
 * Runs one soak; resolves with its figures (see the definitions above). `log` gets progress lines.
 * Needs a built dist/ (npm run build).
 */
export async function runChaos(options, log = (msg) => console.log(`[chaos] ${msg}`)) {
  const o = { ...chaosOptions(), ...options };
  const unknown = o.kinds.filter((k) => !FAULTS[k]);
  if (unknown.length > 0 || o.kinds.length === 0)
    throw new Error(`--kinds: ${unknown.join(', ')} unknown (known: ${Object.keys(FAULTS).join(', ')})`);
  const runId = randomBytes(4).toString('hex');
  const loads = [os.loadavg()[0]];
  const loadTimer = setInterval(() => loads.push(os.loadavg()[0]), 5000);
  const cleanup = [];
  // Stopped from outside (Ctrl-C, a test's time limit): stop the services and remove the private servers first.
  // The run is told to stop (writers and chaos loop end), the clean-up starts at once, and the run's
  // own ending waits for it, so nothing exits while a server is still being stopped.
  let abortError = null;
  let signalCleanup = null;
  const onSignal = (signal) => {
    log(`${signal}: stopping the services and the private servers`);
    abortError ??= new Error(`stopped by ${signal}`);
    setTimeout(() => process.exit(130), 30_000).unref();
    signalCleanup ??= (async () => {
      for (const step of cleanup.splice(0)) await step().catch(() => undefined);
    })().then(() => process.exit(130));
  };
  process.once('SIGTERM', onSignal).once('SIGINT', onSignal);
  const result = {
    options: o,
    loadBefore: os.loadavg(),
    restarts: Object.fromEntries(o.kinds.map((k) => [k, 0])),
    downtimeMs: { postgres: 0, nats: 0 },
    statuses: {},
  };
  try {
    const copy = await snapshotDist(log);
    cleanup.push(async () => rmSync(path.join(copy, 'dist'), { recursive: true, force: true }));
    const testing = require(path.join(copy, 'dist/libs/testing/src/index.js'));
    log(`running the services from a copy of dist/ (logs in ${path.relative(root, testing.E2E_LOG_DIR)})`);
    log('starting private PostgreSQL and NATS');
    const pgServer = await testing.startPrivatePostgres();
    cleanup.push(() => pgServer.destroy());
    const nats = await testing.startPrivateNats();
    cleanup.push(() => nats.destroy());
    log(`PostgreSQL on ${pgServer.port}, NATS on ${nats.port}; starting the services`);
    const services = await testing.startServices({
      infra: { databaseUrl: pgServer.url, natsUrl: nats.url },
      env: { RATE_LIMIT_PER_MINUTE: '1000000', RATE_LIMIT_CONCURRENT: '1000', ...o.env },
    });
    cleanup.unshift(() => services.stopAll());

    // Dispatcher replicas: the harness's one plus more; each tracked until it exits.
    const live = new Set();
    let serial = 1;
    const track = (p) => (live.add(p), void p.exited.then(() => live.delete(p)));
    services.processes.filter((p) => p.app === 'webhook-dispatcher').forEach(track);
    const startDispatcher = async () => track(await services.startProcess('webhook-dispatcher', `webhook-dispatcher-${(serial += 1)}`));
    for (let i = 1; i < o.dispatchers; i += 1) await startDispatcher();

    const account = await testing.createAccount(services, { name: 'Chaos soak' });
    const auth = testing.basicAuth(account.user.id, account.user.api_key);
    const gateway = `${services.gatewayUrl}/api/v3`;
    const receiver = await startReceiver();
    cleanup.unshift(() => receiver.close());
    const hookRes = await fetch(`${gateway}/webhooks`, {
      method: 'POST',
      headers: { authorization: auth, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Chaos', hook_url: `${receiver.url}/chaos`, types: TYPES }),
    });
    const hookBody = await hookRes.json();
    if (hookRes.status !== 201) throw new Error(`POST /webhooks: ${hookRes.status} ${JSON.stringify(hookBody)}`);
    receiver.state.verifier = new Webhook(hookBody.data.webhook.signing_secret);

    // ------------------------------------------------------------ the writers
    const confirmed = new Map(); // event key -> write index
    const refused = [];
    const unconfirmed = [];
    /** Writes that needed more than one try: index -> the failed tries ({ status, during }). */
    const failedTries = new Map();
    /** What the chaos loop is doing right now, or did last and when it ended (recorded with each failed try). */
    let phase = null;
    /** label -> when that kind of fault last ended */
    const ended = new Map();
    const during = () => {
      const recent = [...ended].filter(([label, at]) => label !== phase && Date.now() - at < 10_000).map(([label]) => label);
      const after = recent.length > 0 ? `within 10 s after a ${recent.join(' and a ')}` : '';
      if (phase) return after ? `${phase}, ${after}` : phase;
      return after || 'steady (no fault in the last 10 s)';
    };
    let issued = 0;
    let retried = 0;
    /** Retries answered with the outcome of an earlier try that had committed (Idempotent-Replayed: true). */
    let replayedRetries = 0;
    let attempts = 0;
    let writing = true;
    const writeStart = Date.now();
    const chaosRoundDone = () => o.kinds.every((k) => result.restarts[k] > 0);
    const moreToWrite = () =>
      !abortError && (issued < o.events || !chaosRoundDone()) && !(o.writeSeconds > 0 && Date.now() - writeStart > o.writeSeconds * 1000);

    /** The first answers with a 500 (a server error, retried like a 503, reported). */
    const serverErrors = [];
    let lastFailure = '';
    let lastConfirmedAt = Date.now();
    /** POST until a 2xx (same Idempotency-Key every try); the record id, or null when refused or given up. */
    const send = async (i, pathname, body, type) => {
      const key = `chaos-${runId}-${i}`;
      const giveUpAt = Date.now() + o.requestDeadlineMs;
      let delay = 100;
      for (let attempt = 1; ; attempt += 1) {
        let status = 0;
        let text = '';
        let retryAfter = 0;
        let replayed = false;
        try {
          const res = await fetch(`${gateway}${pathname}`, {
            method: 'POST',
            headers: { authorization: auth, 'content-type': 'application/json', 'idempotency-key': key },
            body: JSON.stringify(body),
            signal: AbortSignal.timeout(30_000),
          });
          status = res.status;
          text = await res.text();
          retryAfter = Number(res.headers.get('retry-after') ?? 0) * 1000;
          replayed = res.headers.get('idempotent-replayed') === 'true';
        } catch {
          status = 0;
        }
        attempts += 1;
        result.statuses[statusKey(status)] = (result.statuses[statusKey(status)] ?? 0) + 1;
        if (status < 200 || status >= 300) {
          failedTries.set(i, [...(failedTries.get(i) ?? []), { status: statusKey(status), during: during() }]);
          lastFailure = `${statusKey(status)} ${text.slice(0, 300)}`;
          if (status === 500 && serverErrors.length < 5) serverErrors.push({ i, pathname, during: during(), answer: text.slice(0, 300) });
        }
        if (status >= 200 && status < 300) {
          const id = JSON.parse(text).data[type].id;
          confirmed.set(`${type}:created:${id}`, i);
          lastConfirmedAt = Date.now();
          if (attempt > 1) retried += 1;
          if (attempt > 1 && replayed) replayedRetries += 1;
          return id;
        }
        if (status >= 400 && status < 500 && ![408, 409, 425, 429].includes(status)) {
          refused.push({ i, pathname, status, answer: text.slice(0, 300) });
          return null;
        }
        if (Date.now() > giveUpAt || abortError) {
          unconfirmed.push({ i, pathname, status });
          return null;
        }
        await sleep(Math.max(retryAfter, delay));
        delay = Math.min(delay * 2, 2000);
      }
    };
    const client = async () => {
      let contactId = null;
      while (moreToWrite()) {
        const i = issued;
        issued += 1;
        if (o.rate > 0) {
          const wait = writeStart + (i * 1000) / o.rate - Date.now();
          if (wait > 0) await sleep(wait);
        }
        if (contactId && i % 2 === 1) await send(i, '/notes', { contact_id: contactId, text: `Chaos note ${i}` }, 'note');
        else contactId = (await send(i, '/contacts', { last_name: `Chaos ${i}` }, 'contact')) ?? contactId;
      }
    };

    // ------------------------------------------------------------ the chaos loop
    let wakeChaos = () => undefined;
    const chaosSleep = (ms) =>
      new Promise((resolve) => {
        const timer = setTimeout(resolve, ms);
        wakeChaos = () => (clearTimeout(timer), resolve());
      });
    const actions = {
      dispatcher: async () => {
        const list = [...live];
        let victim = null;
        for (const d of list) if ((await metric(d.metricsPort, 'webhook_dispatcher_ingesting')) === 1) victim ??= d;
        if (list.length === 0) throw new Error('no webhook-dispatcher is running');
        victim ??= list[randomInt(list.length)];
        await victim.stop('SIGKILL');
        live.delete(victim);
        await startDispatcher();
        return `SIGKILLed ${victim.name}${list.length > 1 ? ' (the ingesting replica)' : ''}, started a replacement`;
      },
      postgres: () => restart(pgServer, 'postgres'),
      nats: () => restart(nats, 'nats'),
      'postgres-crash': () => restart(pgServer, 'postgres', true),
      'nats-crash': () => restart(nats, 'nats', true),
      'crm-core': async () => {
        const victim = services.processes.find((p) => p.app === 'crm-core' && !deadCores.has(p));
        await victim.stop('SIGKILL');
        deadCores.add(victim);
        await services.startProcess('crm-core', `crm-core-${(coreSerial += 1)}`);
        return `SIGKILLed ${victim.name}, started a replacement`;
      },
    };
    const deadCores = new Set();
    let coreSerial = 1;
    const restart = async (server, which, crash = false) => {
      const down = between(o.downMs);
      await server.restart(down, { crash });
      result.downtimeMs[which] += down;
      return `${crash ? 'crashed' : 'restarted'} ${which === 'postgres' ? 'PostgreSQL' : 'NATS'} (down ${(down / 1000).toFixed(1)} s)`;
    };
    const chaos = (async () => {
      let queue = [];
      while (writing && !abortError) {
        await chaosSleep(between(o.chaosEveryMs));
        if (!writing) break;
        // Each round does every kind once, in a random order.
        if (queue.length === 0) queue = [...o.kinds].sort(() => Math.random() - 0.5);
        const kind = queue.shift();
        const started = Date.now();
        phase = FAULTS[kind];
        try {
          const what = await actions[kind]();
          result.restarts[kind] += 1;
          log(`chaos: ${what} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
        } catch (error) {
          abortError = error; // the writers stop; the run fails below
        }
        ended.delete(phase);
        ended.set(phase, Date.now());
        phase = null;
      }
    })();

    // ------------------------------------------------------------ write, with progress lines
    log(
      `writing ${o.events} events (POST /contacts and POST /notes, ${o.clients} clients${o.rate ? `, ${o.rate}/s` : ''}); chaos every ${o.chaosEveryMs.map((v) => v / 1000).join('-')} s`,
    );
    const progress = setInterval(() => {
      const s = (Date.now() - writeStart) / 1000;
      if (!abortError && Date.now() - lastConfirmedAt > o.stallMs)
        abortError = new Error(
          `no write got its 2xx for ${o.stallMs / 1000} s (answers ${JSON.stringify(result.statuses)}; the last failure: ${lastFailure})`,
        );
      log(
        `${s.toFixed(0)} s: ${confirmed.size} confirmed (${(confirmed.size / s).toFixed(0)}/s) of ${issued} issued, ${receiver.state.byEvent.size} delivered; restarts ${JSON.stringify(result.restarts)}; answers ${JSON.stringify(result.statuses)}; load ${os.loadavg()[0].toFixed(1)}`,
      );
    }, 5000);
    try {
      await Promise.all(Array.from({ length: o.clients }, client));
    } finally {
      writing = false;
      wakeChaos();
      clearInterval(progress);
    }
    await chaos;
    if (abortError) throw abortError;
    const writeEnd = Date.now();
    result.writeSeconds = (writeEnd - writeStart) / 1000;
    log(
      `writes over in ${result.writeSeconds.toFixed(1)} s: ${confirmed.size} confirmed, ${refused.length} refused, ${unconfirmed.length} given up`,
    );

    // ------------------------------------------------------------ what was committed, and the drain
    const db = new pg.Client({ connectionString: services.database.url });
    await db.connect();
    cleanup.unshift(() => db.end());
    const { rows: outbox } = await db.query(
      `SELECT type, reason, record_id FROM crm.outbox WHERE account_id = $1 AND type = ANY($2::varchar[])`,
      [account.account.id, TYPES],
    );
    const expected = new Set(outbox.map((r) => `${r.type}:${r.reason}:${r.record_id}`));
    // Records per Idempotency-Key: each write names its record after its index ("Chaos <i>", "Chaos note <i>"), one key per write.
    const { rows: perKey } = await db.query(
      `SELECT records, count(*)::int AS keys FROM (
         SELECT last_name AS name, count(*)::int AS records FROM crm.contacts WHERE account_id = $1 AND last_name LIKE 'Chaos %' GROUP BY last_name
         UNION ALL
         SELECT text, count(*)::int FROM crm.notes WHERE account_id = $1 AND text LIKE 'Chaos note %' GROUP BY text
       ) named GROUP BY records ORDER BY records`,
      [account.account.id],
    );
    const recordsPerKey = Object.fromEntries(perKey.map((r) => [r.records, r.keys]));
    const duplicateRecords = perKey.reduce((sum, r) => sum + (r.records - 1) * r.keys, 0);
    const keysWithRecord = perKey.reduce((sum, r) => sum + r.keys, 0);
    const confirmedWithoutEvent = [...confirmed.keys()].filter((k) => !expected.has(k));
    const missing = () => [...expected].filter((k) => !receiver.state.byEvent.has(k));
    const drainDeadline = Date.now() + o.drainTimeoutMs;
    let lastLine = 0;
    for (;;) {
      const left = missing().length;
      if (abortError) throw abortError;
      if (left === 0 || Date.now() > drainDeadline) break;
      if (Date.now() - lastLine >= 5000) {
        lastLine = Date.now();
        const pending = await db
          .query(
            `SELECT (SELECT count(*)::int FROM crm.outbox WHERE published_at IS NULL) AS unpublished,
                    (SELECT count(*)::int FROM crm.outbox o WHERE published_at IS NULL AND to_jsonb(o) ->> 'parked_at' IS NOT NULL) AS parked,
                    (SELECT count(*)::int FROM webhooks.deliveries WHERE status = 'pending') AS pending`,
          )
          .then((r) => r.rows[0])
          .catch(() => ({}));
        log(
          `draining: ${expected.size - left} of ${expected.size} delivered, ${left} to go (outbox unpublished ${pending.unpublished ?? '?'} of which parked ${pending.parked ?? '?'}, deliveries pending ${pending.pending ?? '?'}), ${((Date.now() - writeEnd) / 1000).toFixed(0)} s since the writes ended`,
        );
      }
      await sleep(250);
    }
    const lost = missing();
    result.drainSeconds = (Math.max(receiver.state.lastAt, writeEnd) - writeEnd) / 1000;
    // Quiet down: wait (briefly) for the dispatchers to finish what they hold, so late duplicates are counted.
    const quietUntil = Date.now() + 15_000;
    while (Date.now() < quietUntil) {
      const open = await db
        .query(`SELECT count(*)::int AS n FROM webhooks.deliveries WHERE status = 'pending'`)
        .then((r) => r.rows[0].n)
        .catch(() => 0);
      if (open === 0) break;
      await sleep(250);
    }

    // ------------------------------------------------------------ where the lost ones are
    const lostDetail = [];
    for (const key of [...lost, ...confirmedWithoutEvent].slice(0, 20)) {
      const [type, reason, recordId] = key.split(':');
      const where = await db
        .query(
          `SELECT to_jsonb(o) - 'data' AS outbox, e.stream_seq, d.status, d.attempt_count, d.locked_by, d.last_error
             FROM crm.outbox o
             LEFT JOIN webhooks.events e ON e.event_id = o.event_id
             LEFT JOIN webhooks.deliveries d ON d.event_id = o.event_id
            WHERE o.type = $1 AND o.reason = $2 AND o.record_id = $3`,
          [type, reason, recordId],
        )
        .then((r) => r.rows)
        .catch((error) => [{ error: error.message }]);
      lostDetail.push({ key, where });
    }

    // Records committed without a 2xx: which write made them (its index is in the name) and what its tries got.
    const extraRecords = [];
    for (const key of [...expected].filter((k) => !confirmed.has(k)).slice(0, 20)) {
      const [type, , recordId] = key.split(':');
      const name = await db
        .query(
          type === 'note' ? 'SELECT text AS name FROM crm.notes WHERE id = $1' : 'SELECT last_name AS name FROM crm.contacts WHERE id = $1',
          [recordId],
        )
        .then((q) => q.rows[0]?.name ?? '')
        .catch(() => '');
      const i = Number(/\d+$/.exec(name)?.[0]);
      extraRecords.push({ key, write: i, tries: failedTries.get(i) ?? [] });
    }

    // Rows the relay parked (could not publish for good): never delivered, so each is lost too.
    result.parked = await db
      .query(`SELECT count(*)::int AS n FROM crm.outbox o WHERE account_id = $1 AND to_jsonb(o) ->> 'parked_at' IS NOT NULL`, [
        account.account.id,
      ])
      .then((q) => q.rows[0].n)
      .catch(() => null);

    const r = receiver.state;
    const deliveries = [...r.byWebhookId.values()].reduce((a, b) => a + b, 0);
    Object.assign(result, {
      eventsIssued: issued,
      apiConfirmed: confirmed.size,
      /** Keys (writes) by the number of records they made: { 1: n } when every write made one. */
      recordsPerKey,
      /** Records beyond the first made with one Idempotency-Key: the headline, 0 when retries are safe. */
      duplicateRecords,
      /** Keys that made no record (refused or given up). */
      keysWithoutRecord: issued - keysWithRecord,
      apiAttempts: attempts,
      retriedToSuccess: retried,
      replayedRetries,
      refused,
      unconfirmed,
      committed: expected.size,
      committedBeyondConfirmed: [...expected].filter((k) => !confirmed.has(k)).length,
      confirmedWithoutEvent: confirmedWithoutEvent.length,
      delivered: [...expected].filter((k) => r.byEvent.has(k)).length,
      lost: lost.length + confirmedWithoutEvent.length,
      lostDetail,
      extraRecords,
      serverErrors,
      failedTriesByPhase: [...failedTries.values()].flat().reduce((acc, t) => {
        const k = `${t.status}, ${/^(within|steady)/.test(t.during) ? '' : 'during a '}${t.during}`;
        acc[k] = (acc[k] ?? 0) + 1;
        return acc;
      }, {}),
      deliveries,
      duplicates: deliveries - r.byWebhookId.size,
      repeatedEvents: [...r.byEvent.values()].filter((ids) => ids.size > 1).length,
      unexpected: [...r.byEvent.keys()].filter((k) => !expected.has(k)).length,
      badSignatures: r.badSignatures,
      writesPerSecond: confirmed.size / result.writeSeconds,
      deliveriesPerSecond: r.lastAt > r.firstAt ? r.byEvent.size / ((r.lastAt - r.firstAt) / 1000) : 0,
      loadDuring: { max: Math.max(...loads), mean: loads.reduce((a, b) => a + b, 0) / loads.length },
      loadAfter: os.loadavg(),
    });
    log(
      `headline: ${result.duplicateRecords} duplicate records (records per key ${JSON.stringify(result.recordsPerKey)}), ${result.apiConfirmed} acknowledged writes of ${result.eventsIssued} (${result.replayedRetries} by a retry answered with the committed first try), ${result.delivered} events delivered, ${result.lost} lost`,
    );
    log(
      `result: ${result.committed} committed (${result.apiConfirmed} confirmed by a 2xx), ${result.delivered} delivered, ${result.lost} lost, ${result.duplicates} duplicates, ${result.badSignatures} bad signatures, ${result.parked} parked; restarts ${JSON.stringify(result.restarts)}; drain ${result.drainSeconds.toFixed(1)} s after the writes`,
    );
    for (const l of lostDetail) log(`lost: ${l.key} ${JSON.stringify(l.where)}`);
    for (const e of extraRecords)
      log(`committed without a 2xx: ${e.key} by write ${e.write}, whose failed tries were ${JSON.stringify(e.tries)}`);
    log(`failed tries: ${JSON.stringify(result.failedTriesByPhase)}`);
    for (const e of serverErrors) log(`answered 500: write ${e.i} ${e.pathname}, ${e.during}: ${e.answer}`);
    return result;
  } finally {
    clearInterval(loadTimer);
    for (const step of cleanup.splice(0)) await step().catch((error) => log(`clean-up: ${error.message}`));
    if (signalCleanup) await signalCleanup;
    process.off('SIGTERM', onSignal).off('SIGINT', onSignal);
  }
}

/** bench/results/<date>-webhooks-chaos.md */
export function writeChaosReport(result) {
  const o = result.options;
  const n = (v) => v.toLocaleString('en-US');
  const load = (l) => l.map((v) => v.toFixed(2)).join(' / ');
  const lines = [
    `# Webhook chaos soak ${new Date().toISOString()}`,
    '',
    `Machine: ${machineDescription()}. Load average (1 / 5 / 15 min) before the run ${load(result.loadBefore)}, after ${load(result.loadAfter)}; the 1-minute figure during the run, sampled every 5 s: mean ${result.loadDuring.mean.toFixed(2)}, max ${result.loadDuring.max.toFixed(2)} (the machine is shared).`,
    '',
    `Set-up: private PostgreSQL 15 and NATS (JetStream, file storage) on spare ports, the shared Redis under a namespace of its own; the four services from a fresh build (NODE_ENV=${o.env?.NODE_ENV ?? 'test'}), ${o.dispatchers} webhook-dispatcher replicas at a time; one account, one webhook on the types ${TYPES.join(' and ')}, whose receiver (a keep-alive HTTP server in the driver) verifies every signature with the standardwebhooks package. ${o.clients} clients write POST /contacts and POST /notes alternately${o.rate ? ` at ${o.rate} writes/s` : ' as fast as they are answered'}, each write with its own Idempotency-Key, retried with the same key until a 2xx. Meanwhile a chaos loop waits ${o.chaosEveryMs.map((v) => v / 1000).join(' to ')} s (random), then does the next fault of a round (every kind once per round, in a random order): ${o.kinds.map((k) => FAULT_TEXT[k]).join('; ')}; a server is down ${o.downMs.map((v) => v / 1000).join(' to ')} s (random) before it starts again.`,
    '',
    'Definitions: an event is **committed** when its crm.outbox row exists once the writes are over (every write answered 2xx must have one); **delivered** when the receiver got it (type, reason, record id) with a valid signature; **lost** = committed and not delivered by the drain deadline (plus any 2xx without an event); a **duplicate** is a delivery beyond the first with the same webhook-id.',
    '',
    '## Headline',
    '',
    '| | |',
    '|---|---|',
    `| **duplicate records** (records beyond the first made with one Idempotency-Key) | **${n(result.duplicateRecords)}** |`,
    `| records per key | ${Object.entries(result.recordsPerKey)
      .map(([records, keys]) => `${records}: ${n(keys)} keys`)
      .join(', ')}; ${n(result.keysWithoutRecord)} keys without a record |`,
    `| acknowledged writes (2xx) | ${n(result.apiConfirmed)} of ${n(result.eventsIssued)}; ${n(result.replayedRetries)} of them by a retry answered with an earlier try that had committed (Idempotent-Replayed) |`,
    `| events delivered | ${n(result.delivered)} |`,
    `| **lost** | **${n(result.lost)}** |`,
    '',
    '## Result',
    '',
    '| | |',
    '|---|---|',
    `| events written (requests issued) | ${n(result.eventsIssued)} |`,
    `| confirmed by the API (2xx) | ${n(result.apiConfirmed)} |`,
    `| committed (outbox rows) | ${n(result.committed)} |`,
    `| committed without a 2xx (a second record of one key, or a write given up) | ${n(result.committedBeyondConfirmed)} |`,
    `| delivered | ${n(result.delivered)} |`,
    `| **lost** | **${n(result.lost)}** |`,
    `| duplicates (deliveries beyond the first per webhook-id) | ${n(result.duplicates)} of ${n(result.deliveries)} deliveries |`,
    `| events delivered under two webhook-ids | ${n(result.repeatedEvents)} |`,
    `| deliveries of events not committed | ${n(result.unexpected)} |`,
    `| bad signatures | ${n(result.badSignatures)} |`,
    `| outbox rows parked by the relay | ${result.parked ?? 'n/a'} |`,
    `| writes refused (4xx) / given up | ${result.refused.length} / ${result.unconfirmed.length} |`,
    ...Object.entries(result.restarts).map(([k, v]) => `| faults: ${FAULTS[k]} | ${v} |`),
    `| PostgreSQL / NATS down in all | ${(result.downtimeMs.postgres / 1000).toFixed(1)} s / ${(result.downtimeMs.nats / 1000).toFixed(1)} s |`,
    `| API answers (all tries) | ${Object.entries(result.statuses)
      .map(([k, v]) => `${k}: ${n(v)}`)
      .join(', ')} |`,
    `| writes that needed more than one try | ${n(result.retriedToSuccess)} |`,
    `| write phase | ${result.writeSeconds.toFixed(1)} s, ${result.writesPerSecond.toFixed(0)} confirmed writes/s |`,
    `| deliveries (first to last new event) | ${result.deliveriesPerSecond.toFixed(0)} events/s |`,
    `| drain after the writes ended (to the last new event delivered) | ${result.drainSeconds.toFixed(1)} s |`,
    '',
  ];
  lines.push(
    '## Failed tries, by what the chaos loop was doing',
    '',
    '| answer, when | tries |',
    '|---|---|',
    ...Object.entries(result.failedTriesByPhase).map(([k, v]) => `| ${k} | ${n(v)} |`),
    '',
  );
  if (result.extraRecords.length > 0) {
    lines.push(
      `## Committed without a 2xx (first ${result.extraRecords.length})`,
      '',
      'Records no 2xx named: a write answered 5xx (or not at all) whose retries were given up, or a second record made with one Idempotency-Key (a duplicate, counted in the headline).',
      '',
      '```',
      ...result.extraRecords.map((e) => `${e.key} by write ${e.write}: failed tries ${JSON.stringify(e.tries)}`),
      '```',
      '',
    );
  }
  if (result.serverErrors.length > 0) {
    lines.push(
      `## Answers 500 (first ${result.serverErrors.length})`,
      '',
      '```',
      ...result.serverErrors.map((e) => `write ${e.i} ${e.pathname}, ${e.during}: ${e.answer}`),
      '```',
      '',
    );
  }
  if (result.lostDetail.length > 0) {
    lines.push(
      '## Lost events (first 20), where they are',
      '',
      '```',
      ...result.lostDetail.map((l) => `${l.key} ${JSON.stringify(l.where)}`),
      '```',
      '',
    );
  }
  const dir = path.join(root, 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${new Date().toISOString().slice(0, 10)}-webhooks-chaos.md`);
  writeFileSync(file, `${lines.join('\n')}\n`);
  return path.relative(root, file);
}

/** `npm run bench:webhooks -- --chaos [--events N ...]`: builds, runs 100,000 events by default, writes the report. */
export async function runChaosBench(args) {
  const log = (msg) => console.log(`[bench:webhooks --chaos] ${msg}`);
  if (!('no-build' in args)) build(log);
  const options = chaosOptions({ events: '100000', 'node-env': 'production', 'log-level': 'warn', ...args });
  const result = await runChaos(options, log);
  log(`report: ${writeChaosReport(result)}`);
  return result;
}

function build(log) {
  log('building (npm run build)');
  const r = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status !== 0) throw new Error('build failed');
}

// As a script: one run; the figures as JSON to --json (the e2e test reads them); exit 1 on any loss.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const args = parseArgs(process.argv.slice(2));
  (async () => {
    if (!('no-build' in args)) build((msg) => console.log(`[chaos] ${msg}`));
    const result = await runChaos(chaosOptions(args));
    if (args.json) writeFileSync(args.json, JSON.stringify(result, null, 2));
    process.exit(result.lost === 0 && result.badSignatures === 0 && result.duplicateRecords === 0 ? 0 : 1);
  })().catch((error) => {
    console.error(`[chaos] failed: ${error.stack ?? error.message}`);
    process.exit(2);
  });
}
