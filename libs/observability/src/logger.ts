import pino, { type Logger } from 'pino';
import { currentRequestId } from './request-context';
import { activeTraceIds } from './tracing';

/** Fields that must never reach a log line, wherever they appear. */
export const REDACTED_PATHS = [
  'password',
  '*.password',
  'api_key',
  '*.api_key',
  'client_secret',
  '*.client_secret',
  'token',
  '*.token',
  'access_token',
  'refresh_token',
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  'secretkey',
  '*.secretkey',
  'signing_secret',
  '*.signing_secret',
];

/**
 * Fields of a failed statement's error that carry the values it was given: TypeORM's
 * `parameters`, and PostgreSQL's `detail` ("Failing row contains (...)", "Key (email)=(...)
 * already exists"). Logged errors keep the statement's text (`query`, with $1 placeholders), its
 * code, constraint and table, never these (decisions.md "Request input bounds, routing and metrics").
 */
export const STATEMENT_VALUE_FIELDS: readonly string[] = ['parameters', 'detail'];

/** Nested objects looked into for statement values (an error's driverError, a wrapped error's fields). */
const MAX_ERROR_DEPTH = 4;

function withoutStatementValues(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || depth > MAX_ERROR_DEPTH) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) {
    if (STATEMENT_VALUE_FIELDS.includes(key) && field !== undefined && field !== null) {
      out[key] = Array.isArray(field) ? `[redacted: ${field.length} values]` : '[redacted]';
    } else {
      out[key] = withoutStatementValues(field, depth + 1);
    }
  }
  return out;
}

/** pino's error serializer (type, message with causes, stack, own fields) without a failed statement's values. */
export function serializeError(error: unknown): unknown {
  return withoutStatementValues(pino.stdSerializers.err(error as Error), 0);
}

/** JSON logs on stdout (or `destination`), one line each, carrying the current request id and, when tracing, trace and span ids. */
export function createLogger(service: string, level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: 'msg',
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: { err: serializeError },
    mixin() {
      const requestId = currentRequestId();
      // trace_id/span_id only while tracing is on and a span is active (activeTraceIds is a field read otherwise).
      const ids = activeTraceIds();
      if (ids) return requestId ? { request_id: requestId, ...ids } : ids;
      return requestId ? { request_id: requestId } : {};
    },
  };
  return destination ? pino(options, destination) : pino(options);
}

export type { Logger };
