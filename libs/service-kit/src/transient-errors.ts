/** Node socket errors of a dependency that is restarting or unreachable. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/**
 * PostgreSQL SQLSTATEs meaning "the server cannot serve you right now": connection exceptions
 * (08xxx), admin/crash shutdown and "cannot connect now" (57P01-57P03), too many connections.
 */
const PG_CODES = /^(08\d{3}|57P0[123]|53300)$/;
const MESSAGES =
  /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|Connection is closed|Stream isn't writeable|MaxRetriesPerRequest|Reached the max retries per request|Command timed out|the database system is (starting up|shutting down)/i;

/**
 * True when an error means that PostgreSQL or Redis is unavailable for the moment (a restart, a
 * network cut), not that the request or the code is wrong: such requests answer 503
 * service_unavailable (with Retry-After) instead of 500, so clients retry.
 */
export function isTransientDependencyError(error: unknown): boolean {
  for (let current = error, depth = 0; current && typeof current === 'object' && depth < 5; depth += 1) {
    const { code, message, name } = current as { code?: unknown; message?: unknown; name?: unknown };
    if (typeof code === 'string' && (SOCKET_CODES.has(code) || PG_CODES.test(code))) return true;
    // TypeORM's runner whose connection a PostgreSQL restart took away (at a query or at commit).
    if (name === 'QueryRunnerAlreadyReleasedError') return true;
    if (typeof message === 'string' && MESSAGES.test(message)) return true;
    // TypeORM keeps the driver's error in driverError; others use cause.
    current = (current as { driverError?: unknown }).driverError ?? (current as { cause?: unknown }).cause;
  }
  return false;
}
