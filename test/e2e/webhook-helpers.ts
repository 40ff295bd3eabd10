import { REPO_ROOT, E2E_LOG_DIR, getFreePort, type ServicesHandle } from '@crm/testing';
import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

/** One request a test receiver got. */
export interface ReceivedHook {
  path: string;
  headers: Record<string, string>;
  body: string;
  json: { type: string; reason: string; timestamp: number; secretkey: string; data: Record<string, unknown> };
  at: number;
}

export type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/**
 * An independent webhook receiver on 127.0.0.1 (keep-alive, like a real one): records every
 * request; `answer` picks the reply from the path and how often this webhook-id was seen.
 */
export async function startReceiver(answer: (hook: ReceivedHook, seen: number) => Answer = () => ({ status: 200 })) {
  const received: ReceivedHook[] = [];
  const seen = new Map<string, number>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      let json: ReceivedHook['json'];
      try {
        json = JSON.parse(body);
      } catch {
        json = { type: '', reason: '', timestamp: 0, secretkey: '', data: {} };
      }
      const hook: ReceivedHook = { path: req.url ?? '', headers: req.headers as Record<string, string>, body, json, at: Date.now() };
      received.push(hook);
      const id = hook.headers['webhook-id'];
      seen.set(id, (seen.get(id) ?? 0) + 1);
      const a = answer(hook, seen.get(id)!);
      if (a !== 'hang') res.writeHead(a.status, a.headers).end();
    });
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    on: (p: string) => received.filter((h) => h.path === p),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export async function until<T>(
  what: string,
  check: () => Promise<T | undefined | false | null> | T | undefined | false | null,
  timeoutMs = 20_000,
  everyMs = 50,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

export interface ExtraDispatcher {
  port: number;
  /** Its METRICS_PORT (Prometheus /metrics). */
  metricsPort: number;
  pid: number;
  exited: Promise<number | string>;
  stop(signal?: NodeJS.Signals): Promise<number | string>;
}

/** Another webhook-dispatcher replica of a running system (same database, NATS and namespace). */
export async function spawnDispatcher(
  services: ServicesHandle,
  natsUrl: string,
  redisUrl: string,
  env: Record<string, string> = {},
): Promise<ExtraDispatcher> {
  const [port, metricsPort] = await Promise.all([getFreePort(), getFreePort()]);
  const log = createWriteStream(path.join(E2E_LOG_DIR, `${services.namespace}-webhook-dispatcher-extra-${port}.log`));
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'dist/apps/webhook-dispatcher/src/main.js')], {
    cwd: REPO_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: services.database.url,
      NATS_URL: natsUrl,
      REDIS_URL: redisUrl,
      CRM_NAMESPACE: services.namespace,
      // The dispatcher's own request key: it accepts only requests signed for it.
      CALLER_VERIFY_KEYS: services.callerKeys?.verifyKeys['webhook-dispatcher'] ?? '',
      HTTP_PORT: String(port),
      METRICS_PORT: String(metricsPort),
      WEBHOOK_ALLOW_PRIVATE: 'true',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log, { end: false });
  child.stderr?.pipe(log, { end: false });
  const exited = new Promise<number | string>((r) => child.once('exit', (code, signal) => r(code ?? signal ?? -1))).finally(() =>
    log.end(),
  );
  await until(
    `extra dispatcher on ${port} ready`,
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => null))?.status === 200,
    30_000,
    150,
  );
  return {
    port,
    metricsPort,
    pid: child.pid ?? -1,
    exited,
    stop: (signal: NodeJS.Signals = 'SIGTERM') => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** One sample of the Prometheus text exposition on METRICS_PORT `port` (sum over label sets matching `labels`). */
export async function metric(port: number, name: string, labels = ''): Promise<number | null> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text();
  const lines = text
    .split('\n')
    .filter((l) => l.startsWith(name) && (l[name.length] === ' ' || l[name.length] === '{') && l.includes(labels));
  if (lines.length === 0) return null;
  return lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
}
