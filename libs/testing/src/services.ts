// @crm/messaging's index loads the contracts, whose decorators need the Reflect metadata API (bench/chaos.mjs
// loads this file from dist/ without it).
import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { generateCallerKeys, type RpcConsumer } from '@crm/messaging';
import { createTestDatabase, type TestDatabase } from './database';
import { getFreePort, resolveTestInfra, uniqueNamespace, type TestInfra } from './infra';
import { deleteEventsStream } from './streams';

/** Repository root (libs/testing/src -> ../../..; one more from the build, dist/libs/testing/src, which the benchmarks load). */
const ABOVE_LIBS = path.resolve(__dirname, '../../..');
export const REPO_ROOT = path.basename(ABOVE_LIBS) === 'dist' ? path.dirname(ABOVE_LIBS) : ABOVE_LIBS;
export const E2E_LOG_DIR = path.join(REPO_ROOT, 'test-results', 'e2e-logs');

export type AppName = 'api-gateway' | 'auth-server' | 'crm-core' | 'webhook-dispatcher';
const MIGRATED_APPS: AppName[] = ['auth-server', 'crm-core', 'webhook-dispatcher'];

export interface ServiceProcess {
  app: AppName;
  /** Name in logs: the app, with "-<n>" for crm-core replicas. */
  name: string;
  port: number;
  /** The internal port of its Prometheus /metrics (METRICS_PORT). */
  metricsPort: number;
  pid: number;
  logFile: string;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited: Promise<number | string>;
  /** Sends the signal (SIGTERM by default) and waits for the exit. */
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

export interface ServicesHandle {
  /** http://127.0.0.1:<port> of the api-gateway (the API is under /api/v3). */
  gatewayUrl: string;
  /** http://127.0.0.1:<port> of the auth-server (also its issuer). */
  authUrl: string;
  /** Every api-gateway replica's URL (`gatewayReplicas`); the first is `gatewayUrl`. */
  gatewayUrls: string[];
  /** Every auth-server replica's URL (`authServerReplicas`); the first is `authUrl`, the issuer of them all. */
  authUrls: string[];
  /** http://127.0.0.1:<OPERATOR_PORT> of the first auth-server: the operator API (/operator/*), never on `authUrl`. */
  operatorUrl: string;
  /** The operator URL of each auth-server replica, in the order of `authUrls`. */
  operatorUrls: string[];
  operatorToken: string;
  /** The API_KEY_PEPPER the services were given (tests check it never reaches a log). */
  apiKeyPepper: string;
  /**
   * The keys generated for this run: CALLER_SIGNING_KEY of the gateway and the auth-server, and
   * each consumer's own CALLER_VERIFY_KEYS, derived from it (base64url of 32 bytes).
   */
  callerKeys?: { signingKey: string; verifyKeys: Record<RpcConsumer, string> };
  namespace: string;
  database: TestDatabase;
  processes: ServiceProcess[];
  /** SIGTERM to every process still running; resolves with each one's exit code; drops the database. */
  stopAll(): Promise<Array<{ name: string; code: number | string }>>;
  /**
   * Starts one more process of `app` with the same environment on free ports (e.g. a replacement
   * for one killed), adds it to `processes` (so stopAll stops it) and resolves once it is ready.
   */
  startProcess?(app: AppName, name: string): Promise<ServiceProcess>;
}

export interface StartServicesOptions {
  crmCoreReplicas?: number;
  /** API gateways (default 1); the n-th reads the keys of the n-th auth-server (round robin). */
  gatewayReplicas?: number;
  /** Auth-servers (default 1) sharing one issuer (the first one's URL), database and Redis. */
  authServerReplicas?: number;
  /** Extra environment for every service (e.g. ENABLE_TEST_CLOCK). */
  env?: Record<string, string>;
  /** Extra environment for every process of one app, over `env` (e.g. its own NATS_URL with its NATS user). */
  appEnv?: Partial<Record<AppName, Record<string, string>>>;
  /** Seconds to wait for each /readyz. */
  readyTimeoutSeconds?: number;
  /** Servers to use instead of the configured ones (e.g. private instances a test restarts). */
  infra?: Partial<TestInfra>;
  /** CRM_NAMESPACE (default: a new unique one), e.g. one a private NATS's permissions were written for. */
  namespace?: string;
  /**
   * Runs on the fresh database before the migrations (e.g. creating database roles), and may give
   * the migration processes (`migrateEnv`) and each app (`appEnv`, over the option's) their own
   * environment, such as a migrator's and each service's runtime DATABASE_URL.
   */
  prepareDatabase?: (
    database: TestDatabase,
  ) => Promise<{ migrateEnv?: Record<string, string>; appEnv?: Partial<Record<AppName, Record<string, string>>> }>;
}

function distMain(app: AppName): string {
  const main = path.join(REPO_ROOT, 'dist', 'apps', app, 'src', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} not found: run npm run build first (the e2e global setup does it)`);
  return main;
}

function tail(file: string, lines = 40): string {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

function runToExit(child: ChildProcess): Promise<number | string> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve(child.exitCode);
    if (child.signalCode !== null) return resolve(child.signalCode);
    child.once('exit', (code, signal) => resolve(code ?? signal ?? -1));
  });
}

async function waitReady(proc: ServiceProcess, timeoutSeconds: number): Promise<void> {
  const deadline = Date.now() + timeoutSeconds * 1000;
  let exited: number | string | undefined;
  void proc.exited.then((code) => (exited = code));
  let last = '';
  while (Date.now() < deadline) {
    if (exited !== undefined)
      throw new Error(`${proc.name} exited with ${exited} before it was ready; last log lines:\n${tail(proc.logFile)}`);
    try {
      const res = await fetch(`http://127.0.0.1:${proc.port}/readyz`, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  throw new Error(
    `${proc.name} not ready on port ${proc.port} after ${timeoutSeconds}s (last answer: ${last}); log ${proc.logFile}:\n${tail(proc.logFile)}`,
  );
}

/**
 * Starts the four services from dist/ as separate processes on free ports, against a private
 * database and a private NATS/Redis namespace: migrations first (as a deployment would), then the
 * services, then waits until every /readyz answers 200.
 */
export async function startServices(options: StartServicesOptions = {}): Promise<ServicesHandle> {
  const replicas = options.crmCoreReplicas ?? 1;
  const infra = { ...resolveTestInfra(), ...options.infra };
  const namespace = options.namespace ?? uniqueNamespace('e2e');
  const database = await createTestDatabase('e2e', infra.databaseUrl);
  let prepared: Awaited<ReturnType<NonNullable<StartServicesOptions['prepareDatabase']>>> = {};
  try {
    prepared = (await options.prepareDatabase?.(database)) ?? {};
  } catch (error) {
    await database.drop().catch(() => undefined);
    throw error;
  }
  // One batch for every port (HTTP, then METRICS_PORT of each process, then OPERATOR_PORT), so no two coincide.
  const ports = await Promise.all(Array.from({ length: 2 * (3 + replicas) + 1 }, () => getFreePort()));
  const [gatewayPort, authPort, dispatcherPort, ...crmPorts] = ports.slice(0, 3 + replicas);
  const metricsPorts = ports.slice(3 + replicas, 2 * (3 + replicas));
  const operatorPort = ports[2 * (3 + replicas)]!;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const authUrl = `http://127.0.0.1:${authPort}`;
  const operatorUrl = `http://127.0.0.1:${operatorPort}`;
  const operatorToken = randomBytes(24).toString('hex');
  const apiKeyPepper = randomBytes(24).toString('hex');
  const callerKeys = generateCallerKeys();
  /** As in a deployment: the signing key to the two senders only, and each consumer its own key. */
  const callerEnv = (app: AppName): Record<string, string> => ({
    ...(app === 'api-gateway' || app === 'auth-server' ? { CALLER_SIGNING_KEY: callerKeys.signingKey } : {}),
    ...(app === 'api-gateway' ? {} : { CALLER_VERIFY_KEYS: callerKeys.verifyKeys[app] }),
  });
  mkdirSync(E2E_LOG_DIR, { recursive: true });

  const baseEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    NODE_ENV: 'test',
    LOG_LEVEL: process.env.E2E_LOG_LEVEL ?? 'info',
    DATABASE_URL: database.url,
    REDIS_URL: infra.redisUrl,
    NATS_URL: infra.natsUrl,
    CRM_NAMESPACE: namespace,
    API_KEY_PEPPER: apiKeyPepper,
    OPERATOR_TOKEN: operatorToken,
    // A random key of the attachments' links, not the public development default (a test may set its own).
    STORAGE_SECRET: randomBytes(24).toString('hex'),
    WEBHOOK_ALLOW_PRIVATE: 'true',
    AUTH_ISSUER: authUrl,
    AUTH_URL: authUrl,
    PUBLIC_URL: gatewayUrl,
    PUBLIC_AUTH_URL: authUrl,
    REGION_BASE_URLS: `us=${gatewayUrl}/api/v3,eu=http://eu.localhost:${gatewayPort}/api/v3`,
    DEFAULT_REGION: 'us',
    PORT: String(gatewayPort),
    AUTH_PORT: String(authPort),
    OPERATOR_PORT: String(operatorPort),
    ...options.env,
  };

  const processes: ServiceProcess[] = [];
  const spawnApp = (
    app: AppName,
    name: string,
    port: number,
    metricsPort: number,
    args: string[] = [],
    envOverrides: Record<string, string> = {},
  ): ServiceProcess => {
    const logFile = path.join(E2E_LOG_DIR, `${namespace}-${name}${args.length ? `-${args.join('-')}` : ''}.log`);
    const out = createWriteStream(logFile);
    const env = {
      ...baseEnv,
      ...callerEnv(app),
      ...options.appEnv?.[app],
      ...prepared.appEnv?.[app],
      HTTP_PORT: String(port),
      METRICS_PORT: String(metricsPort),
      SERVICE_INSTANCE: name,
      ...envOverrides,
    };
    const child = spawn(process.execPath, [distMain(app), ...args], { cwd: REPO_ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout?.pipe(out, { end: false });
    child.stderr?.pipe(out, { end: false });
    const exited = runToExit(child).then((code) => {
      out.end();
      return code;
    });
    return {
      app,
      name,
      port,
      metricsPort,
      pid: child.pid ?? -1,
      logFile,
      exited,
      stop: (signal: NodeJS.Signals = 'SIGTERM') => {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        return exited;
      },
    };
  };

  const gatewayUrls = [gatewayUrl];
  const authUrls = [authUrl];
  const operatorUrls = [operatorUrl];
  /**
   * Gateways and auth-servers past the first, once the first ones listen (so no free port found
   * now can be theirs): one issuer (the first auth-server), the n-th gateway on the n-th auth-server.
   */
  const startReplicas = async (): Promise<void> => {
    const moreAuth = Math.max(0, (options.authServerReplicas ?? 1) - 1);
    const moreGateways = Math.max(0, (options.gatewayReplicas ?? 1) - 1);
    const free = await Promise.all(Array.from({ length: 3 * moreAuth + 2 * moreGateways }, () => getFreePort()));
    const started: ServiceProcess[] = [];
    for (let i = 0; i < moreAuth; i += 1) {
      const [port, metricsPort, opPort] = free.splice(0, 3);
      authUrls.push(`http://127.0.0.1:${port}`);
      operatorUrls.push(`http://127.0.0.1:${opPort}`);
      started.push(
        spawnApp('auth-server', `auth-server-${i + 2}`, port, metricsPort, [], { AUTH_PORT: String(port), OPERATOR_PORT: String(opPort) }),
      );
    }
    for (let i = 0; i < moreGateways; i += 1) {
      const [port, metricsPort] = free.splice(0, 2);
      gatewayUrls.push(`http://127.0.0.1:${port}`);
      const env = { PORT: String(port), AUTH_URL: authUrls[(i + 1) % authUrls.length] };
      started.push(spawnApp('api-gateway', `api-gateway-${i + 2}`, port, metricsPort, [], env));
    }
    processes.push(...started);
    await Promise.all(started.map((p) => waitReady(p, options.readyTimeoutSeconds ?? 60)));
  };

  try {
    for (const app of MIGRATED_APPS) {
      const migration = spawnApp(app, app, 0, 0, ['migrate'], prepared.migrateEnv);
      let timer: NodeJS.Timeout | undefined;
      const code = await Promise.race([migration.exited, new Promise<string>((r) => (timer = setTimeout(() => r('timeout'), 60_000)))]);
      clearTimeout(timer);
      if (code !== 0) {
        await migration.stop('SIGKILL');
        throw new Error(`migration of ${app} failed (${code}); log ${migration.logFile}:\n${tail(migration.logFile)}`);
      }
    }
    processes.push(spawnApp('auth-server', 'auth-server', authPort, metricsPorts[0]));
    crmPorts.forEach((port, i) =>
      processes.push(spawnApp('crm-core', replicas > 1 ? `crm-core-${i + 1}` : 'crm-core', port, metricsPorts[3 + i])),
    );
    processes.push(spawnApp('webhook-dispatcher', 'webhook-dispatcher', dispatcherPort, metricsPorts[2]));
    processes.push(spawnApp('api-gateway', 'api-gateway', gatewayPort, metricsPorts[1]));
    await Promise.all(processes.map((p) => waitReady(p, options.readyTimeoutSeconds ?? 60)));
    await startReplicas();
  } catch (error) {
    await Promise.all(processes.map((p) => p.stop('SIGKILL')));
    await database.drop().catch(() => undefined);
    throw error;
  }

  let stopped: Promise<Array<{ name: string; code: number | string }>> | undefined;
  return {
    gatewayUrl,
    authUrl,
    gatewayUrls,
    authUrls,
    operatorUrl,
    operatorUrls,
    operatorToken,
    apiKeyPepper,
    callerKeys,
    namespace,
    database,
    processes,
    startProcess: async (app, name) => {
      const [port, metricsPort, opPort] = await Promise.all([getFreePort(), getFreePort(), getFreePort()]);
      const own: Record<string, string> =
        app === 'api-gateway'
          ? { PORT: String(port) }
          : app === 'auth-server'
            ? { AUTH_PORT: String(port), OPERATOR_PORT: String(opPort) }
            : {};
      const proc = spawnApp(app, name, port, metricsPort, [], own);
      processes.push(proc);
      await waitReady(proc, options.readyTimeoutSeconds ?? 60);
      return proc;
    },
    stopAll: () =>
      (stopped ??= (async () => {
        const codes = await Promise.all(
          processes.map(async (p) => {
            const killer = setTimeout(() => void p.stop('SIGKILL'), 20_000);
            killer.unref();
            const code = await p.stop('SIGTERM');
            clearTimeout(killer);
            return { name: p.name, code };
          }),
        );
        await database.drop().catch(() => undefined);
        await deleteEventsStream(infra.natsUrl, namespace);
        return codes;
      })()),
  };
}

/** Password of the admins createAccount makes when none is given. */
export const DEFAULT_TEST_PASSWORD = 'correct horse battery staple';

export interface CreatedAccount {
  account: { id: string; name: string; region: string; base_url: string };
  user: { id: string; email: string; api_key: string };
}

/** POST {operator_url}/operator/accounts with a unique admin email; returns the 201 body. */
export async function createAccount(
  services: Pick<ServicesHandle, 'operatorUrl' | 'operatorToken'>,
  options: { name?: string; region?: string; password?: string; email?: string } = {},
): Promise<CreatedAccount> {
  const email = options.email ?? `admin-${randomBytes(6).toString('hex')}@example.test`;
  const res = await fetch(`${services.operatorUrl}/operator/accounts`, {
    method: 'POST',
    headers: { authorization: `Bearer ${services.operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      name: options.name ?? 'Acme Inc.',
      ...(options.region ? { region: options.region } : {}),
      admin: { first_name: 'Ada', last_name: 'Admin', email, password: options.password ?? DEFAULT_TEST_PASSWORD },
    }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /operator/accounts answered ${res.status}: ${text}`);
  return JSON.parse(text) as CreatedAccount;
}

/** POST /operator/accounts/{id}/users: another user of the account (a plain `user` by default). */
export async function createUser(
  services: Pick<ServicesHandle, 'operatorUrl' | 'operatorToken'>,
  account: CreatedAccount,
  options: { role?: 'admin' | 'user'; password?: string } = {},
): Promise<CreatedAccount> {
  const res = await fetch(`${services.operatorUrl}/operator/accounts/${account.account.id}/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${services.operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      first_name: 'Uma',
      last_name: 'User',
      email: `user-${randomBytes(6).toString('hex')}@example.test`,
      password: options.password ?? DEFAULT_TEST_PASSWORD,
      role: options.role ?? 'user',
    }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /operator/accounts/{id}/users answered ${res.status}: ${text}`);
  return { account: account.account, user: (JSON.parse(text) as Pick<CreatedAccount, 'user'>).user };
}

export function basicAuth(userId: string, apiKey: string): string {
  return `Basic ${Buffer.from(`${userId}:${apiKey}`).toString('base64')}`;
}

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/**
 * A small client for /api/v3 with an account's Basic credentials: api(services, account)('GET', '/users/1').
 * The body is parsed as JSON when it is JSON; `text` keeps the raw answer.
 */
export function api(services: Pick<ServicesHandle, 'gatewayUrl'>, account?: CreatedAccount) {
  return async <T = Record<string, unknown>>(
    method: string,
    pathname: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<ApiResponse<T>> => {
    const res = await fetch(`${services.gatewayUrl}/api/v3${pathname}`, {
      method,
      headers: {
        ...(account ? { authorization: basicAuth(account.user.id, account.user.api_key) } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    if ((res.headers.get('content-type') ?? '').includes('json')) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: res.status, headers: res.headers, body: parsed as T, text };
  };
}
