import { ERROR_CATALOG, isErrorName, type RpcReply } from '@crm/contracts';

/** How a NATS request ended, for metrics and spans: a bounded set. */
export type RpcOutcome = 'ok' | 'client_error' | 'server_error';

/** Whether a reply's error is the service's fault (5xx: internal, unavailable), not the caller's (4xx). */
export function isServerError(errorName: string): boolean {
  return isErrorName(errorName) ? ERROR_CATALOG[errorName].http >= 500 : true;
}

/** The outcome of a reply, and its error name (one of the contracts', else internal_server_error). */
export function outcomeOfReply(reply: RpcReply): { outcome: RpcOutcome; errorName?: string } {
  if (reply.ok) return { outcome: 'ok' };
  const name = isErrorName(reply.error.error_name) ? reply.error.error_name : 'internal_server_error';
  return { outcome: isServerError(name) ? 'server_error' : 'client_error', errorName: name };
}
