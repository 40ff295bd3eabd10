import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import { inboxPrefixOf } from './nats-permissions';

export interface NatsConnectionOptions {
  url: string;
  name: string;
  logger: Logger;
}

/**
 * NATS_URL as connection settings: `nats://[user:password@]host:4222`, comma-separated for a
 * cluster. The user and password (URL-encoded) are those of the service's NATS user and go to the
 * server in CONNECT, never in the server list; the first URL that names them is used. With a user,
 * replies come to inboxes under `_INBOX.<user>`, the only inboxes that user may subscribe to.
 */
export function parseNatsUrl(url: string): { servers: string[]; user?: string; pass?: string; inboxPrefix?: string } {
  let user: string | undefined;
  let pass: string | undefined;
  const servers = url
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .map((server) => {
      const at = server.lastIndexOf('@');
      const scheme = server.indexOf('://');
      if (at === -1 || scheme === -1 || at < scheme) return server;
      const credentials = server.slice(scheme + 3, at);
      const colon = credentials.indexOf(':');
      const name = colon === -1 ? credentials : credentials.slice(0, colon);
      const password = colon === -1 ? '' : credentials.slice(colon + 1);
      if (user === undefined && name !== '') {
        user = decodeURIComponent(name);
        pass = decodeURIComponent(password);
      }
      return server.slice(0, scheme + 3) + server.slice(at + 1);
    });
  if (user !== undefined && !/^[A-Za-z0-9_-]{1,64}$/.test(user))
    throw new Error('NATS_URL: the NATS user name must be letters, digits, _ or - (it names the reply inboxes)');
  return user === undefined ? { servers } : { servers, user, pass, inboxPrefix: inboxPrefixOf(user) };
}

/**
 * Connection options shared by every NATS client of the platform: reconnect forever, and no async
 * stack traces (without it the client builds a RequestError and a TimeoutError, each with a
 * captured stack, for every request: some 25-30 µs of CPU each, decisions.md "Lean RPC and
 * validation once"; a failed request is logged with its subject and reason, never with the
 * client's stack).
 */
export function natsClientOptions(url: string, name: string) {
  return {
    ...parseNatsUrl(url),
    name,
    maxReconnectAttempts: -1,
    reconnectTimeWait: 500,
    waitOnFirstConnect: true,
    pingInterval: 10_000,
    noAsyncTraces: true,
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
    // An error names its cause, e.g. a permission violation of this service's NATS user.
    if (status.type === 'error') logger.warn({ nats: status.type, detail: String(status.error) }, 'NATS connection problem');
    else if (status.type === 'disconnect') logger.warn({ nats: status.type }, 'NATS connection problem');
    else if (status.type === 'reconnect') logger.info({ nats: status.type }, 'NATS reconnected');
  }
}

/** Hides credentials in a connection URL before it is logged. */
export function redactUrl(url: string): string {
  return url.replace(/\/\/([^@/]+)@/g, '//[redacted]@');
}
