import { ERROR_CATALOG, isErrorName } from '@crm/contracts';

/** How a NATS request ended, for metrics and spans: a bounded set. */
export type RpcOutcome = 'ok' | 'client_error' | 'server_error';

/** Whether a reply's error is the service's fault (5xx: internal, unavailable), not the caller's (4xx). */
export function isServerError(errorName: string): boolean {
  return isErrorName(errorName) ? ERROR_CATALOG[errorName].http >= 500 : true;
}

/** The outcome of a Nest reply packet (`{ response }` with an RpcReply, or `{ err }` when a handler failed without one). */
export function outcomeOfPacket(packet: unknown): { outcome: RpcOutcome; errorName?: string } {
  if (typeof packet !== 'object' || packet === null) return { outcome: 'ok' };
  const { err, response } = packet as { err?: unknown; response?: { ok?: unknown; error?: { error_name?: unknown } } };
  if (err !== undefined && err !== null) return { outcome: 'server_error', errorName: 'internal_server_error' };
  if (!response || typeof response !== 'object' || response.ok !== false) return { outcome: 'ok' };
  const name =
    typeof response.error?.error_name === 'string' && isErrorName(response.error.error_name)
      ? response.error.error_name
      : 'internal_server_error';
  return { outcome: isServerError(name) ? 'server_error' : 'client_error', errorName: name };
}
