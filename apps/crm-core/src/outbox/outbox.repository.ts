import type { DomainEventType } from '@crm/contracts';
import type pg from 'pg';
import { execute, many, one, sql, type Db, type SqlFragment } from '../common/sql';

/** NOTIFY channel that wakes the relays when an event commits (the notification is sent at commit only). */
export const OUTBOX_CHANNEL = 'crm_outbox';

/** crm.outbox: one event waiting to be (or already) relayed to JetStream. */
export interface OutboxRow {
  seq: string;
  event_id: string;
  account_id: string;
  type: DomainEventType;
  reason: string;
  record_id: string;
  contact_status_id: string | null;
  occurred_at: Date;
  data: Record<string, unknown>;
  /** Failed publishes so far (each followed by a wait, see {@link retryOutboxRows}). */
  attempts: number;
  /** Bytes of the original `data` when it was written in its reduced form; null when whole. */
  truncated_bytes: number | null;
  /** The X-Request-Id of the request that wrote it, if any. */
  request_id: string | null;
  /** The W3C traceparent of the span that wrote it (while tracing), if any. */
  traceparent: string | null;
}

/** An event as written: `data_json` is the serialized `data`, already bounded in size. */
export interface NewOutboxRow {
  event_id: string;
  account_id: string;
  type: DomainEventType;
  reason: string;
  record_id: string;
  contact_status_id: string | null;
  data_json: string;
  truncated_bytes: number | null;
  request_id: string | null;
  traceparent: string | null;
}

/** A row that could not be published, and why. */
export interface OutboxFailure {
  seq: string;
  error: string;
}

/**
 * Writes an event in the caller's transaction. The same statement queues a NOTIFY, delivered at
 * commit, so a relay publishes it at once instead of at its next poll.
 */
export async function insertOutboxEvent(db: Db, event: NewOutboxRow): Promise<void> {
  await insertWithOutboxEvent(db, [], event);
}

/**
 * {@link insertOutboxEvent} in the same statement as `changes` (data-modifying statements, each
 * run as a CTE: an INSERT, an UPDATE...): a write and its event in one round trip. Every change
 * runs, whatever it returns; one that fails fails the whole statement.
 */
export async function insertWithOutboxEvent(db: Db, changes: readonly SqlFragment[], event: NewOutboxRow): Promise<void> {
  const ctes = changes.map((change, i) => sql`${sql.raw(`change_${i}`)} AS (${change}), `);
  await execute(
    db,
    sql`WITH ${sql.join(ctes, '')}written AS (
          INSERT INTO crm.outbox (event_id, account_id, type, reason, record_id, contact_status_id, data, truncated_bytes, request_id, traceparent)
          VALUES (${event.event_id}, ${event.account_id}, ${event.type}, ${event.reason}, ${event.record_id}, ${event.contact_status_id},
                  ${event.data_json}::jsonb, ${event.truncated_bytes}, ${event.request_id}, ${event.traceparent})
          RETURNING 1)
        SELECT pg_notify(${OUTBOX_CHANNEL}, '') FROM written`,
    { prepare: true },
  );
}

/**
 * Claims the next batch for the calling transaction's relay, oldest first, locked with FOR UPDATE
 * SKIP LOCKED so relays running at once never take the same row. Order is kept per record
 * (account and record id), not across records (decisions.md "Event pipeline and fan-out bounds"):
 * - a row waiting for its retry (`retry_at` ahead) holds back the later rows of its record, and
 *   those rows are not claimed at all (they would fill the batch and publish nothing);
 * - a claimed row is returned only when no earlier pending row of its record is outside this claim
 *   (locked by another relay, or past the LIMIT), so two relays never publish one record's
 *   events at the same time and a later event never overtakes an earlier one;
 * - parked rows hold back nothing.
 * The rows left out stay locked until the transaction ends and wait for a later batch.
 */
export function claimOutboxBatch(db: Db, limit: number): Promise<OutboxRow[]> {
  return many(
    db,
    sql`WITH claimed AS MATERIALIZED (
          SELECT o.seq, o.account_id, o.record_id
          FROM crm.outbox o
          WHERE o.published_at IS NULL AND o.parked_at IS NULL AND (o.retry_at IS NULL OR o.retry_at <= now())
            AND NOT EXISTS (
              SELECT 1 FROM crm.outbox w
              WHERE w.account_id = o.account_id AND w.record_id = o.record_id AND w.seq < o.seq
                AND w.published_at IS NULL AND w.parked_at IS NULL AND w.retry_at IS NOT NULL AND w.retry_at > now())
          ORDER BY o.seq LIMIT ${limit}
          FOR UPDATE OF o SKIP LOCKED),
        held AS (
          -- Per record, its first pending row this claim did not take (walks the record's index from its oldest row).
          SELECT r.account_id, r.record_id,
                 (SELECT e.seq FROM crm.outbox e
                  WHERE e.account_id = r.account_id AND e.record_id = r.record_id AND e.published_at IS NULL AND e.parked_at IS NULL
                    AND e.seq NOT IN (SELECT seq FROM claimed)
                  ORDER BY e.seq LIMIT 1) AS first_seq
          FROM (SELECT DISTINCT account_id, record_id FROM claimed) r)
        SELECT o.seq, o.event_id, o.account_id, o.type, o.reason, o.record_id, o.contact_status_id, o.occurred_at, o.data,
               o.attempts, o.truncated_bytes, o.request_id, o.traceparent
        FROM claimed c
        JOIN crm.outbox o ON o.seq = c.seq
        LEFT JOIN held h ON h.account_id = c.account_id AND h.record_id = c.record_id
        WHERE h.first_seq IS NULL OR c.seq < h.first_seq
        ORDER BY o.seq`,
    { prepare: true },
  );
}

/** Fresh planner statistics for the outbox (the claim's plan depends on how many rows are pending). */
export async function analyzeOutbox(db: Db): Promise<void> {
  await execute(db, sql`ANALYZE crm.outbox`);
}

export async function markOutboxPublished(db: Db, seqs: readonly string[]): Promise<void> {
  if (seqs.length === 0) return;
  await execute(db, sql`UPDATE crm.outbox SET published_at = now() WHERE seq = ANY(${seqs}::bigint[])`, { prepare: true });
}

/** Parks rows that can never be published: kept (with the reason), never claimed again, holding back nothing. */
export async function parkOutboxRows(db: Db, failures: readonly OutboxFailure[]): Promise<void> {
  if (failures.length === 0) return;
  await execute(
    db,
    sql`UPDATE crm.outbox o SET parked_at = now(), last_error = f.error, attempts = o.attempts + 1
        FROM unnest(${failures.map((f) => f.seq)}::bigint[], ${failures.map((f) => f.error)}::text[]) AS f(seq, error)
        WHERE o.seq = f.seq`,
    { prepare: true },
  );
}

/** Counts a failed publish and schedules the next one `delayMs` later (the row's record waits meanwhile). */
export async function retryOutboxRows(db: Db, failures: ReadonlyArray<OutboxFailure & { delayMs: number }>): Promise<void> {
  if (failures.length === 0) return;
  await execute(
    db,
    sql`UPDATE crm.outbox o
        SET attempts = o.attempts + 1, last_error = f.error, retry_at = now() + f.delay_ms * interval '1 millisecond'
        FROM unnest(${failures.map((f) => f.seq)}::bigint[], ${failures.map((f) => f.error)}::text[],
                    ${failures.map((f) => f.delayMs)}::int[]) AS f(seq, error, delay_ms)
        WHERE o.seq = f.seq`,
    { prepare: true },
  );
}

/** What the relay's gauges show at scrape time: rows waiting to be published, rows parked, and the oldest waiting row's age. */
export interface OutboxBacklog {
  pending: number;
  parked: number;
  /** Seconds since the oldest waiting row was written; 0 when none waits. */
  oldest_pending_seconds: number;
}

/** Rows waiting to be published, rows parked, and the age of the oldest waiting one (its seq is the first of the pending index). */
export function outboxBacklog(db: Db): Promise<OutboxBacklog> {
  return one(
    db,
    sql`SELECT (SELECT count(*)::int FROM crm.outbox WHERE published_at IS NULL AND parked_at IS NULL) AS pending,
               (SELECT count(*)::int FROM crm.outbox WHERE parked_at IS NOT NULL) AS parked,
               COALESCE((SELECT extract(epoch FROM clock_timestamp() - occurred_at)::float8 FROM crm.outbox
                         WHERE published_at IS NULL AND parked_at IS NULL ORDER BY seq LIMIT 1), 0) AS oldest_pending_seconds`,
  );
}

/** Subscribes a dedicated session to the outbox's commit notifications. */
export async function listenForOutboxEvents(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
}
