import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with a request id that every log line inside it carries. */
export function runWithRequestId<T>(requestId: string, fn: () => T): T {
  return storage.run({ requestId }, fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a caller's X-Request-Id when it is a safe token, else makes a new one. */
export function acceptRequestId(candidate: unknown): string {
  return typeof candidate === 'string' && SAFE_REQUEST_ID.test(candidate) ? candidate : randomUUID();
}
