import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getFreePort, isReachable } from './infra';

/**
 * A private PostgreSQL, Redis or NATS server on a spare port, for tests that stop and restart
 * their dependencies. The machine's shared servers are never touched.
 */
export interface PrivateServer {
  name: string;
  url: string;
  port: number;
  /** Starts the server (again); resolves once it accepts connections. */
  start(): Promise<void>;
  /** Stops the server (data on disk survives for PostgreSQL and NATS JetStream). */
  stop(): Promise<void>;
  /**
   * Stops it, waits `downMs`, starts it again; resolves once it accepts connections. With `crash`,
   * it is stopped the hard way first (SIGKILL; PostgreSQL: an immediate shutdown, so recovery runs at the start).
   */
  restart(downMs?: number, options?: { crash?: boolean }): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function asPostgresUser(command: string, args: string[]): [string, string[]] {
  // PostgreSQL refuses to run as root: run it as the postgres system user then.
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

async function waitFor(
  name: string,
  port: number,
  child: () => ChildProcess | undefined,
  ready: () => Promise<boolean> = async () => true,
  timeoutMs = 30_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const proc = child();
    if (proc && proc.exitCode !== null) throw new Error(`${name} exited with ${proc.exitCode} while starting`);
    if ((await isReachable(`tcp://127.0.0.1:${port}`, port, 500)) && (await ready())) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not accept connections on port ${port} within ${timeoutMs} ms`);
}

function managed(
  name: string,
  port: number,
  url: string,
  launch: () => ChildProcess,
  cleanup: () => void,
  requestStop: (proc: ChildProcess) => void = (proc) => proc.kill('SIGTERM'),
  requestCrash: (proc: ChildProcess) => void = (proc) => proc.kill('SIGKILL'),
  /** Past accepting TCP connections, whether it serves (PostgreSQL refuses sessions while it starts up or recovers). */
  ready?: () => Promise<boolean>,
): PrivateServer {
  let child: ChildProcess | undefined;
  const halt = async (how: (proc: ChildProcess) => void) => {
    const proc = child;
    child = undefined;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
    how(proc);
    const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  };
  const stop = () => halt(requestStop);
  const start = async () => {
    if (child && child.exitCode === null) return;
    child = launch();
    await waitFor(name, port, () => child, ready);
  };
  return {
    name,
    url,
    port,
    start,
    stop,
    restart: async (downMs = 0, options = {}) => {
      await halt(options.crash ? requestCrash : requestStop);
      if (downMs > 0) await new Promise((r) => setTimeout(r, downMs));
      await start();
    },
    destroy: async () => {
      await stop();
      cleanup();
    },
  };
}

export async function startPrivatePostgres(): Promise<PrivateServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'crm-pg-'));
  const data = path.join(dir, 'data');
  if (isRoot())
    chownSync(
      dir,
      Number(spawnSync('id', ['-u', 'postgres']).stdout.toString().trim()),
      Number(spawnSync('id', ['-g', 'postgres']).stdout.toString().trim()),
    );
  const [cmd, args] = asPostgresUser(path.join(PG_BIN, 'initdb'), ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const init = spawnSync(cmd, args, { encoding: 'utf8' });
  if (init.status !== 0 || !existsSync(data)) throw new Error(`initdb failed: ${init.stderr || init.stdout}`);
  const port = await getFreePort();
  const server = managed(
    'postgres',
    port,
    `postgres://postgres@127.0.0.1:${port}/postgres`,
    () => {
      const [c, a] = asPostgresUser(path.join(PG_BIN, 'postgres'), [
        '-D',
        data,
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        'fsync=off',
        '-c',
        'max_connections=200',
      ]);
      return spawn(c, a, { stdio: 'ignore' });
    },
    () => rmSync(dir, { recursive: true, force: true }),
    () => {
      // Fast shutdown (open sessions are terminated, as in a restart), via pg_ctl: a signal to
      // runuser would not reach the postmaster.
      const [c, a] = asPostgresUser(path.join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
      spawnSync(c, a, { stdio: 'ignore' });
    },
    () => {
      // Immediate shutdown: every process quits at once without a checkpoint, as in a crash.
      const [c, a] = asPostgresUser(path.join(PG_BIN, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop']);
      spawnSync(c, a, { stdio: 'ignore' });
    },
    // pg_isready exits 0 once the server accepts sessions (1 while it starts up or recovers).
    () =>
      new Promise<boolean>((resolve) =>
        spawn(path.join(PG_BIN, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' })
          .once('error', () => resolve(false))
          .once('exit', (code) => resolve(code === 0)),
      ),
  );
  await server.start();
  return server;
}

export interface PrivateRedisOptions {
  /** The lines of an ACL file (e.g. the services' users of deploy/redis/users.acl); without it the default user needs no password. */
  acl?: string;
}

export async function startPrivateRedis(options: PrivateRedisOptions = {}): Promise<PrivateServer> {
  const port = await getFreePort();
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  let dir: string | undefined;
  if (options.acl !== undefined) {
    dir = mkdtempSync(path.join(tmpdir(), 'crm-redis-'));
    writeFileSync(path.join(dir, 'users.acl'), options.acl);
    args.push('--aclfile', path.join(dir, 'users.acl'));
  }
  const server = managed(
    'redis',
    port,
    `redis://127.0.0.1:${port}`,
    () => spawn('redis-server', args, { stdio: 'ignore' }),
    () => (dir ? rmSync(dir, { recursive: true, force: true }) : undefined),
  );
  await server.start();
  return server;
}

export interface PrivateNatsOptions {
  /** A nats.conf to start with (e.g. the services' users and permissions); the flags still set address, port and JetStream. */
  config?: string;
  /** Environment of the server, e.g. the passwords the config reads as $VARIABLES. */
  env?: Record<string, string>;
}

export async function startPrivateNats(options: PrivateNatsOptions = {}): Promise<PrivateServer> {
  const dir = mkdtempSync(path.join(tmpdir(), 'crm-nats-'));
  const port = await getFreePort();
  const args = ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir];
  if (options.config !== undefined) {
    const file = path.join(dir, 'nats.conf');
    writeFileSync(file, options.config);
    args.unshift('-c', file);
  }
  const server = managed(
    'nats',
    port,
    `nats://127.0.0.1:${port}`,
    () => spawn('nats-server', args, { stdio: 'ignore', env: { ...process.env, ...options.env } }),
    () => rmSync(dir, { recursive: true, force: true }),
  );
  await server.start();
  return server;
}
