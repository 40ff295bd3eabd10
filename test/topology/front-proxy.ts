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
