import type { Logger } from 'pino';

/** How long a service waits at start for JetStream to answer before it gives up (and exits 1). */
export const JETSTREAM_START_TIMEOUT_MS = 60_000;

/**
 * Whether a JetStream management request failed only because JetStream is not answering yet: a
 * cluster still electing its meta leader times out or has no responders, and answers 503
 * ("JetStream system temporarily unavailable", code 10008) meanwhile. Anything else (a refused
 * configuration, a permission) is for good.
 */
export function isJetStreamNotReady(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'TimeoutError' || error.name === 'NoRespondersError') return true;
  const { code, status } = error as Error & { code?: number; status?: number };
  return error.name === 'JetStreamApiError' && (status === 503 || code === 10008);
}

/**
 * Runs a start-up step against JetStream (creating the events stream, a consumer), again while
 * JetStream is not ready yet, with a growing wait (0.25 s doubling, at most 5 s), for at most
 * `timeoutMs`. A NATS cluster that has only just formed, or lost its meta leader, answers within
 * seconds; a service started at that moment waits for it instead of exiting.
 */
export async function whenJetStreamAnswers<T>(
  what: string,
  step: () => Promise<T>,
  logger: Logger,
  timeoutMs = JETSTREAM_START_TIMEOUT_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await step();
    } catch (error) {
      if (!isJetStreamNotReady(error) || Date.now() >= deadline) throw error;
      const waitMs = Math.min(5000, 250 * 2 ** (attempt - 1), Math.max(0, deadline - Date.now()));
      logger.warn({ attempt, wait_ms: waitMs, detail: (error as Error).message }, `${what}: JetStream is not answering yet; trying again`);
      await new Promise((resolve) => setTimeout(resolve, waitMs));
    }
  }
}
