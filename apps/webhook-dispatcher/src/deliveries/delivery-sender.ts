import { RpcHeaders } from '@crm/contracts';
import {
  contextOfTraceparent,
  contextWithSpan,
  endSpan,
  injectTraceHeaders,
  runInOwnSpan,
  runInRequestContext,
  SpanKind,
  startSpan,
  tracingEnabled,
  type Span,
} from '@crm/observability';
import type { Logger } from 'pino';
import { signDelivery } from './delivery-signature';
import type { AttemptRecord, ClaimedDelivery, DeliveriesRepository } from './deliveries.repository';
import type { DeliveryMetrics } from './delivery-metrics';
import type { ReceiverClient } from './receiver-client';
import { decideAttempt } from './retry-schedule';

export interface DeliverySenderOptions {
  /** Attempts in flight to one webhook at once. */
  perWebhook: number;
  /** Deliveries this replica holds at most (queued and in flight). */
  maxHeld: number;
  retryScale: number;
}

/** Deliveries a flowing webhook may queue beyond its slots (one ingest batch). */
const FLOWING_EXTRA = 256;

/**
 * The webhook body: exactly `type`, `reason`, `timestamp`, `secretkey`, `data` (the spec's Events),
 * with `data` spliced in as serialized once at ingestion.
 */
export function deliveryBody(d: Pick<ClaimedDelivery, 'type' | 'reason' | 'timestamp' | 'secretkey' | 'data_json'>): string {
  return `{"type":${JSON.stringify(d.type)},"reason":${JSON.stringify(d.reason)},"timestamp":${Math.trunc(d.timestamp)},"secretkey":${JSON.stringify(d.secretkey)},"data":${d.data_json}}`;
}

/**
 * The headers of one attempt: the Standard Webhooks signature headers, the request id of the
 * request that caused the event (`X-Request-Id`), and its W3C trace context: the attempt span's
 * while tracing, else the event's traceparent as it came.
 */
export function attemptHeaders(
  d: Pick<ClaimedDelivery, 'id' | 'secrets' | 'request_id' | 'traceparent'>,
  timestamp: number,
  body: string,
  span?: Span,
): Record<string, string> {
  const headers: Record<string, string> = {
    'webhook-id': d.id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signDelivery(d.id, timestamp, body, d.secrets),
  };
  if (d.request_id) headers[RpcHeaders.requestId.toLowerCase()] = d.request_id;
  if (span) injectTraceHeaders((name, value) => (headers[name] = value), contextWithSpan(span));
  else if (d.traceparent) headers.traceparent = d.traceparent;
  return headers;
}

/**
 * Sends the deliveries this replica claimed: one queue per webhook, at most `perWebhook` attempts
 * in flight per webhook (a hanging receiver ties up only its own slots, never the others'), each
 * queue in stream order. Outcomes are written to PostgreSQL in batches (one statement per batch)
 * with the next try of the retry schedule. Each attempt runs under its event's request id (its
 * log lines carry it) and, while tracing, is a client span in its event's trace.
 */
export class DeliverySender {
  private readonly queues = new Map<string, ClaimedDelivery[]>();
  private readonly inFlight = new Map<string, number>();
  private held = 0;
  private pendingRecords: AttemptRecord[] = [];
  private flushing: Promise<void> | undefined;
  private flushDelayMs = 0;
  private stopping = false;
  private readonly idleWaiters: Array<() => void> = [];
  private readonly roomWaiters: Array<() => void> = [];
  private readonly lastFinished = new Map<string, number>();

  constructor(
    private readonly repository: DeliveriesRepository,
    private readonly client: ReceiverClient,
    private readonly metrics: DeliveryMetrics,
    private readonly logger: Logger,
    private readonly options: DeliverySenderOptions,
    /** Called after outcomes were written: successors of a record, and room, may be claimable now. */
    private readonly onRecorded: () => void,
  ) {}

  /** How many more deliveries this replica can take. */
  get room(): number {
    return this.stopping ? 0 : Math.max(0, this.options.maxHeld - this.held);
  }

  /** Deliveries of one webhook taken from the schedule per claim (two rounds of its slots). */
  get perWebhookClaim(): number {
    return this.options.perWebhook * 2;
  }

  get heldCount(): number {
    return this.held;
  }

  /**
   * Whether one more delivery for this webhook fits. A webhook whose receiver answers (an attempt
   * finished within the last second) may queue a batch beyond its slots; one that does not (hanging,
   * or not seen yet) only as many as its slots, so it never holds much of the replica's room.
   */
  hasRoomFor(webhookId: string, extra = 0): boolean {
    if (this.room - extra <= 0) return false;
    const allowance = this.options.perWebhook * 2 + (this.isFlowing(webhookId) ? FLOWING_EXTRA : 0);
    return (this.queues.get(webhookId)?.length ?? 0) + (this.inFlight.get(webhookId) ?? 0) + extra < allowance;
  }

  /** Its receiver finished an attempt within the last second. */
  isFlowing(webhookId: string): boolean {
    return Date.now() - (this.lastFinished.get(webhookId) ?? 0) < 1000;
  }

  /**
   * Waits (at most `maxMs`) until each flowing webhook has room for the deliveries a batch brings
   * it, so that a busy but healthy receiver's deliveries are claimed as they are stored instead of
   * taking a detour through the schedule. Hanging receivers are never waited for.
   */
  async waitForRoom(needs: Map<string, number>, maxMs: number): Promise<void> {
    const deadline = Date.now() + maxMs;
    const missing = () => [...needs].some(([id, n]) => this.isFlowing(id) && !this.hasRoomFor(id, n - 1) && this.room >= n);
    while (missing() && Date.now() < deadline) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(1, deadline - Date.now()));
        this.roomWaiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Webhooks this replica has no room for: not to be claimed now. */
  fullWebhooks(): string[] {
    const full: string[] = [];
    for (const id of new Set([...this.queues.keys(), ...this.inFlight.keys()])) if (!this.hasRoomFor(id)) full.push(id);
    return full;
  }

  submit(deliveries: ClaimedDelivery[]): void {
    const touched = new Set<string>();
    for (const d of deliveries) {
      let queue = this.queues.get(d.webhook_id);
      if (!queue) this.queues.set(d.webhook_id, (queue = []));
      queue.push(d);
      this.held += 1;
      touched.add(d.webhook_id);
    }
    for (const id of touched) this.pump(id);
  }

  /**
   * Stops taking work: what is queued but not started is given back to PostgreSQL at once (another
   * replica takes it), in-flight attempts finish (up to `timeoutMs`), outcomes are written.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    const queued = [...this.queues.values()].flat();
    this.queues.clear();
    this.held -= queued.length;
    await Promise.all(
      Object.entries(groupBy(queued, (d) => String(d.claim_key))).map(([key, list]) =>
        this.repository
          .release(
            Number(key),
            list.map((d) => d.id),
          )
          .catch((error) =>
            this.logger.warn(
              { detail: (error as Error).message },
              'webhook deliveries: could not give back queued deliveries; another replica takes them once this one is gone',
            ),
          ),
      ),
    );
    if (this.held > 0) await Promise.race([new Promise<void>((r) => this.idleWaiters.push(r)), sleep(timeoutMs)]);
    await this.flushNow(Math.min(timeoutMs, 5000));
  }

  private pump(webhookId: string): void {
    const queue = this.queues.get(webhookId);
    let active = this.inFlight.get(webhookId) ?? 0;
    while (queue && queue.length > 0 && active < this.options.perWebhook) {
      const delivery = queue.shift()!;
      active += 1;
      void this.attempt(delivery);
    }
    this.inFlight.set(webhookId, active);
    if (queue && queue.length === 0) this.queues.delete(webhookId);
    if (active === 0) this.inFlight.delete(webhookId);
  }

  private attempt(d: ClaimedDelivery): Promise<void> {
    const span = tracingEnabled()
      ? startSpan(
          'webhook deliver',
          SpanKind.CLIENT,
          {
            'http.request.method': 'POST',
            'crm.webhook_id': d.webhook_id,
            'crm.delivery_id': d.id,
            'crm.event_id': d.event_id,
            'crm.attempt': d.attempt_count + 1,
            'crm.request_id': d.request_id ?? '',
          },
          contextOfTraceparent(d.traceparent),
        )
      : undefined;
    // Not the context of whatever finished before this attempt started (pump runs from there).
    return runInRequestContext(d.request_id, () => runInOwnSpan(span, () => this.send(d, span)));
  }

  private async send(d: ClaimedDelivery, span: Span | undefined): Promise<void> {
    const attemptedAt = new Date();
    const timestamp = Math.floor(attemptedAt.getTime() / 1000);
    const body = deliveryBody(d);
    const result = await this.client.post(d.hook_url, attemptHeaders(d, timestamp, body, span), body);
    const decision = decideAttempt(result, d.tries + 1, this.options.retryScale);
    const outcome = decision.status === 'pending' ? 'retry' : decision.status;
    if (span) {
      span.setAttribute('crm.outcome', outcome);
      if (result.responseCode !== null) span.setAttribute('http.response.status_code', result.responseCode);
      endSpan(span, decision.status === 'delivered' ? undefined : (result.error ?? outcome));
    }
    if (decision.status === 'delivered' && this.logger.isLevelEnabled('debug'))
      this.logger.debug(
        { delivery_id: d.id, webhook_id: d.webhook_id, code: result.responseCode, duration_ms: result.durationMs },
        'webhook delivered',
      );
    this.metrics.attempts.inc({ outcome });
    this.metrics.attemptDuration.observe({ outcome }, result.durationMs / 1000);
    if (result.failure) this.metrics.failures.inc({ kind: result.failure });
    if (decision.status === 'delivered')
      this.metrics.latency.observe(
        { attempt: d.attempt_count === 0 ? 'first' : 'retry' },
        Math.max(0, Date.now() - d.published_at_ms) / 1000,
      );
    if (decision.status !== 'delivered')
      this.logger.debug(
        {
          delivery_id: d.id,
          webhook_id: d.webhook_id,
          code: result.responseCode,
          error: result.error,
          detail: result.detail,
          next_in_ms: decision.delayMs,
        },
        'webhook attempt without 2xx',
      );
    this.pendingRecords.push({
      delivery_id: d.id,
      claim_key: d.claim_key,
      status: decision.status,
      attempted_at: attemptedAt,
      duration_ms: result.durationMs,
      response_code: result.responseCode,
      error: result.error,
      delay_ms: decision.delayMs,
    });
    if (decision.disableWebhook) {
      this.repository.disableWebhook(d.webhook_id, 'webhook disabled: the receiver answered 410 Gone').then(
        () => this.logger.warn({ webhook_id: d.webhook_id }, 'webhook disabled: its receiver answered 410 Gone'),
        (error) =>
          this.logger.error({ webhook_id: d.webhook_id, detail: (error as Error).message }, 'could not disable a webhook after 410'),
      );
    }
    this.held -= 1;
    this.inFlight.set(d.webhook_id, (this.inFlight.get(d.webhook_id) ?? 1) - 1);
    if (result.responseCode !== null) this.lastFinished.set(d.webhook_id, Date.now());
    // What follows serves every delivery, not this one: outside its request id and span.
    runInRequestContext(undefined, () =>
      runInOwnSpan(undefined, () => {
        this.pump(d.webhook_id);
        if (this.roomWaiters.length > 0) this.roomWaiters.splice(0).forEach((r) => r());
        this.scheduleFlush();
        if (this.held === 0) this.idleWaiters.splice(0).forEach((r) => r());
      }),
    );
  }

  /** Writes outcomes as they come: one statement at a time, everything that piled up meanwhile in the next. */
  private scheduleFlush(): void {
    if (this.flushing) return;
    this.flushing = (async () => {
      while (this.pendingRecords.length > 0) {
        if (this.flushDelayMs > 0) await sleep(this.flushDelayMs);
        const batch = this.pendingRecords;
        this.pendingRecords = [];
        try {
          await this.repository.recordAttempts(batch);
          this.flushDelayMs = 0;
          this.onRecorded();
        } catch (error) {
          // PostgreSQL unavailable: keep the outcomes and try again (the claims stay ours meanwhile).
          this.pendingRecords = batch.concat(this.pendingRecords);
          this.flushDelayMs = Math.min(5000, Math.max(100, this.flushDelayMs * 2));
          this.logger.warn(
            { detail: (error as Error).message, outcomes: this.pendingRecords.length },
            'webhook deliveries: could not record outcomes; retrying',
          );
          if (this.stopping) break;
        }
      }
    })().finally(() => {
      this.flushing = undefined;
      if (this.pendingRecords.length > 0 && !this.stopping) this.scheduleFlush();
    });
  }

  private async flushNow(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while ((this.pendingRecords.length > 0 || this.flushing) && Date.now() < deadline) {
      if (this.flushing) await Promise.race([this.flushing, sleep(deadline - Date.now())]);
      else this.scheduleFlush();
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, Math.max(0, ms)));
}

function groupBy<T>(items: T[], key: (item: T) => string): Record<string, T[]> {
  const groups: Record<string, T[]> = {};
  for (const item of items) (groups[key(item)] ??= []).push(item);
  return groups;
}
