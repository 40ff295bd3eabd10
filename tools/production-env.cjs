// What `NODE_ENV=production npm start` needs from the environment (README "Production"): npm start
// generates the development secrets, never production ones (docs/decisions.md "Production start"),
// so in production it refuses to start, naming every variable that is missing or invalid at once.
// No dependencies and plain syntax: scripts/up.sh runs it on whatever `node` there is, before the
// install (`node tools/production-env.cjs` prints the problems and exits 1); tools/up.mjs requires it.
'use strict';

/** The development default the storage settings refuse in production (libs/storage storage.settings.ts). */
const DEV_STORAGE_SECRET = 'development-only-storage-secret-change-me';

/** 32 bytes as base64 or base64url (libs/messaging rpc-signature.ts parseKey). */
function isSigningKey(value) {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return false;
  return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64').length === 32;
}

/**
 * Each variable: what it is, how to make one, and its check (undefined when the value is fine).
 * The order is the README's.
 */
const PRODUCTION_VARIABLES = [
  {
    name: 'DATABASE_URL',
    what: 'PostgreSQL of the three schemas',
    example: 'postgres://crm:PASSWORD@db.internal:5432/crm',
    check: (v) => (/^postgres(ql)?:\/\/.+/.test(v) ? undefined : 'must look like postgres://user:password@host:5432/db'),
  },
  {
    name: 'REDIS_URL',
    what: 'Redis of the gateway and the auth-server',
    example: 'redis://:PASSWORD@redis.internal:6379',
    check: (v) => (/^rediss?:\/\/.+/.test(v) ? undefined : 'must look like redis://host:6379 (rediss:// for TLS)'),
  },
  {
    name: 'NATS_URL',
    what: 'NATS with JetStream',
    example: 'nats://nats.internal:4222',
    check: (v) => (/^nats:\/\/.+/.test(v) ? undefined : 'must look like nats://host:4222'),
  },
  {
    name: 'API_KEY_PEPPER',
    what: 'HMAC key of the API keys; changing it invalidates every API key',
    example: '"$(openssl rand -base64 36)"',
    check: (v) => (v.length >= 16 ? undefined : `must be at least 16 characters (it has ${v.length})`),
  },
  {
    name: 'STORAGE_SECRET',
    what: "HMAC key of the attachments' download links and upload forms",
    example: '"$(openssl rand -base64 36)"',
    check: (v) =>
      v === DEV_STORAGE_SECRET
        ? 'must not be the development default'
        : v.length >= 16
          ? undefined
          : `must be at least 16 characters (it has ${v.length})`,
  },
  {
    name: 'CALLER_SIGNING_KEY',
    what: 'the secret that signs every NATS request',
    example: '"$(openssl rand -base64 32)"',
    check: (v) => (isSigningKey(v) ? undefined : 'must be 32 bytes in base64 or base64url (e.g. openssl rand -base64 32)'),
  },
  {
    name: 'OPERATOR_TOKEN',
    what: 'bearer token of the operator API, which creates the demo account',
    example: '"$(openssl rand -base64 36)"',
    check: (v) => (v.length >= 32 ? undefined : `must be at least 32 characters (it has ${v.length})`),
  },
];

/** Every problem of `env` for a production start: [{ name, problem }], empty when it may start. */
function productionProblems(env) {
  const problems = [];
  for (const variable of PRODUCTION_VARIABLES) {
    const value = env[variable.name];
    if (value === undefined || value === '') problems.push({ name: variable.name, problem: 'not set' });
    else {
      const problem = variable.check(value);
      if (problem) problems.push({ name: variable.name, problem });
    }
  }
  return problems;
}

/** The message and the hint lines that name every problem, with an example of each variable. */
function describeProblems(problems) {
  const names = problems.map((p) => p.name);
  return {
    message: `NODE_ENV=production: ${names.join(', ')} ${names.length === 1 ? 'is' : 'are'} missing or invalid; npm start generates no production secrets`,
    hints: [
      ...problems.map((p) => {
        const variable = PRODUCTION_VARIABLES.find((v) => v.name === p.name);
        return `${p.name} (${variable.what}): ${p.problem}; e.g. export ${p.name}=${variable.example}`;
      }),
      'README "Production" lists them; set all of them, then NODE_ENV=production npm start again',
    ],
  };
}

module.exports = { DEV_STORAGE_SECRET, PRODUCTION_VARIABLES, productionProblems, describeProblems, isSigningKey };

if (require.main === module) {
  const problems = productionProblems(process.env);
  if (problems.length > 0) {
    const { message, hints } = describeProblems(problems);
    process.stderr.write(`[up] ERROR: ${message}\n${hints.map((h) => `[up]   -> ${h}\n`).join('')}`);
    process.exit(1);
  }
}
