#!/usr/bin/env node
// `npm run bench`: starts the four services from a fresh build (own database and namespace, so a
// running development system is untouched), drives them through the full production chain
// (HTTP -> gateway authentication and validation -> NATS -> crm-core/auth-server -> PostgreSQL),
// prints requests per second and latency percentiles, and writes a report to bench/results/.
//
//   npm run bench [-- --seconds 10 --connections 32]
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { machineDescription, parseArgs, root, startSystem } from './lib.mjs';

const args = parseArgs(process.argv.slice(2));
const SECONDS = Number(args.seconds ?? 10);
const CONNECTIONS = Number(args.connections ?? 32);
const log = (msg) => console.log(`[bench] ${msg}`);

const ports = { gateway: 3400, auth: 3401, core: 3402, dispatcher: 3403 };
let gateway;
let auth;

const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });

function request(url, { method = 'GET', headers = {}, body } = {}) {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    if (body) req.end(body);
    else req.end();
  });
}

/** Closed loop: `connections` workers, each sending the next request when the last answered. */
async function load(name, makeRequest, { seconds = SECONDS, connections = CONNECTIONS } = {}) {
  const latencies = [];
  const statuses = new Map();
  const until = Date.now() + seconds * 1000;
  const started = process.hrtime.bigint();
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
  latencies.sort((a, b) => a - b);
  const pct = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))].toFixed(2);
  const row = {
    name,
    connections,
    requests: latencies.length,
    rps: Math.round(latencies.length / elapsed),
    p50: pct(50),
    p99: pct(99),
    statuses: Object.fromEntries(statuses),
  };
  log(`${name}: ${row.rps} req/s, p50 ${row.p50} ms, p99 ${row.p99} ms, statuses ${JSON.stringify(row.statuses)}`);
  return row;
}

async function authorize(client, email, password, scope = 'crm') {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  let cookies = new Map();
  const jar = (res) => {
    for (const c of res.headers.getSetCookie()) {
      const [kv] = c.split(';');
      const [name] = kv.split('=');
      cookies.set(name, kv);
    }
  };
  const go = async (url, form) => {
    const res = await fetch(new URL(url, auth), {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: [...cookies.values()].join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      body: form ? new URLSearchParams(form) : undefined,
    });
    jar(res);
    return res;
  };
  const redirect = 'http://localhost:9/cb';
  let res = await go(
    `/oauth/authorize?response_type=code&client_id=${client.client_id}&redirect_uri=${encodeURIComponent(redirect)}&scope=${scope}&state=s&code_challenge=${challenge}&code_challenge_method=S256`,
  );
  let page = await go(res.headers.get('location'));
  let html = await page.text();
  const csrf = () => /name="csrf" value="([^"]+)"/.exec(html)[1];
  const uid = () => /\/oauth\/interaction\/([^/"]+)\//.exec(html)[1];
  res = await go(`/oauth/interaction/${uid()}/login`, { csrf: csrf(), email, password });
  res = await go(res.headers.get('location'));
  page = await go(res.headers.get('location'));
  html = await page.text();
  res = await go(`/oauth/interaction/${uid()}/confirm`, { csrf: csrf() });
  res = await go(res.headers.get('location'));
  const code = new URL(res.headers.get('location')).searchParams.get('code');
  const tokenRes = await fetch(`${auth}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, code_verifier: verifier }),
  });
  return tokenRes.json();
}

async function main() {
  const system = await startSystem({ ports, log });
  ({ gateway, auth } = system.urls);
  try {
    const op = system.operatorHeaders;
    const password = 'bench password 1';
    const email = `bench-${Date.now()}@example.com`;
    const account = await (
      await fetch(`${system.operatorUrl}/operator/accounts`, {
        method: 'POST',
        headers: op,
        body: JSON.stringify({ name: 'Bench', admin: { first_name: 'Bench', last_name: 'Admin', email, password } }),
      })
    ).json();
    const client = await (
      await fetch(`${system.operatorUrl}/operator/clients`, {
        method: 'POST',
        headers: op,
        body: JSON.stringify({
          client_name: 'Bench',
          redirect_uris: ['http://localhost:9/cb'],
          scope: 'crm crm.readonly',
          token_endpoint_auth_method: 'client_secret_basic',
        }),
      })
    ).json();
    const tokens = await authorize(client, email, password);
    if (!tokens.access_token) throw new Error(`authorization flow failed: ${JSON.stringify(tokens)}`);
    const userUrl = `${gateway}/api/v3/users/${account.user.id}`;
    const basic = { authorization: `Basic ${Buffer.from(`${account.user.id}:${account.user.api_key}`).toString('base64')}` };
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    const clientAuth = {
      authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'content-type': 'application/x-www-form-urlencoded',
    };
    const refreshBody = new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token }).toString();

    log(`warming up, then ${SECONDS} s per scenario`);
    await load('warm-up', () => request(userUrl, { headers: basic }), { seconds: 2 });
    const rows = [
      await load('GET /users/{id} (API key, HTTP Basic)', () => request(userUrl, { headers: basic })),
      await load('GET /users/{id} (OAuth bearer JWT)', () => request(userUrl, { headers: bearer })),
      await load(
        'POST /oauth/token (refresh_token grant, confidential)',
        () => request(`${auth}/oauth/token`, { method: 'POST', headers: clientAuth, body: refreshBody }),
        { connections: 8 },
      ),
    ];
    const [basicRow, bearerRow] = rows;
    const overhead = ((basicRow.rps / bearerRow.rps - 1) * 100).toFixed(1);
    log(`bearer verification costs ${overhead}% of a request's throughput relative to HTTP Basic (target < 10%)`);

    const machine = machineDescription();
    const report = [
      `# Benchmark ${new Date().toISOString()}`,
      '',
      `Machine: ${machine}. Closed loop, keep-alive, ${SECONDS} s per scenario, services with NODE_ENV=production and LOG_LEVEL=warn, one replica each, load generator on the same machine.`,
      '',
      '| scenario | connections | requests | req/s | p50 ms | p99 ms | statuses |',
      '|---|---|---|---|---|---|---|',
      ...rows.map(
        (r) => `| ${r.name} | ${r.connections} | ${r.requests} | ${r.rps} | ${r.p50} | ${r.p99} | ${JSON.stringify(r.statuses)} |`,
      ),
      '',
      `Bearer vs Basic: ${overhead}% fewer requests per second with a bearer token (target under 10%).`,
      '',
    ].join('\n');
    mkdirSync(path.join(root, 'bench/results'), { recursive: true });
    const file = path.join(root, 'bench/results', `${new Date().toISOString().slice(0, 10)}-auth.md`);
    writeFileSync(file, report);
    log(`report written to ${path.relative(root, file)}`);
  } finally {
    await system.stop();
    agent.destroy();
  }
}

main().catch((error) => {
  console.error(
    `[bench] failed: ${error.message}\n[bench] check that PostgreSQL, Redis and NATS run (npm start brings them up) and that ports 3400-3403 are free.`,
  );
  process.exit(1);
});
