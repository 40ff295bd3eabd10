import pino, { type Logger } from 'pino';
import { currentRequestId } from './request-context';

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

/** JSON logs on stdout, one line each, carrying the current request id. */
export function createLogger(service: string, level: string): Logger {
  return pino({
    level,
    base: { service, pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    messageKey: 'msg',
    formatters: { level: (label) => ({ level: label }) },
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin() {
      const requestId = currentRequestId();
      return requestId ? { request_id: requestId } : {};
    },
  });
}

export type { Logger };
