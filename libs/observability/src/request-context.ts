import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

interface RequestContext {
  requestId: string;
  /** Epoch ms after which the caller no longer waits for the answer (set from an RPC's deadline header). */
  deadline?: number;
  /** The HTTP request's If-Match header, carried over NATS (RpcHeaders.ifMatch): crm-core checks it after locking the record. */
  ifMatch?: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with a request id that every log line inside it carries (and the request's deadline and If-Match, when set). */
export function runWithRequestId<T>(requestId: string, fn: () => T, deadline?: number, ifMatch?: string): T {
  const context: RequestContext = { requestId };
  if (deadline !== undefined) context.deadline = deadline;
  if (ifMatch !== undefined) context.ifMatch = ifMatch;
  return storage.run(context, fn);
}

/** The current request's If-Match header (as the client sent it), if any. */
export function currentIfMatch(): string | undefined {
  return storage.getStore()?.ifMatch;
}

/** The current request's deadline (epoch ms), if its caller set one. */
export function currentDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}

/** True when the current request's caller has stopped waiting: work for it is wasted. */
export function deadlinePassed(now: number = Date.now()): boolean {
  const deadline = storage.getStore()?.deadline;
  return deadline !== undefined && now > deadline;
}

/** The deadline (epoch ms) of a request received now whose caller waits `timeoutMs` (a header value); none when absent or implausible. */
export function deadlineIn(timeoutMs: unknown, now: number = Date.now()): number | undefined {
  if (typeof timeoutMs !== 'string' || !/^[0-9]{1,9}$/.test(timeoutMs)) return undefined;
  return now + Number(timeoutMs);
}

/**
 * Runs `fn` with `requestId` as the request id, or with none (not inheriting the caller's): for
 * work done on behalf of a request later and elsewhere (a webhook delivery).
 */
export function runInRequestContext<T>(requestId: string | null | undefined, fn: () => T): T {
  return requestId ? storage.run({ requestId }, fn) : storage.exit(fn);
}

export function currentRequestId(): string | undefined {
  return storage.getStore()?.requestId;
}

const SAFE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

/** Accepts a caller's X-Request-Id when it is a safe token, else makes a new one. */
export function acceptRequestId(candidate: unknown): string {
  return safeRequestId(candidate) ?? randomUUID();
}

/** `candidate` when it is a safe request id (1-128 of A-Z a-z 0-9 . _ : -), else undefined. */
export function safeRequestId(candidate: unknown): string | undefined {
  return typeof candidate === 'string' && SAFE_REQUEST_ID.test(candidate) ? candidate : undefined;
}
