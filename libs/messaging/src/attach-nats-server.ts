import type { INestApplication } from '@nestjs/common';
import { METRICS_REGISTRY, ReadinessRegistry } from '@crm/service-kit';
import type { Logger } from 'pino';
import { Counter, Histogram, type Registry } from 'prom-client';
import { NatsRpcServer, type RpcAround } from './nats-rpc.server';
import { discoverRpcHandlers } from './rpc-handlers';
import { RpcVerifier } from './rpc-signature';

export interface AttachNatsServerOptions {
  service: string;
  url: string;
  namespace: string;
  queue: string;
  logger: Logger;
  shutdownTimeoutMs: number;
  /** CALLER_VERIFY_KEYS: the public keys whose signatures this service accepts on requests. */
  verifyKeys: string;
  /** NatsRpcServerOptions.around: crm-core's write boundary. */
  around?: RpcAround;
}

const REFUSED_METRIC = 'nats_requests_refused_total';
const LARGE_REPLIES_METRIC = 'nats_server_large_replies_total';

/** The registry's metric `name`, made by `create` on first use (several servers of one process share it). */
function shared<M>(registry: Registry, name: string, create: () => M): M {
  return (registry.getSingleMetric(name) as M | undefined) ?? create();
}

/**
 * Per-subject RED of the requests this service handles. `subject` is a registered handler's
 * subject (a contract constant: bounded), `outcome` ok, client_error (a 4xx reply) or server_error
 * (5xx, or a handler that failed without a reply), `error_name` one of the contracts' ErrorName.
 */
function handledMetrics(registry: Registry) {
  const existing = registry.getSingleMetric('nats_server_requests_total') as Counter<'subject' | 'outcome'> | undefined;
  if (existing)
    return {
      requests: existing,
      errors: registry.getSingleMetric('nats_server_request_errors_total') as Counter<'subject' | 'error_name'>,
      duration: registry.getSingleMetric('nats_server_request_duration_seconds') as Histogram<'subject'>,
    };
  return {
    requests: new Counter({
      name: 'nats_server_requests_total',
      help: 'NATS requests handled, by subject and outcome (ok, client_error: a 4xx reply, server_error: 5xx or no reply)',
      labelNames: ['subject', 'outcome'],
      registers: [registry],
    }),
    errors: new Counter({
      name: 'nats_server_request_errors_total',
      help: 'NATS requests answered with an error, by subject and error name',
      labelNames: ['subject', 'error_name'],
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'nats_server_request_duration_seconds',
      help: 'From receipt of a NATS request to its final reply, by subject',
      labelNames: ['subject'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
  };
}

/**
 * Makes the app's @MessagePattern handlers answer on NATS in the service's queue group, for
 * requests signed by one of `verifyKeys` only; refusals are counted in nats_requests_refused_total,
 * handled requests in the nats_server_* RED metrics. The server drains when the app closes.
 */
export async function attachNatsServer(app: INestApplication, options: AttachNatsServerOptions): Promise<NatsRpcServer> {
  const verifier = new RpcVerifier(options.verifyKeys);
  const registry = app.get<Registry>(METRICS_REGISTRY);
  const refused = shared(
    registry,
    REFUSED_METRIC,
    () =>
      new Counter({
        name: REFUSED_METRIC,
        help: 'NATS requests refused before any handler (unsigned, forged, expired, replayed or re-targeted), by subject and reason',
        labelNames: ['subject', 'reason'],
        registers: [registry],
      }),
  );
  const handled = handledMetrics(registry);
  const large = shared(
    registry,
    LARGE_REPLIES_METRIC,
    () =>
      new Counter({
        name: LARGE_REPLIES_METRIC,
        help: 'Replies larger than one NATS message, by subject and kind (parts: sent in parts; too_large: over the 16 MiB reply limit, answered 400)',
        labelNames: ['subject', 'kind'],
        registers: [registry],
      }),
  );
  const server = new NatsRpcServer(discoverRpcHandlers(app), {
    ...options,
    name: `${options.service}-${process.pid}`,
    verifier,
    onRefused: (subject, reason) => refused.inc({ subject, reason }),
    onHandled: (subject, outcome, seconds, errorName) => {
      handled.requests.inc({ subject, outcome });
      handled.duration.observe({ subject }, seconds);
      if (errorName) handled.errors.inc({ subject, error_name: errorName });
    },
    onLargeReply: (subject, kind) => large.inc({ subject, kind }),
  });
  options.logger.info({ verifyKeys: verifier.keyIds }, 'NATS requests are accepted when signed by these keys');
  const readiness = app.get(ReadinessRegistry);
  readiness.register('nats-server', () => {
    if (!server.isConnected()) throw new Error('not connected');
    // A round trip to the server: false while the connection is down and reconnecting.
    return server.ping();
  });
  readiness.registerDrain(() => server.close());
  await server.listen();
  return server;
}
