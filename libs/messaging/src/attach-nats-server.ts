import type { INestApplication } from '@nestjs/common';
import { METRICS_REGISTRY, ReadinessRegistry } from '@crm/service-kit';
import type { Logger } from 'pino';
import { Counter, type Registry } from 'prom-client';
import { NamespacedNatsServer } from './namespaced-nats.server';
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
}

const REFUSED_METRIC = 'nats_requests_refused_total';

/**
 * Makes the app's @MessagePattern handlers answer on NATS in the service's queue group, for
 * requests signed by one of `verifyKeys` only; refusals are counted in nats_requests_refused_total.
 */
export async function attachNatsServer(app: INestApplication, options: AttachNatsServerOptions): Promise<NamespacedNatsServer> {
  const verifier = new RpcVerifier(options.verifyKeys);
  const registry = app.get<Registry>(METRICS_REGISTRY);
  const refused =
    (registry.getSingleMetric(REFUSED_METRIC) as Counter<'subject' | 'reason'> | undefined) ??
    new Counter({
      name: REFUSED_METRIC,
      help: 'NATS requests refused before any handler (unsigned, forged, expired, replayed or re-targeted), by subject and reason',
      labelNames: ['subject', 'reason'],
      registers: [registry],
    });
  const server = new NamespacedNatsServer({
    ...options,
    name: `${options.service}-${process.pid}`,
    verifier,
    onRefused: (subject, reason) => refused.inc({ subject, reason }),
  });
  options.logger.info({ verifyKeys: verifier.keyIds }, 'NATS requests are accepted when signed by these keys');
  app.connectMicroservice({ strategy: server });
  app.get(ReadinessRegistry).register('nats-server', () => {
    if (!server.isConnected()) throw new Error('not connected');
    // A round trip to the server: false while the connection is down and reconnecting.
    return server.ping();
  });
  await app.startAllMicroservices();
  return server;
}
