import type { INestApplication } from '@nestjs/common';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { TracingHandle } from '@crm/observability';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { serveMetrics, type MetricsServer } from './metrics-server';
import { ReadinessRegistry } from './readiness.registry';
import { METRICS_REGISTRY } from './tokens';

export interface RunServiceOptions {
  service: string;
  logger: Logger;
  shutdownTimeoutMs: number;
  /** Builds the Nest application (not yet listening). */
  createApp: () => Promise<INestApplication>;
  /** Starts listening; returns the bound port. */
  listen: (app: INestApplication) => Promise<number>;
  /** METRICS_PORT: Prometheus /metrics is served there only, never on the service's own port (0: any free port). */
  metricsPort: number;
  /** `main.js migrate`: run this service's migrations and exit. */
  migrate?: () => Promise<void>;
  /** The process's tracing (startTracing): its buffered spans are exported last at shutdown. */
  tracing?: TracingHandle;
}

/**
 * The life of a service process: `migrate` mode, start, and a graceful stop on SIGTERM/SIGINT —
 * readiness goes false first, then HTTP stops accepting and finishes in-flight requests, NATS
 * subscriptions drain, connections close, buffered spans are exported, and the process exits 0 (1 if the stop overran
 * SHUTDOWN_TIMEOUT_MS or start-up failed).
 */
export async function runService(options: RunServiceOptions): Promise<void> {
  const { logger } = options;
  process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection'));
  process.on('uncaughtException', (error) => {
    logger.fatal({ err: error }, 'uncaught exception: exiting');
    process.exit(1);
  });

  if (process.argv[2] === 'migrate') {
    if (!options.migrate) {
      logger.error(`${options.service} has no database: nothing to migrate`);
      process.exit(2);
    }
    try {
      await options.migrate();
      process.exit(0);
    } catch (error) {
      logger.fatal({ err: error }, 'migration failed: check DATABASE_URL and that PostgreSQL is running (bash scripts/up.sh starts it)');
      process.exit(1);
    }
  }

  let app: INestApplication;
  let metrics: MetricsServer;
  try {
    app = await options.createApp();
    const port = await options.listen(app);
    metrics = await serveMetrics(app.get<Registry>(METRICS_REGISTRY), options.metricsPort);
    logger.info({ port, metrics_port: metrics.port }, `${options.service} listening`);
  } catch (error) {
    logger.fatal({ err: error }, `${options.service} failed to start`);
    await options.tracing?.shutdown();
    process.exit(1);
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: draining');
    const timer = setTimeout(() => {
      logger.error({ timeoutMs: options.shutdownTimeoutMs }, 'graceful shutdown overran its time: exiting');
      process.exit(1);
    }, options.shutdownTimeoutMs + 2000);
    timer.unref();
    try {
      app.get(ReadinessRegistry).startDraining();
      closeConnectionsAfterEachAnswer(app);
      await app.close();
      await metrics.close();
      // The spans of the last requests, relays and deliveries: exported before the process goes.
      await options.tracing?.shutdown();
      logger.info('stopped');
      process.exit(0);
    } catch (error) {
      logger.error({ err: error }, 'error during shutdown');
      process.exit(1);
    }
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

/**
 * While draining, every answer ends its connection (`Connection: close`). A client or a TCP load
 * balancer (a Kubernetes Service) that keeps a connection busy would otherwise be served on it
 * until the stop overran its time and cut the requests in flight; closed, the client's next
 * request opens a connection to another replica. Idle connections are closed by the server's close.
 */
function closeConnectionsAfterEachAnswer(app: INestApplication): void {
  const server = app.getHttpServer() as Server | undefined;
  server?.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    if (!res.headersSent) res.setHeader('Connection', 'close');
  });
}

/** Loads configuration at start-up; on a bad setting prints every problem and exits 1. */
export function startupConfig<T>(service: string, load: () => T): T {
  try {
    return load();
  } catch (error) {
    process.stderr.write(`${JSON.stringify({ level: 'fatal', service, msg: (error as Error).message })}\n`);
    process.exit(1);
  }
}
