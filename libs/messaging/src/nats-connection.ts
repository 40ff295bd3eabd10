import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';

export interface NatsConnectionOptions {
  url: string;
  name: string;
  logger: Logger;
}

/** Connection options shared by every NATS client of the platform: reconnect forever. */
export function natsClientOptions(url: string, name: string) {
  return {
    servers: url.split(',').map((s) => s.trim()),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
  };
}

/** Connects (retrying until NATS answers) and logs connection state changes. */
export async function connectNats({ url, name, logger }: NatsConnectionOptions): Promise<NatsConnection> {
  logger.info({ url: redactUrl(url) }, 'connecting to NATS');
  const nc = await connect(natsClientOptions(url, name));
  logger.info({ server: nc.getServer() }, 'connected to NATS');
  void watchStatus(nc, logger);
  return nc;
}

export async function watchStatus(nc: NatsConnection, logger: Logger): Promise<void> {
  for await (const status of nc.status()) {
    if (status.type === 'disconnect' || status.type === 'error') logger.warn({ nats: status.type }, 'NATS connection problem');
    else if (status.type === 'reconnect') logger.info({ nats: status.type }, 'NATS reconnected');
  }
}

/** Hides credentials in a connection URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]+)@/g, '//[redacted]@');
}
