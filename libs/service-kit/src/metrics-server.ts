import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

export interface MetricsServer {
  /** The bound port (useful when 0 asked for any free one). */
  port: number;
  close(): Promise<void>;
}

/**
 * Prometheus `GET /metrics` on its own port (METRICS_PORT), apart from the API and health port, so
 * the public load balancer never reaches it (decisions.md "Request input bounds, routing and
 * metrics"). Anything else on this port is 404, other methods 405.
 */
export async function serveMetrics(registry: Registry, port: number, host = '0.0.0.0'): Promise<MetricsServer> {
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?', 1)[0];
    if (path !== '/metrics') return plain(res, 404, 'Not found: this port serves GET /metrics only\n');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return plain(res, 405, 'Method not allowed\n');
    }
    registry.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': registry.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => plain(res, 500, `metrics unavailable: ${(error as Error)?.message ?? 'unknown error'}\n`),
    );
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function plain(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  res.end(text);
}
