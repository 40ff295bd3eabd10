/**
 * Delays between tries of one delivery (decisions.md): about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h,
 * 10 h after the first attempt, so eight tries in all; then the delivery is failed.
 */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const MAX_TRIES = RETRY_DELAYS_MS.length + 1;
/** A Retry-After longer than this is cut to it. */
const MAX_RETRY_AFTER_MS = 24 * 3600 * 1000;

/**
 * Delay before the next try after `tries` failed tries of the current round (1 after the first),
 * scaled by WEBHOOK_RETRY_SCALE with up to 10% jitter so a burst of failures does not come back at
 * once; null when the tries are used up.
 */
export function retryDelayMs(tries: number, scale = 1, random: () => number = Math.random): number | null {
  const base = RETRY_DELAYS_MS[tries - 1];
  if (base === undefined) return null;
  return Math.round(base * scale * (1 + random() * 0.1));
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, now = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now), MAX_RETRY_AFTER_MS);
}

export interface AttemptResult {
  /** HTTP status, or null when there was no answer. */
  responseCode: number | null;
  /** Retry-After of a 429 or 503 answer, in ms. */
  retryAfterMs?: number | null;
}

export interface AttemptDecision {
  status: 'delivered' | 'pending' | 'failed';
  /** Delay before the next try (pending only). */
  delayMs: number | null;
  /** The receiver answered 410 Gone: the webhook is switched off. */
  disableWebhook: boolean;
}

/**
 * What an attempt means for its delivery: 2xx delivered; 410 failed and the webhook disabled;
 * anything else (timeout, network error, refused address, other status) another try after the
 * schedule's delay — or after Retry-After on 429/503 — until the tries are used up.
 */
export function decideAttempt(result: AttemptResult, tries: number, scale = 1, random: () => number = Math.random): AttemptDecision {
  const code = result.responseCode;
  if (code !== null && code >= 200 && code < 300) return { status: 'delivered', delayMs: null, disableWebhook: false };
  if (code === 410) return { status: 'failed', delayMs: null, disableWebhook: true };
  const scheduled = retryDelayMs(tries, scale, random);
  if (scheduled === null) return { status: 'failed', delayMs: null, disableWebhook: false };
  const honoured =
    (code === 429 || code === 503) && result.retryAfterMs != null ? Math.max(result.retryAfterMs, 1000 * Math.min(1, scale)) : null;
  return { status: 'pending', delayMs: honoured ?? scheduled, disableWebhook: false };
}
