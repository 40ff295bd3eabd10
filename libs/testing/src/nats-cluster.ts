import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { connect } from '@nats-io/transport-node';
import { getFreePort, isReachable } from './infra';

/**
 * A private NATS cluster of `size` nats-server processes on loopback ports, with JetStream, started
 * from a production server configuration (the StatefulSet's nats-server.conf and the files it
 * includes, e.g. the services' users in nats.conf). Only what a pod gets from its surroundings is
 * substituted, each line named in {@link renderNodeConfig}: the server name, the client, monitor
 * and route ports, the routes, the pid file and the JetStream store directory. Passwords come from
 * `env`, as the pods read them from their Secret. The machine's shared NATS is never touched.
 */
export interface NatsClusterOptions {
  /** nats-server.conf as production has it (e.g. the data of the ConfigMap nats-server). */
  serverConfig: string;
  /** Files the server configuration includes, by the name it includes them with (e.g. { 'nats.conf': ... }). */
  includes?: Record<string, string>;
  /** Environment of every server: the $VARIABLES of the configuration (passwords). */
  env?: Record<string, string>;
  /** Servers (default 3). */
  size?: number;
  /** Names of the servers (SERVER_NAME): `<prefix>-<n>` as the StatefulSet's pods (default "nats"). */
  namePrefix?: string;
  /** Where each server's output goes (default: a file nats-<n>.log in the cluster's directory). */
  logDir?: string;
}

export interface NatsNode {
  index: number;
  /** SERVER_NAME, as the StatefulSet's pod name: nats-0, nats-1, ... */
  name: string;
  /** Client port on 127.0.0.1. */
  port: number;
  clusterPort: number;
  /** The monitoring port (http_port: /healthz, /varz, /jsz). */
  monitorPort: number;
  /** nats://127.0.0.1:<port> (no user). */
  url: string;
  configFile: string;
  logFile: string;
  /** The running process's id, undefined while the server is down. */
  pid(): number | undefined;
  running(): boolean;
}

export interface NatsCluster {
  nodes: NatsNode[];
  /** Every server's client URL, comma-separated (the form NATS_URL takes for a cluster). */
  url: string;
  /** SIGKILLs one server (no lame duck, no flush: a crash); resolves once the process is gone. */
  kill(index: number): Promise<void>;
  /** Starts a stopped server again on the same ports and store; resolves once it is healthy and sees a JetStream meta leader. */
  restart(index: number): Promise<void>;
  /**
   * The server leading `stream` (its JetStream API, $JS.API.STREAM.INFO.<stream>, answered by any
   * running server), asked as a user allowed that subject.
   */
  streamLeader(stream: string, credentials?: { user: string; pass: string }): Promise<{ index: number; name: string; replicas: string[] }>;
  /** Resolves once every running server answers /healthz and sees a JetStream meta leader (/jsz). */
  waitHealthy(timeoutMs?: number): Promise<void>;
  /** Kills every server and removes their files. */
  destroy(): Promise<void>;
}

interface NodePorts {
  name: string;
  port: number;
  clusterPort: number;
  monitorPort: number;
  dir: string;
}

/**
 * The production server configuration for one node, with exactly these lines replaced: the client
 * port, the monitor port, the pid file, the JetStream store directory, the cluster port and the
 * routes (every node's loopback route port instead of nats-N.nats-headless:6222). Anything else,
 * the users, permissions, lame duck, limits, is the production text. Throws when a line it must
 * replace is missing, so a changed production file is noticed rather than half applied.
 */
export function renderNodeConfig(serverConfig: string, node: NodePorts, all: NodePorts[]): string {
  let text = serverConfig;
  let inCluster = false;
  let clusterIndent = '';
  const seen = new Set<string>();
  const lines: string[] = [];
  const source = text.split('\n');
  for (let i = 0; i < source.length; i += 1) {
    const line = source[i]!;
    const indent = /^\s*/.exec(line)![0];
    const trimmed = line.trim();
    if (/^cluster\s*\{/.test(trimmed)) [inCluster, clusterIndent] = [true, indent];
    else if (inCluster && trimmed === '}' && indent === clusterIndent) inCluster = false;
    if (/^port\s*:/.test(trimmed)) {
      lines.push(`${indent}port: ${inCluster ? node.clusterPort : node.port}`);
      seen.add(inCluster ? 'cluster port' : 'port');
      continue;
    }
    if (/^http_port\s*:/.test(trimmed)) {
      lines.push(`${indent}http_port: ${node.monitorPort}`);
      seen.add('http_port');
      continue;
    }
    if (/^pid_file\s*:/.test(trimmed)) {
      lines.push(`${indent}pid_file: "${path.join(node.dir, 'nats.pid')}"`);
      seen.add('pid_file');
      continue;
    }
    if (/^store_dir\s*:/.test(trimmed)) {
      lines.push(`${indent}store_dir: "${path.join(node.dir, 'data')}"`);
      seen.add('store_dir');
      continue;
    }
    if (inCluster && /^routes\s*:\s*\[/.test(trimmed)) {
      lines.push(`${indent}routes: [`);
      for (const other of all) lines.push(`${indent}  "nats://127.0.0.1:${other.clusterPort}"`);
      // Skip the production routes up to the closing bracket.
      while (i < source.length && !source[i]!.includes(']')) i += 1;
      lines.push(`${indent}]`);
      seen.add('routes');
      continue;
    }
    lines.push(line);
  }
  text = lines.join('\n');
  const missing = ['port', 'http_port', 'pid_file', 'store_dir', 'cluster port', 'routes'].filter((k) => !seen.has(k));
  if (missing.length > 0)
    throw new Error(
      `the NATS server configuration has no ${missing.join(', ')} line to substitute: update libs/testing/src/nats-cluster.ts`,
    );
  return text;
}

/**
 * Healthy and part of a JetStream cluster with a meta leader: before the leader is elected the
 * JetStream API answers nothing (a stream created then times out), although /healthz says ok.
 */
async function healthy(monitorPort: number): Promise<boolean> {
  try {
    const res = await fetch(`http://127.0.0.1:${monitorPort}/healthz`, { signal: AbortSignal.timeout(1000) });
    if (!res.ok) return false;
    const jsz = await fetch(`http://127.0.0.1:${monitorPort}/jsz`, { signal: AbortSignal.timeout(1000) });
    const info = (await jsz.json()) as { meta_cluster?: { leader?: string } };
    return Boolean(info.meta_cluster?.leader);
  } catch {
    return false;
  }
}

export async function startNatsCluster(options: NatsClusterOptions): Promise<NatsCluster> {
  const size = options.size ?? 3;
  const prefix = options.namePrefix ?? 'nats';
  const root = mkdtempSync(path.join(tmpdir(), 'crm-nats-cluster-'));
  const logDir = options.logDir ?? root;
  mkdirSync(logDir, { recursive: true });
  const ports = await Promise.all(Array.from({ length: size * 3 }, () => getFreePort()));
  const layout: NodePorts[] = Array.from({ length: size }, (_, i) => ({
    name: `${prefix}-${i}`,
    port: ports[3 * i]!,
    clusterPort: ports[3 * i + 1]!,
    monitorPort: ports[3 * i + 2]!,
    dir: path.join(root, `${prefix}-${i}`),
  }));
  const children: Array<ChildProcess | undefined> = [];

  const nodes: NatsNode[] = layout.map((n, index) => {
    mkdirSync(path.join(n.dir, 'data'), { recursive: true });
    const configFile = path.join(n.dir, 'nats-server.conf');
    // The included files sit beside the server configuration, as the projected ConfigMaps do in /etc/nats.
    for (const [name, text] of Object.entries(options.includes ?? {})) writeFileSync(path.join(n.dir, name), text);
    writeFileSync(configFile, renderNodeConfig(options.serverConfig, n, layout));
    return {
      index,
      name: n.name,
      port: n.port,
      clusterPort: n.clusterPort,
      monitorPort: n.monitorPort,
      url: `nats://127.0.0.1:${n.port}`,
      configFile,
      logFile: path.join(logDir, `${n.name}.log`),
      pid: () => children[index]?.pid,
      running: () => {
        const c = children[index];
        return c !== undefined && c.exitCode === null && c.signalCode === null;
      },
    };
  });

  const launch = (node: NatsNode) => {
    const child = spawn('nats-server', ['--config', node.configFile, '--log', node.logFile], {
      cwd: path.dirname(node.configFile),
      stdio: 'ignore',
      env: { ...process.env, ...options.env, SERVER_NAME: node.name },
    });
    children[node.index] = child;
    return child;
  };

  const waitNode = async (node: NatsNode, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const child = children[node.index];
      if (child && child.exitCode !== null)
        throw new Error(`${node.name} exited with ${child.exitCode} while starting; see ${node.logFile}`);
      if ((await isReachable(node.url, node.port, 500)) && (await healthy(node.monitorPort))) return;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`${node.name} was not healthy on ports ${node.port}/${node.monitorPort} within ${timeoutMs} ms; see ${node.logFile}`);
  };

  const kill = async (index: number) => {
    const child = children[index];
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGKILL');
    await exited;
  };

  const waitHealthy = async (timeoutMs = 60_000) => {
    await Promise.all(nodes.filter((n) => n.running()).map((n) => waitNode(n, timeoutMs)));
  };

  const cluster: NatsCluster = {
    nodes,
    url: nodes.map((n) => n.url).join(','),
    kill,
    restart: async (index) => {
      const node = nodes[index]!;
      if (node.running()) return;
      launch(node);
      await waitNode(node, 60_000);
    },
    waitHealthy,
    streamLeader: async (stream, credentials) => {
      const running = nodes.filter((n) => n.running());
      const nc = await connect({
        servers: running.map((n) => n.url),
        timeout: 2000,
        reconnect: false,
        ...(credentials ? { user: credentials.user, pass: credentials.pass } : {}),
        ...(credentials ? { inboxPrefix: `_INBOX.${credentials.user}` } : {}),
      });
      try {
        const reply = await nc.request(`$JS.API.STREAM.INFO.${stream}`, undefined, { timeout: 5000 });
        const info = reply.json<{ error?: { description: string }; cluster?: { leader?: string; replicas?: Array<{ name: string }> } }>();
        if (info.error) throw new Error(`$JS.API.STREAM.INFO.${stream}: ${info.error.description}`);
        const leader = info.cluster?.leader;
        const index = nodes.findIndex((n) => n.name === leader);
        if (!leader || index === -1)
          throw new Error(`stream ${stream} has no leader among ${nodes.map((n) => n.name).join(', ')} (${leader})`);
        return { index, name: leader, replicas: (info.cluster?.replicas ?? []).map((r) => r.name) };
      } finally {
        await nc.close().catch(() => undefined);
      }
    },
    destroy: async () => {
      await Promise.all(nodes.map((n) => kill(n.index)));
      rmSync(root, { recursive: true, force: true });
    },
  };

  try {
    nodes.forEach(launch);
    await waitHealthy();
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
