// Makes sure .local/demo.env holds working demo credentials (used by scripts/up.sh).
//
// If the file exists and GET /api/v3/users/{id}.json with its credentials answers 200, it is kept
// (rewritten with the current OPERATOR_TOKEN and URLs). Otherwise a demo account is created via
// the auth-server's operator API: demo@example.com the first time, demo+<timestamp>@example.com
// when that email is taken or earlier credentials stopped working.
//
// Env: OPERATOR_TOKEN (required), PORT (gateway, 3000), AUTH_PORT (3001), OPERATOR_PORT (auth-server's
// internal operator API, 9470), DEMO_ENV_FILE (.local/demo.env).
// Messages go to stderr; exit code 0 on success, 1 with a message on failure.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const env = process.env;
const file = path.resolve(root, env.DEMO_ENV_FILE || '.local/demo.env');
const gatewayPort = env.PORT || '3000';
const authPort = env.AUTH_PORT || '3001';
const gatewayInternal = `http://127.0.0.1:${gatewayPort}/api/v3`;
const operatorInternal = `http://127.0.0.1:${env.OPERATOR_PORT || '9470'}`;
const publicBase = `http://localhost:${gatewayPort}/api/v3`;
const publicAuth = `http://localhost:${authPort}`;
const operatorToken = env.OPERATOR_TOKEN;

const log = (msg) => process.stderr.write(`[up] ${msg}\n`);
function fail(msg, hint) {
  log(`ERROR: ${msg}`);
  if (hint) log(`  -> ${hint}`);
  process.exit(1);
}

if (!operatorToken) fail('OPERATOR_TOKEN is not set');

function parseEnvFile(text) {
  const out = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const m = /^(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line);
    if (!m) continue;
    let v = m[2];
    if (v.length >= 2 && v.startsWith("'") && v.endsWith("'")) v = v.slice(1, -1).replaceAll(`'\\''`, "'");
    else if (v.length >= 2 && v.startsWith('"') && v.endsWith('"')) v = v.slice(1, -1);
    out[m[1]] = v;
  }
  return out;
}

const quote = (v) => (/^[A-Za-z0-9_.,:/@+=%-]*$/.test(v) ? v : `'${v.replaceAll("'", `'\\''`)}'`);

async function request(url, init = {}) {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(15000) });
    const text = await res.text();
    let body = null;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    return { status: res.status, body, text };
  } catch (e) {
    return { status: 0, body: null, text: String(e?.cause?.message || e?.message || e) };
  }
}

async function credentialsWork(userId, apiKey) {
  const auth = Buffer.from(`${userId}:${apiKey}`).toString('base64');
  const res = await request(`${gatewayInternal}/users/${encodeURIComponent(userId)}.json`, {
    headers: { Authorization: `Basic ${auth}`, Accept: 'application/json' },
  });
  return res;
}

async function createAccount(email, password) {
  return request(`${operatorInternal}/operator/accounts`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${operatorToken}`, 'Content-Type': 'application/json', Accept: 'application/json' },
    body: JSON.stringify({ name: 'Demo Company', admin: { first_name: 'Demo', last_name: 'Admin', email, password } }),
  });
}

async function save(values) {
  const lines = [
    '# Demo credentials for local development, written by scripts/up.sh (npm start). Not for production.',
    '# Usage: source .local/demo.env && curl -s -u "$CRM_USER_ID:$CRM_API_KEY" "$CRM_BASE_URL/users/$CRM_USER_ID.json"',
    ...Object.entries(values).map(([k, v]) => `${k}=${quote(String(v))}`),
  ];
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, `${lines.join('\n')}\n`, { mode: 0o600 });
  await rename(tmp, file);
}

let previous = null;
try {
  previous = parseEnvFile(await readFile(file, 'utf8'));
} catch (e) {
  if (e.code !== 'ENOENT') fail(`cannot read ${file}: ${e.message}`);
}

const common = { CRM_BASE_URL: publicBase, AUTH_URL: publicAuth, OPERATOR_URL: operatorInternal, OPERATOR_TOKEN: operatorToken };

if (previous?.CRM_USER_ID && previous?.CRM_API_KEY) {
  const res = await credentialsWork(previous.CRM_USER_ID, previous.CRM_API_KEY);
  if (res.status === 200) {
    log(`reusing the demo account in ${path.relative(root, file)} (user ${previous.CRM_USER_ID})`);
    const { CRM_USER_ID, CRM_API_KEY, CRM_DEMO_EMAIL, CRM_DEMO_PASSWORD } = previous;
    await save({
      CRM_USER_ID,
      CRM_API_KEY,
      ...common,
      ...(CRM_DEMO_EMAIL ? { CRM_DEMO_EMAIL } : {}),
      ...(CRM_DEMO_PASSWORD ? { CRM_DEMO_PASSWORD } : {}),
    });
    process.exit(0);
  }
  if (res.status === 0) fail(`the api-gateway does not answer at ${gatewayInternal}: ${res.text}`, 'check the api-gateway log lines above');
  log(
    `the saved demo credentials no longer work (GET /users/${previous.CRM_USER_ID}.json answered ${res.status}); creating a new demo account`,
  );
}

const password = `Demo-${randomBytes(12).toString('base64url')}`;
const emails = previous ? [`demo+${Date.now()}@example.com`] : ['demo@example.com', `demo+${Date.now()}@example.com`];
let created = null;
for (const email of emails) {
  const res = await createAccount(email, password);
  if (res.status === 201 && res.body?.user?.id && res.body?.user?.api_key) {
    created = { email, body: res.body };
    break;
  }
  if (res.status === 400 && res.body?.error_name === 'resource_already_exists') {
    log(`${email} already exists`);
    continue;
  }
  if (res.status === 0)
    fail(`the auth-server's operator API does not answer at ${operatorInternal}: ${res.text}`, 'check the auth-server log lines above');
  if (res.status === 401 || res.status === 403) {
    fail(
      `the operator API refused the OPERATOR_TOKEN (HTTP ${res.status})`,
      'the auth-server must run with the same OPERATOR_TOKEN (.local/secrets.env or your env)',
    );
  }
  fail(`creating the demo account failed: HTTP ${res.status} ${res.text.slice(0, 500)}`, 'check the auth-server log lines above');
}
if (!created) fail('could not find a free demo email address', 'delete .local/demo.env and retry');

const { user, account } = created.body;
await save({
  CRM_USER_ID: user.id,
  CRM_API_KEY: user.api_key,
  ...common,
  CRM_DEMO_EMAIL: created.email,
  CRM_DEMO_PASSWORD: password,
});
log(`created demo account ${account?.id ?? '?'} (${account?.name ?? 'Demo Company'}) with admin ${created.email}`);

const check = await credentialsWork(String(user.id), user.api_key);
if (check.status !== 200) {
  fail(
    `the new demo credentials do not work yet: GET /users/${user.id}.json answered ${check.status} ${check.text.slice(0, 300)}`,
    'check the api-gateway and auth-server log lines above',
  );
}
