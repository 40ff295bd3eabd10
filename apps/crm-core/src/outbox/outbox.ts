import { newId } from '@crm/common';
import { eventsStreamConfig, eventSubject, RpcHeaders, type DomainEvent, type DomainEventType } from '@crm/contracts';
import {
  contextOfTraceparent,
  contextWithSpan,
  currentRequestId,
  currentTraceparent,
  endSpan,
  injectTraceHeaders,
  SpanKind,
  startSpan,
  tracingEnabled,
} from '@crm/observability';
import { jetstream, jetstreamManager } from '@nats-io/jetstream';
import { headers as natsHeaders, nanos, type MsgHdrs, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Db, SqlFragment } from '../common/sql';
import { boundEventData } from './event-size';
import type { OutboxMetrics, ParkReason } from './outbox-metrics';
import {
  analyzeOutbox,
  claimOutboxBatch,
  insertWithOutboxEvent,
  markOutboxPublished,
  parkOutboxRows,
  retryOutboxRows,
  type OutboxFailure,
  type OutboxRow,
} from './outbox.repository';

export { OUTBOX_CHANNEL } from './outbox.repository';

export interface NewEvent {
  account_id: string;
  type: DomainEventType;
  reason: string;
  record_id: string;
  /** Status of the contact the event is about (webhooks may filter on it); omit when none. */
  contact_status_id?: string | null;
  data: Record<string, unknown>;
}

/**
 * Writes an event in the caller's transaction: it is relayed if and only if the change commits,
 * and the relays are woken at commit (see OUTBOX_CHANNEL). `data` over MAX_EVENT_DATA_BYTES is
 * written in its reduced form (boundEventData). The current request id and, while tracing, the
 * active span's traceparent go with it, for the relay to publish as message headers.
 */
export async function writeEvent(db: Db, event: NewEvent): Promise<string> {
  return writeEventWith(db, [], event);
}

/**
 * {@link writeEvent} in one statement with the write itself (`changes`: data-modifying
 * statements, see insertWithOutboxEvent): one round trip for the row and its event. The event's
 * data must not depend on what the changes return.
 */
export async function writeEventWith(db: Db, changes: readonly SqlFragment[], event: NewEvent): Promise<string> {
  const id = newId();
  // Bounded when written (decisions.md "Event pipeline and fan-out bounds"): every row fits in one NATS message.
  const { json, truncatedFrom } = boundEventData(event.type, event.record_id, event.data);
  await insertWithOutboxEvent(db, changes, {
    event_id: id,
    account_id: event.account_id,
    type: event.type,
    reason: event.reason,
    record_id: event.record_id,
    contact_status_id: event.contact_status_id ?? null,
    data_json: json,
    truncated_bytes: truncatedFrom,
    request_id: currentRequestId() ?? null,
    traceparent: currentTraceparent() ?? null,
  });
  return id;
}

/**
 * Creates (or updates) the deployment's events stream: file storage, the duplicate window, and
 * `replicas` copies (EVENTS_STREAM_REPLICAS; more than 1 needs a NATS cluster of at least as many servers).
 */
export async function ensureEventsStream(nc: NatsConnection, namespace: string, replicas = 1): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const stream = eventsStreamConfig(namespace);
  const config = {
    name: stream.name,
    subjects: stream.subjects,
    duplicate_window: nanos(stream.duplicateWindowMs),
    num_replicas: replicas,
  };
  let exists = true;
  await jsm.streams.info(config.name).catch(() => (exists = false));
  if (exists) {
    await jsm.streams.update(config.name, config);
    return;
  }
  // The dispatcher may have created it a moment ago: then this add fails and the stream is there.
  await jsm.streams.add(config).catch(async (error: unknown) => {
    await jsm.streams.info(config.name).catch(() => {
      throw error;
    });
    await jsm.streams.update(config.name, config);
  });
}

/** Rows relayed per batch. */
const BATCH = 100;

/** Failed publishes of one row before it is parked (about 15 minutes of retries at the longest wait). */
export const MAX_PUBLISH_ATTEMPTS = 20;

/** The wait before the next publish of a row that failed `attempts` times: 0.5 s doubling, at most 60 s. */
export function retryDelayMs(attempts: number): number {
  return Math.min(60_000, 500 * 2 ** Math.max(0, attempts - 1));
}

/**
 * Whether NATS refused this publish for good, whatever the retries: the message exceeds the
 * server's max_payload or the stream's maximum message size, or the subject or the request is
 * invalid. Anything else (timeouts, no responders, a lost connection) may pass on a later try.
 */
export function isPermanentPublishError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  if (error.name === 'InvalidArgumentError' || error.name === 'InvalidSubjectError') return true;
  if (error.name === 'JetStreamApiError') {
    const { code, status } = error as Error & { code?: number; status?: number };
    // 10054: message size exceeds maximum allowed; 400: a request JetStream will never accept.
    return code === 10054 || status === 400;
  }
  return /max_payload|maximum payload|message size exceeds/i.test(error.message);
}

/** What the relay publishes with: JetStream's publish, or a stand-in in tests. */
export interface OutboxPublisher {
  publish(subject: string, payload: string, options: { msgID: string; headers?: MsgHdrs }): Promise<unknown>;
}

export interface OutboxRelayOptions {
  dataSource: DataSource;
  nc: NatsConnection;
  namespace: string;
  logger: Logger;
  metrics?: OutboxMetrics;
  /** Replaces JetStream's publish (tests). */
  publisher?: OutboxPublisher;
  /** A claim slower than this refreshes the outbox's statistics (at most once a minute); default 250 ms. */
  slowClaimMs?: number;
}

/** Quick looks after a batch that settled rows, before the relay waits for a commit or its poll. */
const QUICK_LOOKS = 4;

/** A claim takes well under a millisecond with sound statistics, whatever the backlog. */
const SLOW_CLAIM_MS = 250;
const ANALYZE_INTERVAL_MS = 60_000;

/**
 * Relays outbox rows to JetStream at least once, in order per record (decisions.md "Event
 * pipeline and fan-out bounds"). Each batch is locked with FOR UPDATE SKIP LOCKED, so any number
 * of relays run at once; the claim leaves out a record whose earlier row another relay holds or
 * waits to retry. Within a batch, the rows of one record are published one after the other
 * (each after the previous ack), different records at the same time. A row is marked sent only
 * after JetStream acknowledged it, with its event id as message id: a crash between publish and
 * mark re-publishes, and JetStream drops the duplicate inside its window.
 *
 * Each message carries the writing request's id (X-Request-Id) and, while tracing, the traceparent
 * of a producer span (a child of the span that wrote the row) in its headers.
 *
 * A row NATS refuses for good (too large, invalid) is parked: kept with the reason, counted and
 * logged, and no longer tried; it holds back neither other records nor later events of its own
 * record. Any other failure holds back only its record: the row is tried again after a growing
 * wait and parked after {@link MAX_PUBLISH_ATTEMPTS} failures. A batch in which every publish
 * failed that way is the connection's failure, not the rows': nothing is counted against them.
 */
export class OutboxRelay {
  private readonly publisher: OutboxPublisher;
  private readonly dataSource: DataSource;
  private readonly namespace: string;
  private readonly logger: Logger;
  private readonly metrics: OutboxMetrics | undefined;
  private wakeUp: (() => void) | undefined;
  private woken = false;
  private readonly slowClaimMs: number;
  private analyzedAt = -Infinity;

  constructor(options: OutboxRelayOptions) {
    this.dataSource = options.dataSource;
    this.namespace = options.namespace;
    this.logger = options.logger;
    this.metrics = options.metrics;
    this.publisher = options.publisher ?? jetstream(options.nc);
    this.slowClaimMs = options.slowClaimMs ?? SLOW_CLAIM_MS;
  }

  /**
   * Relays one batch; returns how many rows it settled (published or parked): 0 when there was
   * nothing to do, or nothing this relay could take.
   */
  async relayBatch(limit = BATCH): Promise<number> {
    return this.dataSource.transaction(async (tx) => {
      const claimStarted = performance.now();
      const rows = await claimOutboxBatch(tx, limit);
      this.refreshStatisticsIfSlow(performance.now() - claimStarted);
      const published: OutboxRow[] = [];
      const parked: Array<OutboxFailure & { reason: ParkReason }> = [];
      const failed: Array<OutboxFailure & { row: OutboxRow; cause: unknown }> = [];
      await Promise.all(
        [...groupByRecord(rows).values()].map(async (chain) => {
          for (const row of chain) {
            const subject = eventSubject(this.namespace, row.type, row.reason);
            const span = tracingEnabled() && row.traceparent ? this.publishSpan(row) : undefined;
            try {
              await this.publisher.publish(subject, JSON.stringify(toDomainEvent(row)), {
                msgID: row.event_id,
                headers: messageHeaders(row, span ? contextWithSpan(span, contextOfTraceparent(row.traceparent)) : undefined),
              });
              endSpan(span);
              published.push(row);
            } catch (error) {
              endSpan(span, (error as Error)?.name ?? 'publish failed');
              if (isPermanentPublishError(error)) {
                // Parked rows hold nothing back: the record's later events go on (each carries the whole record).
                parked.push({ seq: row.seq, error: describe(error), reason: 'rejected' });
                continue;
              }
              // The record's later rows wait for this one.
              failed.push({ seq: row.seq, error: describe(error), row, cause: error });
              break;
            }
          }
        }),
      );
      if (published.length === 0 && parked.length === 0 && failed.length > 0) throw failed[0].cause;
      await markOutboxPublished(
        tx,
        published.map((r) => r.seq),
      );
      const retries = failed.filter((f) => f.row.attempts + 1 < MAX_PUBLISH_ATTEMPTS);
      for (const f of failed)
        if (f.row.attempts + 1 >= MAX_PUBLISH_ATTEMPTS)
          parked.push({ seq: f.seq, error: `${MAX_PUBLISH_ATTEMPTS} publishes failed; last: ${f.error}`, reason: 'retries_exhausted' });
      await parkOutboxRows(tx, parked);
      await retryOutboxRows(
        tx,
        retries.map((f) => ({ seq: f.seq, error: f.error, delayMs: retryDelayMs(f.row.attempts + 1) })),
      );
      this.observe(published, parked, retries, rows);
      return published.length + parked.length;
    });
  }

  /** A producer span for one row's publish, in the trace of the request that wrote it. */
  private publishSpan(row: OutboxRow) {
    // Named by event type and reason (contract constants, never input): bounded.
    return startSpan(
      `outbox publish ${row.type}.${row.reason}`,
      SpanKind.PRODUCER,
      {
        'messaging.system': 'nats',
        'messaging.operation.type': 'send',
        'messaging.message.id': row.event_id,
        'crm.request_id': row.request_id ?? '',
        'crm.record_id': row.record_id,
      },
      contextOfTraceparent(row.traceparent),
    );
  }

  /**
   * A slow claim means the planner misjudges the backlog (statistics missing or stale, e.g. a
   * fresh database, or autovacuum kept from running by restarts): ANALYZE the outbox, outside the
   * batch's transaction and at most once a minute.
   */
  private refreshStatisticsIfSlow(claimMs: number): void {
    const now = performance.now();
    if (claimMs < this.slowClaimMs || now - this.analyzedAt < ANALYZE_INTERVAL_MS) return;
    this.analyzedAt = now;
    this.logger.warn({ claim_ms: Math.round(claimMs) }, 'slow outbox claim: refreshing the outbox statistics');
    analyzeOutbox(this.dataSource.manager).catch((error: unknown) =>
      this.logger.warn({ detail: (error as Error).message }, 'could not analyze the outbox'),
    );
  }

  private observe(
    published: OutboxRow[],
    parked: Array<OutboxFailure & { reason: ParkReason }>,
    retries: Array<OutboxFailure & { row: OutboxRow }>,
    rows: OutboxRow[],
  ): void {
    this.metrics?.published.inc(published.length);
    if (this.metrics) {
      const now = Date.now();
      for (const row of published) this.metrics.lag.observe(Math.max(0, now - new Date(row.occurred_at).getTime()) / 1000);
    }
    for (const row of published) if (row.truncated_bytes !== null) this.metrics?.truncated.inc({ type: row.type });
    if (retries.length > 0) this.metrics?.failed.inc(retries.length);
    const bySeq = new Map(rows.map((r) => [r.seq, r]));
    for (const p of parked) {
      this.metrics?.parked.inc({ reason: p.reason });
      const row = bySeq.get(p.seq);
      this.logger.error(
        {
          seq: p.seq,
          event_id: row?.event_id,
          request_id: row?.request_id ?? undefined,
          account_id: row?.account_id,
          type: row?.type,
          reason: row?.reason,
          record_id: row?.record_id,
          detail: p.error,
        },
        'outbox relay: event parked; it will not be relayed (decisions.md "Event pipeline and fan-out bounds")',
      );
    }
    for (const f of retries)
      this.logger.warn(
        {
          seq: f.seq,
          event_id: f.row.event_id,
          request_id: f.row.request_id ?? undefined,
          record_id: f.row.record_id,
          attempts: f.row.attempts + 1,
          detail: f.error,
        },
        'outbox relay: publish failed; the record waits for a retry',
      );
  }

  /** Ends the current idle wait at once (an event committed: see {@link OUTBOX_CHANNEL}). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  /** Relays until stopped: at once while there is a backlog or when woken, else every `idleMs`. */
  run(idleMs = 200): { stop(): Promise<void> } {
    let running = true;
    const loop = (async () => {
      let failures = 0;
      // Quick looks left after a batch that settled rows (see below).
      let lookAgain = 0;
      while (running) {
        let count = 0;
        this.woken = false;
        try {
          count = await this.relayBatch(BATCH);
          failures = 0;
        } catch (error) {
          failures += 1;
          this.logger.warn({ detail: (error as Error).message, failures }, 'outbox relay: batch failed; retrying');
        }
        // A short batch emptied the backlog: wait for the next commit's NOTIFY (or the poll) rather than probe again.
        // After failed batches (NATS or PostgreSQL away) the poll slows down, up to 5 s; a commit still wakes it.
        // A batch that settled rows may have left others out, still locked by another relay's claim
        // (rows it claimed but held back for order stay locked until its transaction ends), and no
        // commit will wake anyone for them: look again a few times soon (25, 50, 100, 200 ms) before idling.
        if (count > 0) lookAgain = QUICK_LOOKS;
        if (count < BATCH && !this.woken && running) {
          let waitMs = failures > 0 ? Math.min(5000, idleMs * 2 ** Math.min(failures, 5)) : idleMs;
          if (failures === 0 && lookAgain > 0) {
            waitMs = Math.min(waitMs, 25 * 2 ** (QUICK_LOOKS - lookAgain));
            lookAgain -= 1;
          }
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, waitMs);
            this.wakeUp = () => {
              clearTimeout(timer);
              resolve();
            };
          });
          this.wakeUp = undefined;
        }
      }
    })();
    return {
      stop: async () => {
        running = false;
        this.wakeUp?.();
        await loop;
      },
    };
  }
}

/** The message of a row: the DomainEvent the dispatcher reads. */
function toDomainEvent(row: OutboxRow): DomainEvent {
  return {
    event_id: row.event_id,
    account_id: row.account_id,
    type: row.type,
    reason: row.reason,
    record_id: row.record_id,
    contact_status_id: row.contact_status_id,
    timestamp: Math.floor(new Date(row.occurred_at).getTime() / 1000),
    data: row.data,
  };
}

/**
 * The headers of a row's message: the request id it was written under, and the W3C trace context
 * of `traced` (its publish span) or else the stored traceparent as is. None when the row has neither.
 */
function messageHeaders(row: OutboxRow, traced: ReturnType<typeof contextWithSpan> | undefined): MsgHdrs | undefined {
  if (!row.request_id && !row.traceparent) return undefined;
  const headers = natsHeaders();
  if (row.request_id) headers.set(RpcHeaders.requestId, row.request_id);
  if (traced) injectTraceHeaders((name, value) => headers.set(name, value), traced);
  else if (row.traceparent) headers.set('traceparent', row.traceparent);
  return headers;
}

/** Rows by record (account and record id), each list in outbox order. */
function groupByRecord(rows: OutboxRow[]): Map<string, OutboxRow[]> {
  const chains = new Map<string, OutboxRow[]>();
  for (const row of rows) {
    const key = `${row.account_id}/${row.record_id}`;
    const chain = chains.get(key);
    if (chain) chain.push(row);
    else chains.set(key, [row]);
  }
  return chains;
}

/** A publish error as stored with the row and logged: its name and message, at most 500 characters. */
function describe(error: unknown): string {
  const e = error instanceof Error ? error : new Error(String(error));
  return `${e.name}: ${e.message}`.slice(0, 500);
}
