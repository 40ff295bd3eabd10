import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { getFreePort, isReachable } from './infra';

/**
 * A private Redis Cluster for tests: `primaries` primaries, each with `replicasPerPrimary`
 * replicas, on spare loopback ports (client and cluster-bus ports both picked free). The
 * machine's shared Redis is never touched. Nothing is persisted: a restarted node comes back
 * empty and resyncs from its primary.
 *
 *   const cluster = await startRedisCluster();               // 3 primaries + 3 replicas
 *   const client = createRedis(cluster.seedUrl(), logger, { cluster: true });
 *   const { killed, promoted } = await cluster.killPrimaryOf('crm:gw:rate:{u1}:1'); // SIGKILL + failover
 *   await cluster.restart(killed.port);                       // rejoins as a replica
 *   await cluster.destroy();
 *
 * With `acl` (the lines of an ACL file, e.g. {@link deployRedisAcl}), every node loads it; the
 * helper adds its own admin user for its commands and for replication (`masteruser`), so
 * `user default off` is fine.
 */
export interface RedisClusterOptions {
  /** Default 3 (the least a cluster can fail over with: a majority of primaries must vote). */
  primaries?: number;
  /** Default 1. */
  replicasPerPrimary?: number;
  /** The lines of an ACL file every node loads; without it the default user needs no password. */
  acl?: string;
  /** cluster-node-timeout: how long a silent primary takes to be failed over. Default 2000 ms. */
  nodeTimeoutMs?: number;
}

export interface RedisClusterNode {
  port: number;
  /** The node's role now ('down': killed or stopped, not restarted). */
  role: 'primary' | 'replica' | 'down';
  /** The redis-server process id while it runs. */
  pid: number | undefined;
  /** The cluster node id (40 hex). */
  id: string;
  /** For a replica: the node id of its primary. */
  primaryId?: string;
}

export interface RedisCluster {
  /**
   * Every node as a comma-separated list of redis:// URLs, with the user and password in each
   * (what REDIS_URL takes with REDIS_CLUSTER=true).
   */
  seedUrl(user?: string, password?: string): string;
  /** The nodes and their roles as the cluster reports them now. */
  nodes(): Promise<RedisClusterNode[]>;
  /** The primary that serves a key (or a slot number) now. */
  primaryOf(keyOrSlot: string | number): Promise<RedisClusterNode>;
  /**
   * SIGKILLs the primary that serves the key or slot, then waits until one of its replicas is
   * promoted and every node still up reports `cluster_state:ok`.
   */
  killPrimaryOf(keyOrSlot: string | number, timeoutMs?: number): Promise<{ killed: RedisClusterNode; promoted: RedisClusterNode }>;
  /** Starts a killed or stopped node again and waits until the cluster is healthy with it. */
  restart(port: number, timeoutMs?: number): Promise<void>;
  /** Resolves once every running node reports `cluster_state:ok` and every replica is in sync. */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Stops every node (SIGTERM); files stay until {@link destroy}. */
  stop(): Promise<void>;
  /** Stops every node and removes their files. */
  destroy(): Promise<void>;
}

/** deploy/redis/users.acl for `namespace` (key patterns ~crm:... become ~namespace:...), with a password per user. */
export function deployRedisAcl(repoRoot: string, namespace: string, passwords: Record<string, string>): string {
  return readFileSync(path.join(repoRoot, 'deploy', 'redis', 'users.acl'), 'utf8')
    .split('\n')
    .map((line) => line.replace('>REPLACE_ME', `>${passwords[line.split(' ')[1]!] ?? randomBytes(12).toString('hex')}`))
    .map((line) => line.replace(/([~&])crm:/g, `$1${namespace}:`))
    .join('\n');
}

const ADMIN = 'crm-test-cluster-admin';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface NodeProcess {
  port: number;
  busPort: number;
  dir: string;
  child: ChildProcess | undefined;
}

function parseClusterNodes(
  text: string,
): Array<{ id: string; port: number; flags: string[]; primaryId?: string; slots: Array<[number, number]> }> {
  return text
    .trim()
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => {
      const [id, address, flags, primaryId, , , , , ...slots] = line.split(' ');
      const port = Number(address!.split('@')[0]!.split(':').pop());
      return {
        id: id!,
        port,
        flags: flags!.split(','),
        primaryId: primaryId === '-' ? undefined : primaryId,
        slots: slots
          .filter((s) => !s.startsWith('['))
          .map((s) => {
            const [from, to] = s.split('-').map(Number);
            return [from!, to ?? from!] as [number, number];
          }),
      };
    });
}

export async function startRedisCluster(options: RedisClusterOptions = {}): Promise<RedisCluster> {
  const primaries = options.primaries ?? 3;
  const replicasPerPrimary = options.replicasPerPrimary ?? 1;
  const nodeTimeoutMs = options.nodeTimeoutMs ?? 2000;
  if (primaries < 3) throw new Error('a Redis Cluster that fails over needs at least 3 primaries');
  const root = mkdtempSync(path.join(tmpdir(), 'crm-redis-cluster-'));
  const adminPassword = randomBytes(16).toString('hex');
  const withAcl = options.acl !== undefined;
  if (withAcl) writeFileSync(path.join(root, 'users.acl'), `${options.acl!.trim()}\nuser ${ADMIN} on >${adminPassword} ~* &* +@all\n`);

  const procs: NodeProcess[] = [];
  const count = primaries * (1 + replicasPerPrimary);
  const taken = new Set<number>();
  const freePort = async () => {
    for (;;) {
      const port = await getFreePort();
      if (!taken.has(port)) {
        taken.add(port);
        return port;
      }
    }
  };
  for (let i = 0; i < count; i += 1) {
    const port = await freePort();
    const busPort = await freePort();
    const dir = path.join(root, `node-${port}`);
    mkdirSync(dir);
    procs.push({ port, busPort, dir, child: undefined });
  }

  const admin = (port: number) =>
    new Redis({
      host: '127.0.0.1',
      port,
      ...(withAcl ? { username: ADMIN, password: adminPassword } : {}),
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      enableOfflineQueue: true,
      retryStrategy: () => null,
      connectTimeout: 1000,
      commandTimeout: 2000,
    });
  /** One command on one node; null if the node does not answer. */
  const ask = async (port: number, ...args: string[]): Promise<string | null> => {
    const client = admin(port);
    client.on('error', () => undefined);
    try {
      await client.connect();
      return String(await client.call(args[0]!, ...args.slice(1)));
    } catch {
      return null;
    } finally {
      client.disconnect();
    }
  };

  const launch = async (proc: NodeProcess) => {
    const args = [
      '--port',
      String(proc.port),
      '--cluster-port',
      String(proc.busPort),
      '--bind',
      '127.0.0.1',
      '--dir',
      proc.dir,
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      path.join(proc.dir, 'nodes.conf'),
      '--cluster-node-timeout',
      String(nodeTimeoutMs),
      // A replica fails over however long it was cut off (tests kill and restart at will).
      '--cluster-replica-validity-factor',
      '0',
      '--save',
      '',
      '--appendonly',
      'no',
      ...(withAcl ? ['--aclfile', path.join(root, 'users.acl'), '--masteruser', ADMIN, '--masterauth', adminPassword] : []),
    ];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    proc.child = child;
    const deadline = Date.now() + 15_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`redis-server on port ${proc.port} exited with ${child.exitCode} while starting`);
      if (await isReachable(`tcp://127.0.0.1:${proc.port}`, proc.port, 500)) return;
      await sleep(50);
    }
    throw new Error(`redis-server on port ${proc.port} did not accept connections within 15 s`);
  };

  const halt = async (proc: NodeProcess, signal: NodeJS.Signals) => {
    const child = proc.child;
    proc.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill(signal);
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const running = () => procs.filter((p) => p.child && p.child.exitCode === null && p.child.signalCode === null);

  const topology = async () => {
    for (const proc of running()) {
      const text = await ask(proc.port, 'CLUSTER', 'NODES');
      if (text) return parseClusterNodes(text);
    }
    throw new Error('no node of the Redis Cluster answers');
  };

  const nodes = async (): Promise<RedisClusterNode[]> => {
    const known = await topology();
    return procs.map((proc) => {
      const entry = known.find((n) => n.port === proc.port);
      const up = running().includes(proc);
      const primary = entry?.flags.includes('master') ?? false;
      return {
        port: proc.port,
        role: !up || !entry || entry.flags.includes('fail') ? 'down' : primary ? 'primary' : 'replica',
        pid: up ? proc.child!.pid : undefined,
        id: entry?.id ?? '',
        primaryId: entry?.primaryId,
      };
    });
  };

  const slotOf = async (keyOrSlot: string | number): Promise<number> => {
    if (typeof keyOrSlot === 'number') return keyOrSlot;
    const answer = await ask(running()[0]!.port, 'CLUSTER', 'KEYSLOT', keyOrSlot);
    if (answer === null) throw new Error('the Redis Cluster did not answer CLUSTER KEYSLOT');
    return Number(answer);
  };

  const primaryOf = async (keyOrSlot: string | number): Promise<RedisClusterNode> => {
    const slot = await slotOf(keyOrSlot);
    const known = await topology();
    const owner = known.find(
      (n) => n.flags.includes('master') && !n.flags.includes('fail') && n.slots.some(([a, b]) => slot >= a && slot <= b),
    );
    if (!owner) throw new Error(`no primary serves slot ${slot} now`);
    return (await nodes()).find((n) => n.port === owner.port)!;
  };

  const healthyNow = async (): Promise<boolean> => {
    const up = running();
    for (const proc of up) {
      const info = await ask(proc.port, 'CLUSTER', 'INFO');
      if (!info || !/cluster_state:ok/.test(info)) return false;
    }
    const known = await topology();
    for (const proc of up) {
      const entry = known.find((n) => n.port === proc.port);
      if (!entry || entry.flags.includes('fail') || entry.flags.includes('fail?')) return false;
      if (entry.flags.includes('slave')) {
        const replication = await ask(proc.port, 'INFO', 'replication');
        if (!replication || !/master_link_status:up/.test(replication)) return false;
      }
    }
    // Every running node sees every other running node as healthy, and all agree on who is a
    // primary (a restarted old primary first claims its slots, then learns it was replaced).
    const roles = new Set<string>();
    for (const proc of up) {
      const text = await ask(proc.port, 'CLUSTER', 'NODES');
      if (!text) return false;
      const view = parseClusterNodes(text);
      for (const other of up) {
        const entry = view.find((n) => n.port === other.port);
        if (!entry || entry.flags.some((f) => f === 'fail' || f === 'fail?' || f === 'handshake' || f === 'noaddr')) return false;
      }
      roles.add(
        up
          .map((other) => `${other.port}:${view.find((n) => n.port === other.port)!.flags.includes('master') ? 'primary' : 'replica'}`)
          .join(','),
      );
    }
    return roles.size === 1;
  };

  const waitHealthy = async (timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (await healthyNow()) return;
      await sleep(100);
    }
    throw new Error(`the Redis Cluster was not healthy within ${timeoutMs} ms: ${JSON.stringify(await nodes().catch(() => []))}`);
  };

  const destroyAll = async () => {
    await Promise.all(procs.map((p) => halt(p, 'SIGTERM')));
    rmSync(root, { recursive: true, force: true });
  };

  try {
    for (const proc of procs) {
      // A port picked free may be taken by another process before redis-server binds it: pick again.
      for (let attempt = 1; ; attempt += 1) {
        try {
          await launch(proc);
          break;
        } catch (error) {
          if (attempt >= 3) throw error;
          proc.port = await freePort();
          proc.busPort = await freePort();
        }
      }
    }
    const create = spawnSync(
      'redis-cli',
      [
        ...(withAcl ? ['--user', ADMIN, '--pass', adminPassword, '--no-auth-warning'] : []),
        '--cluster',
        'create',
        ...procs.map((p) => `127.0.0.1:${p.port}`),
        '--cluster-replicas',
        String(replicasPerPrimary),
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: 60_000 },
    );
    if (create.status !== 0) throw new Error(`redis-cli --cluster create failed: ${create.stderr || create.stdout}`);
    await waitHealthy(60_000);
    // Every primary has its replicas attached and in sync (failover needs them).
    const deadline = Date.now() + 30_000;
    for (;;) {
      const known = await nodes();
      const ready = known
        .filter((n) => n.role === 'primary')
        .every((p) => known.filter((r) => r.role === 'replica' && r.primaryId === p.id).length === replicasPerPrimary);
      if (ready && known.filter((n) => n.role === 'primary').length === primaries) break;
      if (Date.now() > deadline) throw new Error(`the Redis Cluster's replicas did not attach: ${JSON.stringify(known)}`);
      await sleep(100);
    }
  } catch (error) {
    await destroyAll();
    throw error;
  }

  return {
    seedUrl: (user?: string, password?: string) => {
      const auth = user || password ? `${encodeURIComponent(user ?? '')}:${encodeURIComponent(password ?? '')}@` : '';
      return procs.map((p) => `redis://${auth}127.0.0.1:${p.port}`).join(',');
    },
    nodes,
    primaryOf,
    killPrimaryOf: async (keyOrSlot, timeoutMs = 30_000) => {
      const slot = await slotOf(keyOrSlot);
      const killed = await primaryOf(slot);
      const proc = procs.find((p) => p.port === killed.port)!;
      await halt(proc, 'SIGKILL');
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const promoted = await primaryOf(slot).catch(() => undefined);
        if (promoted && promoted.port !== killed.port && promoted.role === 'primary') {
          // Every node still up agrees, and the cluster serves every slot again.
          const rest = Math.max(1000, deadline - Date.now());
          const until = Date.now() + rest;
          for (;;) {
            const infos = await Promise.all(running().map((p) => ask(p.port, 'CLUSTER', 'INFO')));
            if (infos.every((i) => i !== null && /cluster_state:ok/.test(i))) break;
            if (Date.now() > until) throw new Error('the Redis Cluster did not report cluster_state:ok after the failover');
            await sleep(100);
          }
          return { killed: { ...killed, role: 'down', pid: undefined }, promoted };
        }
        if (Date.now() > deadline)
          throw new Error(`no replica of the killed primary on port ${killed.port} took over within ${timeoutMs} ms`);
        await sleep(100);
      }
    },
    restart: async (port, timeoutMs = 30_000) => {
      const proc = procs.find((p) => p.port === port);
      if (!proc) throw new Error(`no node of this Redis Cluster listens on port ${port}`);
      await halt(proc, 'SIGTERM');
      await launch(proc);
      await waitHealthy(timeoutMs);
    },
    waitHealthy,
    stop: async () => {
      await Promise.all(procs.map((p) => halt(p, 'SIGTERM')));
    },
    destroy: destroyAll,
  };
}

/**
 * The two Redis deployments an integration test runs against: the shared single server
 * (REDIS_URL) and a private cluster started by {@link RedisTarget.start} (once per file: call it
 * in the describe's beforeAll, and stop in afterAll).
 *
 *   describe.each(redisTargets())('... ($name)', (target) => {
 *     beforeAll(() => target.start(), 120_000);
 *     afterAll(() => target.stop());
 *     it('...', () => { const redis = createRedis(target.url(), logger, { cluster: target.cluster }); ... });
 *   });
 */
export interface RedisTarget {
  name: 'single node' | 'cluster';
  cluster: boolean;
  start(): Promise<void>;
  stop(): Promise<void>;
  /** REDIS_URL for a service (seed nodes for the cluster). */
  url(): string;
  /** The private cluster (only for `cluster`, once started): to kill a primary. */
  redisCluster(): RedisCluster;
}

export function redisTargets(options: RedisClusterOptions = {}): RedisTarget[] {
  let cluster: RedisCluster | undefined;
  return [
    {
      name: 'single node',
      cluster: false,
      start: async () => undefined,
      stop: async () => undefined,
      url: () => process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
      redisCluster: () => {
        throw new Error('the single-node target has no cluster');
      },
    },
    {
      name: 'cluster',
      cluster: true,
      start: async () => {
        cluster ??= await startRedisCluster(options);
      },
      stop: async () => {
        await cluster?.destroy();
        cluster = undefined;
      },
      url: () => {
        if (!cluster) throw new Error('start the cluster target first (beforeAll: target.start())');
        return cluster.seedUrl();
      },
      redisCluster: () => {
        if (!cluster) throw new Error('start the cluster target first (beforeAll: target.start())');
        return cluster;
      },
    },
  ];
}
