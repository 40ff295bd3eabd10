import type { INestApplication } from '@nestjs/common';
import { ReadinessRegistry } from '@crm/service-kit';
import type { Logger } from 'pino';
import { NamespacedNatsServer } from './namespaced-nats.server';

export interface AttachNatsServerOptions {
  service: string;
  url: string;
  namespace: string;
  queue: string;
  logger: Logger;
  shutdownTimeoutMs: number;
}

/** Makes the app's @MessagePattern handlers answer on NATS in the service's queue group. */
export async function attachNatsServer(app: INestApplication, options: AttachNatsServerOptions): Promise<NamespacedNatsServer> {
  const server = new NamespacedNatsServer({ ...options, name: `${options.service}-${process.pid}` });
  app.connectMicroservice({ strategy: server });
  app.get(ReadinessRegistry).register('nats-server', () => {
    if (!server.isConnected()) throw new Error('not connected');
    // A round trip to the server: false while the connection is down and reconnecting.
    return server.ping();
  });
  await app.startAllMicroservices();
  return server;
}
