import type { ApiError } from '../errors/api-error';
import { ERROR_CATALOG } from '../errors/error-name';

/** Success envelope: exactly status 0, message, timestamp, data (plus summary blocks where named). */
export interface SuccessEnvelope<T = unknown> {
  status: 0;
  message: string;
  timestamp: number;
  data: T;
  [summaryBlock: string]: unknown;
}

/** Error envelope: exactly status, message, error_name, error_message, errors. */
export interface ErrorEnvelope {
  status: number;
  message: string;
  error_name: string;
  error_message: string;
  errors: Record<string, string>;
}

export function unixSeconds(at: Date = new Date()): number {
  return Math.floor(at.getTime() / 1000);
}

export function successEnvelope<T>(data: T, summary: Record<string, unknown> = {}, message = 'OK'): SuccessEnvelope<T> {
  return { status: 0, message, timestamp: unixSeconds(), data, ...summary };
}

export function errorEnvelope(error: ApiError): { http: number; body: ErrorEnvelope } {
  const spec = ERROR_CATALOG[error.errorName];
  return {
    http: spec.http,
    body: {
      status: spec.bodyStatus,
      message: spec.message,
      error_name: error.errorName,
      error_message: error.message,
      errors: { ...error.errors },
    },
  };
}
