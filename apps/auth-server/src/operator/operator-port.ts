import { Injectable, type BeforeApplicationShutdown } from '@nestjs/common';
import { ApiError, ErrorName, errorEnvelope } from '@crm/contracts';
import { createServer, type IncomingMessage, type RequestListener, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Requests that came in on OPERATOR_PORT: the only ones the operator routes answer (OperatorGuard). */
const viaOperatorPort = new WeakSet<IncomingMessage>();

/** Whether `req` came in on the internal operator port (not the public AUTH_PORT). */
export function arrivedOnOperatorPort(req: IncomingMessage): boolean {
  return viaOperatorPort.has(req);
}

/** `/operator` and everything under it. */
export function isOperatorPath(url: string | undefined): boolean {
  const path = (url ?? '/').split('?', 1)[0]!;
  return path === '/operator' || path.startsWith('/operator/');
}

/**
 * The operator API on its own port (OPERATOR_PORT), served by the same Express application as the
 * public port so the routes, guard, validation and error envelope are the same; requests there are
 * marked, and anything but /operator/* is 404. Closed before the public port at shutdown.
 */
@Injectable()
export class OperatorPortServer implements BeforeApplicationShutdown {
  private server?: Server;

  /** Listens on `port` (0: any free one) and returns the bound port. */
  async listen(app: RequestListener, port: number, host = '0.0.0.0'): Promise<number> {
    const server = createServer((req: IncomingMessage, res: ServerResponse) => {
      if (!isOperatorPath(req.url)) return notFound(res);
      viaOperatorPort.add(req);
      app(req, res);
    });
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.server = server;
    return (server.address() as AddressInfo).port;
  }

  /** Stops accepting, lets the requests in flight finish (bounded by SHUTDOWN_TIMEOUT_MS in runService). */
  async beforeApplicationShutdown(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
  }
}

function notFound(res: ServerResponse): void {
  const { http, body } = errorEnvelope(new ApiError(ErrorName.ResourceNotFound, 'This port serves the operator API (/operator/*) only'));
  res.writeHead(http, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}
