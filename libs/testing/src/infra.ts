import { randomBytes } from 'node:crypto';
import { createServer, Socket } from 'node:net';

/** Where the integration and e2e tiers find PostgreSQL, Redis and NATS. */
export interface TestInfra {
  databaseUrl: string;
  redisUrl: string;
  natsUrl: string;
}

export const LOCAL_DEFAULTS: TestInfra = {
  databaseUrl: 'postgres://postgres@127.0.0.1:5432/postgres',
  redisUrl: 'redis://127.0.0.1:6379',
  natsUrl: 'nats://127.0.0.1:4222',
};

/** The servers named by DATABASE_URL / REDIS_URL / NATS_URL, or the local defaults. */
export function resolveTestInfra(env: NodeJS.ProcessEnv = process.env): TestInfra {
  return {
    databaseUrl: env.DATABASE_URL || LOCAL_DEFAULTS.databaseUrl,
    redisUrl: env.REDIS_URL || LOCAL_DEFAULTS.redisUrl,
    natsUrl: env.NATS_URL || LOCAL_DEFAULTS.natsUrl,
  };
}

/** True when a TCP connection to the URL's host and port opens within the timeout. */
export function isReachable(url: string, defaultPort: number, timeoutMs = 1500): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = new Socket();
    // A probe never keeps the process alive (jest's main process runs it in the global setup).
    socket.unref();
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('error', () => done(false));
    socket.connect(Number(port) || defaultPort, hostname.replace(/^\[|\]$/g, ''), () => done(true));
  });
}

/** A TCP port that was free a moment ago (the OS picks it). */
export function getFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (address && typeof address === 'object' ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * A namespace no other test run uses: NATS subjects, queue groups and Redis keys are prefixed
 * with it, so parallel runs (and CI on a shared machine) never see each other's messages.
 */
export function uniqueNamespace(prefix = 't'): string {
  return `${prefix.toLowerCase().replace(/[^a-z0-9]/g, '')}${process.pid.toString(36)}${randomBytes(4).toString('hex')}`;
}
