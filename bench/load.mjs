#!/usr/bin/env node
// `npm run bench:load`: a mixed read/write load through the gateway's full production chain
// (authentication, limits, validation, NATS, crm-core, PostgreSQL) with autocannon for 60 s on a
// private system; reports throughput, latency p50/p99/p99.9, errors, and each service's memory
// before and after (heap growth bound: MEMORY_BOUND_MIB). Report in bench/results/.
//
//   npm run bench:load [-- --seconds 60 --connections 32]
import autocannon from 'autocannon';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { machineDescription, parseArgs, root, startSystem } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const SECONDS = Number(args.seconds ?? 60);
const CONNECTIONS = Number(args.connections ?? 32);
const MEMORY_BOUND_MIB = 64;
const log = (msg) => console.log(`[bench:load] ${msg}`);
let loggedError = false;
const ports = { gateway: 3410, auth: 3411, core: 3412, dispatcher: 3413 };

async function memory(urls) {
  const out = {};
  for (const [name, url] of Object.entries(urls)) {
    const text = await (await fetch(`${url}/metrics`)).text();
    const metric = (m) => Number(new RegExp(`^${m}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, 'm').exec(text)?.[1] ?? NaN) / 2 ** 20;
    out[name] = { rss: metric('process_resident_memory_bytes'), heap: metric('nodejs_heap_size_used_bytes') };
  }
  return out;
}

/** Names of created fields: unique across the warm-up and the measured run. */
let created = 0;

function mixedLoad(urls, headers, fieldId, seconds) {
  const json = { ...headers, 'content-type': 'application/json' };
  return autocannon({
    url: urls.gateway,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      { method: 'GET', path: `/api/v3/users/${headers.userId}`, headers },
      { method: 'GET', path: '/api/v3/custom_fields?per_page=10', headers },
      { method: 'GET', path: `/api/v3/custom_fields/${fieldId}`, headers },
      {
        method: 'POST',
        path: '/api/v3/custom_fields',
        headers: json,
        setupRequest: (req) => ({ ...req, body: JSON.stringify({ name: `load ${process.pid} ${(created += 1)}`, type: 'text' }) }),
        onResponse: (status, body) => {
          if (status >= 400 && !loggedError) {
            loggedError = true;
            log(`first failed write: ${status} ${body}`);
          }
        },
      },
    ],
  });
}

async function main() {
  const system = await startSystem({ ports, log });
  try {
    const account = await (
      await fetch(`${system.operatorUrl}/operator/accounts`, {
        method: 'POST',
        headers: system.operatorHeaders,
        body: JSON.stringify({
          name: 'Load',
          admin: { first_name: 'Load', last_name: 'Admin', email: `load-${Date.now()}@example.com`, password: 'load test password' },
        }),
      })
    ).json();
    const authorization = `Basic ${Buffer.from(`${account.user.id}:${account.user.api_key}`).toString('base64')}`;
    const headers = { authorization };
    const field = await (
      await fetch(`${system.urls.gateway}/api/v3/custom_fields`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Probe', type: 'number' }),
      })
    ).json();
    const fieldId = field.data.custom_field.id;
    log('warming up (5 s)');
    await mixedLoad(system.urls, { ...headers, userId: account.user.id }, fieldId, 5);
    const before = await memory(system.metricsUrls);
    log(`mixed load: ${CONNECTIONS} connections for ${SECONDS} s (GET user, list fields, get field, create field)`);
    const result = await mixedLoad(system.urls, { ...headers, userId: account.user.id }, fieldId, SECONDS);
    await new Promise((r) => setTimeout(r, 5000));
    const after = await memory(system.metricsUrls);

    const l = result.latency;
    const errors = result.errors + result.timeouts + result.non2xx;
    const rows = Object.keys(before).map((name) => {
      const growth = after[name].heap - before[name].heap;
      return { name, ...before[name], rssAfter: after[name].rss, heapAfter: after[name].heap, growth, ok: growth < MEMORY_BOUND_MIB };
    });
    const statuses = JSON.stringify(Object.fromEntries(Object.entries(result.statusCodeStats ?? {}).map(([code, v]) => [code, v.count])));
    log(
      `${Math.round(result.requests.average)} req/s, p50 ${l.p50} ms, p99 ${l.p99} ms, p99.9 ${l.p99_9} ms, errors ${errors} (non-2xx ${result.non2xx}, timeouts ${result.timeouts}), statuses ${statuses}`,
    );
    for (const r of rows)
      log(
        `${r.name}: RSS ${r.rss.toFixed(0)} -> ${r.rssAfter.toFixed(0)} MiB, heap ${r.heap.toFixed(1)} -> ${r.heapAfter.toFixed(1)} MiB (${r.ok ? 'within' : 'OVER'} the ${MEMORY_BOUND_MIB} MiB bound)`,
      );

    const report = [
      `# Load test ${new Date().toISOString()}`,
      '',
      `Machine: ${machineDescription()}. autocannon, ${CONNECTIONS} connections, ${SECONDS} s after a 5 s warm-up, one replica of each service with NODE_ENV=production and LOG_LEVEL=warn, load generator on the same machine. Requests cycle through GET /users/{id}, GET /custom_fields?per_page=10, GET /custom_fields/{id} and POST /custom_fields (a new field each time), all with HTTP Basic through the full gateway chain.`,
      '',
      '| requests | req/s | p50 ms | p99 ms | p99.9 ms | max ms | errors | non-2xx | timeouts | statuses |',
      '|---|---|---|---|---|---|---|---|---|---|',
      `| ${result.requests.total} | ${Math.round(result.requests.average)} | ${l.p50} | ${l.p99} | ${l.p99_9} | ${l.max} | ${result.errors} | ${result.non2xx} | ${result.timeouts} | ${statuses} |`,
      '',
      `Memory (MiB, from each service's /metrics; heap growth bound ${MEMORY_BOUND_MIB} MiB after a 5 s settle):`,
      '',
      '| service | RSS before | RSS after | heap before | heap after | heap growth | within bound |',
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) =>
          `| ${r.name} | ${r.rss.toFixed(0)} | ${r.rssAfter.toFixed(0)} | ${r.heap.toFixed(1)} | ${r.heapAfter.toFixed(1)} | ${r.growth.toFixed(1)} | ${r.ok ? 'yes' : 'NO'} |`,
      ),
      '',
    ].join('\n');
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    const file = path.join(root, 'bench/results', `${new Date().toISOString().slice(0, 10)}-load.md`);
    writeFileSync(file, report);
    log(`report written to ${path.relative(root, file)}`);
    if (errors > 0 || rows.some((r) => !r.ok)) process.exitCode = 1;
  } finally {
    await system.stop();
  }
}

main().catch((error) => {
  console.error(
    `[bench:load] failed: ${error.message}\n[bench:load] check that PostgreSQL, Redis and NATS run (npm start brings them up) and that ports 3410-3413 are free.`,
  );
  process.exit(1);
});
