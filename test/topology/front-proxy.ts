import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Backend {
  name: string;
  port: number;
}

/**
 * What clients see of a Kubernetes Service or Ingress in front of replicas: one loopback address,
 * each new TCP connection handed round robin to one of the ready backends (kube-proxy keeps an
 * open connection on its pod; a pod leaving the endpoints keeps its open connections). A backend
 * that refuses the connection is skipped for the next one; `failedConnections` counts the client
 * connections no backend took (a client sees them as a failed connection).
 */
export interface FrontProxy {
  name: string;
  port: number;
  /** http://127.0.0.1:<port> */
  url: string;
  backends(): Backend[];
  /** Puts a backend in the rotation (a pod turning ready). */
  add(backend: Backend): void;
  /** Takes it out of the rotation (a pod leaving the endpoints); its open connections stay. */
  remove(name: string): void;
  failedConnections(): number;
  close(): Promise<void>;
}

export async function startFrontProxy(name: string, initial: Backend[] = []): Promise<FrontProxy> {
  let backends = [...initial];
  let next = 0;
  let failed = 0;
  const open = new Set<net.Socket>();

  const pipeTo = (client: net.Socket, attempt: number, tried: number) => {
    if (backends.length === 0 || tried >= backends.length) {
      failed += 1;
      client.destroy();
      return;
    }
    const backend = backends[attempt % backends.length]!;
    const upstream = net.connect(backend.port, '127.0.0.1');
    open.add(upstream);
    let connected = false;
    upstream.once('connect', () => {
      connected = true;
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    });
    upstream.on('error', () => {
      if (!connected) pipeTo(client, attempt + 1, tried + 1);
      else client.destroy();
    });
    upstream.on('close', () => {
      open.delete(upstream);
      if (connected) client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.on('close', () => upstream.destroy());
  };

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    open.add(client);
    client.on('close', () => open.delete(client));
    const start = next;
    next = (next + 1) % Math.max(1, backends.length);
    pipeTo(client, start, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    backends: () => [...backends],
    add: (backend) => {
      backends = [...backends.filter((b) => b.name !== backend.name), backend];
    },
    remove: (backendName) => {
      backends = backends.filter((b) => b.name !== backendName);
    },
    failedConnections: () => failed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/**
 * The Ingress in front of the gateway and the auth-server (ingress-nginx balances each request, not
 * each connection): an HTTP proxy on loopback that sends every request to the next ready backend
 * over its own keep-alive pool, so a backend taken out of the rotation gets no new request even
 * from a client that keeps its connection open. A request no backend takes (connection refused
 * or reset before an answer) is answered 502 and counted in `failedConnections`; like
 * ingress-nginx, a request that may have reached a backend is not sent again.
 */
export async function startHttpFront(name: string, initial: Backend[] = []): Promise<FrontProxy> {
  let backends = [...initial];
  let next = 0;
  let failed = 0;
  const agents = new Map<string, http.Agent>();
  const agentOf = (backend: Backend) => {
    let agent = agents.get(backend.name);
    // Idle connections are dropped after 4 s, before the services' own keep-alive timeout (Node's 5 s)
    // closes them under a request sent at that moment (ingress-nginx: upstream keepalive_timeout
    // below the backend's).
    if (!agent) agents.set(backend.name, (agent = new http.Agent({ keepAlive: true, maxSockets: 64, timeout: 4000 })));
    return agent;
  };
  const server = http.createServer((req, res) => {
    if (backends.length === 0) {
      failed += 1;
      res.writeHead(502).end();
      return;
    }
    const backend = backends[next++ % backends.length]!;
    const upstream = http.request(
      {
        host: '127.0.0.1',
        port: backend.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
        agent: agentOf(backend),
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.rawHeaders as unknown as http.OutgoingHttpHeaders);
        answer.pipe(res);
        answer.on('error', () => res.destroy());
      },
    );
    upstream.on('error', () => {
      failed += 1;
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    name,
    port,
    url: `http://127.0.0.1:${port}`,
    backends: () => [...backends],
    add: (backend) => {
      backends = [...backends.filter((b) => b.name !== backend.name), backend];
    },
    remove: (backendName) => {
      backends = backends.filter((b) => b.name !== backendName);
    },
    failedConnections: () => failed,
    close: () =>
      new Promise<void>((resolve) => {
        for (const agent of agents.values()) agent.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
