import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { getFreePort } from './infra';

/**
 * A private PostgreSQL primary and one streaming replica of it, on spare loopback ports, for tests
 * and benchmarks that read from a replica (docs/decisions.md "Reads from a replica"). The machine's
 * shared PostgreSQL is never touched.
 *
 * How it is made: initdb of the primary (trust authentication, `wal_level=replica`), started; then
 * `pg_basebackup -R -X stream` from it into the replica's directory (-R writes standby.signal and
 * primary_conninfo), started as a hot standby that streams the primary's WAL. As root, every
 * PostgreSQL program runs as the postgres system user (PostgreSQL refuses root), as in
 * private-servers.ts.
 *
 * - `primaryUrl`, `replicaUrl`: postgres://postgres@127.0.0.1:<port>/<database> (the `database`
 *   option, default `postgres`; a database created on the primary appears on the replica).
 * - `stopReplica()` / `startReplica()`: a fast shutdown of the replica (its sessions are cut, new
 *   connections refused), and a start that resolves once it accepts sessions again (it resumes
 *   streaming where it stopped).
 * - `pauseReplay()` / `resumeReplay()`: pg_wal_replay_pause() / pg_wal_replay_resume() on the
 *   replica: it keeps answering queries and receiving WAL but applies none, so it falls behind the
 *   primary (pauseReplay resolves once replay is paused).
 * - `replayLsn()`: the replica's pg_last_wal_replay_lsn(); `waitForReplay(lsn?)` waits until it
 *   reaches `lsn` (default: the primary's pg_current_wal_lsn() now).
 * - `pids()`: each server's postmaster pid (its backends are its children), for CPU per server
 *   from /proc (bench/replica.mjs).
 * - `destroy()`: stops both and removes their files.
 */
export interface PostgresPrimaryWithReplica {
  primaryUrl: string;
  replicaUrl: string;
  primaryPort: number;
  replicaPort: number;
  stopReplica(): Promise<void>;
  startReplica(): Promise<void>;
  pauseReplay(): Promise<void>;
  resumeReplay(): Promise<void>;
  replayLsn(): Promise<string | null>;
  waitForReplay(lsn?: string, timeoutMs?: number): Promise<void>;
  pids(): { primary: number | undefined; replica: number | undefined };
  destroy(): Promise<void>;
}

export interface PrimaryWithReplicaOptions {
  /** The database the URLs name (created on the primary when not `postgres`). */
  database?: string;
  /** Extra server settings for both (`-c name=value`), e.g. { shared_preload_libraries: 'pg_stat_statements' }. */
  settings?: Record<string, string>;
}

const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function asPostgresUser(command: string, args: string[]): [string, string[]] {
  return isRoot() ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

function runAsPostgres(command: string, args: string[]): void {
  const [c, a] = asPostgresUser(path.join(PG_BIN, command), args);
  const result = spawnSync(c, a, { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`${command} failed: ${result.stderr || result.stdout}`);
}

function ownedByPostgres(dir: string): void {
  if (!isRoot()) return;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres']).stdout.toString().trim());
  chownSync(dir, id('-u'), id('-g'));
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One PostgreSQL server of the pair: its data directory, port and process. */
class Server {
  private child: ChildProcess | undefined;

  constructor(
    readonly name: string,
    readonly dir: string,
    readonly port: number,
    private readonly settings: Record<string, string>,
  ) {}

  get data(): string {
    return path.join(this.dir, 'data');
  }

  url(database = 'postgres'): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) return;
    const flags = ['-D', this.data, '-p', String(this.port), '-k', this.dir, '-c', 'listen_addresses=127.0.0.1'];
    for (const [name, value] of Object.entries({ fsync: 'off', max_connections: '200', ...this.settings }))
      flags.push('-c', `${name}=${value}`);
    const [c, a] = asPostgresUser(path.join(PG_BIN, 'postgres'), flags);
    const child = spawn(c, a, { stdio: 'ignore' });
    this.child = child;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited with ${child.exitCode} while starting`);
      if (await this.ready()) return;
      await sleep(100);
    }
    throw new Error(`${this.name} did not accept sessions on port ${this.port} within 60 s`);
  }

  /** Fast shutdown via pg_ctl (a signal to runuser would not reach the postmaster). */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const [c, a] = asPostgresUser(path.join(PG_BIN, 'pg_ctl'), ['-D', this.data, '-m', 'fast', '-w', 'stop']);
    spawnSync(c, a, { stdio: 'ignore' });
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    await exited;
    clearTimeout(timer);
  }

  pid(): number | undefined {
    try {
      return Number(readFileSync(path.join(this.data, 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined;
    } catch {
      return undefined;
    }
  }

  /** pg_isready: 0 once the server accepts sessions (a standby accepts them once consistent). */
  private ready(): Promise<boolean> {
    return new Promise<boolean>((resolve) =>
      spawn(path.join(PG_BIN, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(this.port)], { stdio: 'ignore' })
        .once('error', () => resolve(false))
        .once('exit', (code) => resolve(code === 0)),
    );
  }
}

async function query<T>(url: string, text: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(text)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Starts a private primary and a streaming replica of it (see {@link PostgresPrimaryWithReplica}). */
export async function startPostgresPrimaryWithReplica(options: PrimaryWithReplicaOptions = {}): Promise<PostgresPrimaryWithReplica> {
  const database = options.database ?? 'postgres';
  const settings = options.settings ?? {};
  const made: string[] = [];
  const newDir = (prefix: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    made.push(dir);
    ownedByPostgres(dir);
    return dir;
  };
  const primary = new Server('primary', newDir('crm-pg-primary-'), await getFreePort(), {
    wal_level: 'replica',
    max_wal_senders: '5',
    ...settings,
  });
  let replica: Server | undefined;
  try {
    runAsPostgres('initdb', ['-D', primary.data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
    if (!existsSync(primary.data)) throw new Error('initdb made no data directory');
    await primary.start();
    if (database !== 'postgres') await query(primary.url(), `CREATE DATABASE "${database.replace(/"/g, '""')}"`);
    replica = new Server('replica', newDir('crm-pg-replica-'), await getFreePort(), { hot_standby: 'on', ...settings });
    // -R: standby.signal and primary_conninfo; -X stream: the WAL written during the copy comes with it.
    runAsPostgres('pg_basebackup', [
      '-h',
      '127.0.0.1',
      '-p',
      String(primary.port),
      '-U',
      'postgres',
      '-D',
      replica.data,
      '-R',
      '-X',
      'stream',
      '--checkpoint=fast',
      '--no-sync',
    ]);
    await replica.start();
  } catch (error) {
    await replica?.stop().catch(() => undefined);
    await primary.stop().catch(() => undefined);
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const standby = replica;
  const replicaAdmin = () => standby.url();
  const replayLsn = async () =>
    (await query<{ lsn: string | null }>(replicaAdmin(), 'SELECT pg_last_wal_replay_lsn()::text AS lsn'))[0].lsn;
  const pair: PostgresPrimaryWithReplica = {
    primaryUrl: primary.url(database),
    replicaUrl: standby.url(database),
    primaryPort: primary.port,
    replicaPort: standby.port,
    stopReplica: () => standby.stop(),
    startReplica: () => standby.start(),
    pauseReplay: async () => {
      await query(replicaAdmin(), 'SELECT pg_wal_replay_pause()');
      // pg_wal_replay_pause only asks; replay stops at the next record boundary.
      for (let i = 0; i < 200; i += 1) {
        const [{ state }] = await query<{ state: string }>(replicaAdmin(), 'SELECT pg_get_wal_replay_pause_state() AS state');
        if (state === 'paused') return;
        await sleep(25);
      }
      throw new Error('replay did not pause within 5 s');
    },
    resumeReplay: async () => {
      await query(replicaAdmin(), 'SELECT pg_wal_replay_resume()');
    },
    replayLsn,
    waitForReplay: async (lsn, timeoutMs = 30_000) => {
      const target = lsn ?? (await query<{ lsn: string }>(primary.url(), 'SELECT pg_current_wal_lsn()::text AS lsn'))[0].lsn;
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        const [{ behind }] = await query<{ behind: boolean | null }>(
          replicaAdmin(),
          `SELECT pg_last_wal_replay_lsn() < '${target.replace(/[^0-9A-Fa-f/]/g, '')}'::pg_lsn AS behind`,
        );
        if (behind === false) return;
        await sleep(20);
      }
      throw new Error(`the replica did not replay up to ${target} within ${timeoutMs} ms`);
    },
    pids: () => ({ primary: primary.pid(), replica: standby.pid() }),
    destroy: async () => {
      await standby.stop();
      await primary.stop();
      for (const dir of made) rmSync(dir, { recursive: true, force: true });
    },
  };
  return pair;
}
