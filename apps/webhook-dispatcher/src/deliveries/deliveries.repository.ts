import { Injectable } from '@nestjs/common';
import type { WebhookDeliveryStatus } from '@crm/contracts';
import { execute, many, maybeOne, one, sql, type Db } from '@crm/database';
import { DataSource } from 'typeorm';

/** A webhook as the dispatcher needs it to choose and sign deliveries. */
export interface WebhookTarget {
  id: string;
  account_id: string;
  hook_url: string;
  secretkey: string;
  types: string[];
  status_id: string | null;
  active: boolean;
  /** The current signing secret, then the previous one while a rotation overlaps. */
  secrets: string[];
}

/** An event taken from the stream that has at least one delivery. */
export interface IngestedEvent {
  event_id: string;
  account_id: string;
  type: string;
  reason: string;
  record_id: string;
  /** The event's Unix seconds (the body's `timestamp`). */
  timestamp: number;
  /** When JetStream stored it (ms): the start of the delivery latency. */
  published_at_ms: number;
  stream_seq: number;
  /** `data` serialized once, spliced into every body as is. */
  data_json: string;
  /** X-Request-Id of the request that caused the event, sent with every delivery of it. */
  request_id: string | null;
  /** W3C traceparent its deliveries continue (the ingest span's, or the message's own). */
  traceparent: string | null;
}

export interface NewDelivery {
  id: string;
  event_id: string;
  webhook_id: string;
  record_id: string;
  event_seq: number;
  /** Claim it for this replica at once (it has room, and nothing older of the record is waiting). */
  claim: boolean;
}

/** A delivery claimed by this replica, with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  webhook_id: string;
  event_id: string;
  record_id: string;
  event_seq: number;
  /** Tries made in the current round (a redelivery starts a new round). */
  tries: number;
  /** Attempts made in all (0: this is the first). */
  attempt_count: number;
  type: string;
  reason: string;
  timestamp: number;
  published_at_ms: number;
  data_json: string;
  hook_url: string;
  secretkey: string;
  secrets: string[];
  /** The event's request id and traceparent (see {@link IngestedEvent}). */
  request_id: string | null;
  traceparent: string | null;
  /** The replica key that claimed it: the result is written only while the claim is still ours. */
  claim_key: number;
}

/** The outcome of one attempt, to be written with the delivery's new state. */
export interface AttemptRecord {
  delivery_id: string;
  claim_key: number;
  status: WebhookDeliveryStatus;
  attempted_at: Date;
  duration_ms: number;
  response_code: number | null;
  error: string | null;
  /** Delay before the next try (status pending). */
  delay_ms: number | null;
}

export interface DeliveryRow {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  reason: string;
  record_id: string;
  status: WebhookDeliveryStatus;
  /** The last attempt (the earlier ones are in the attempts table). */
  last_attempted_at: Date | null;
  last_response_code: number | null;
  last_duration_ms: number | null;
  last_error: string | null;
  next_attempt_at: Date | null;
  created_at: Date;
  completed_at: Date | null;
  locked_by: number | null;
}

export interface AttemptRow {
  delivery_id: string;
  attempted_at: Date;
  duration_ms: number;
  response_code: number | null;
  error: string | null;
}

const SECRETS = sql.raw(
  'CASE WHEN w.previous_signing_secret IS NOT NULL AND w.previous_secret_expires_at > now() THEN ARRAY[w.signing_secret, w.previous_signing_secret] ELSE ARRAY[w.signing_secret] END',
);

/** First attempts of one record to one webhook go out in stream order: nothing older may still wait for its first. */
const noOlderFirstAttempt = (alias: 'n' | 'c') =>
  sql.raw(
    `NOT EXISTS (SELECT 1 FROM webhooks.deliveries p WHERE p.webhook_id = ${alias}.webhook_id AND p.record_id = ${alias}.record_id AND p.status = 'pending' AND p.attempt_count = 0 AND p.event_seq < ${alias}.event_seq)`,
  );

const DELIVERY_COLUMNS = sql.raw(
  'd.id, d.webhook_id, d.event_id, e.type, e.reason, d.record_id, d.status, d.last_attempted_at, d.last_response_code, d.last_duration_ms, d.last_error, d.next_attempt_at, d.created_at, d.completed_at, d.locked_by',
);

/** The events of one ingest as one JSON text (no per-character array escaping); each event's data spliced in as serialized. */
function eventsJson(events: IngestedEvent[]): string {
  const items = events.map((e) => {
    const head = JSON.stringify({
      event_id: e.event_id,
      account_id: e.account_id,
      type: e.type,
      reason: e.reason,
      record_id: e.record_id,
      occurred_at: e.timestamp,
      published_ms: e.published_at_ms,
      stream_seq: e.stream_seq,
      request_id: e.request_id,
      traceparent: e.traceparent,
    });
    return `${head.slice(0, -1)},"data":${e.data_json}}`;
  });
  return `[${items.join(',')}]`;
}

/**
 * Every statement of the delivery pipeline and the delivery log (schema "webhooks"). Each one
 * commits alone (the pipeline's writes are single statements by design, see `ingest` and
 * `recordAttempts`), so the repository runs them on its data source's pool rather than taking an
 * executor per call; it is shared by the pipeline's parts, which are not Nest providers.
 */
@Injectable()
export class DeliveriesRepository {
  constructor(private readonly dataSource: DataSource) {}

  private get db(): Db {
    return this.dataSource.manager;
  }

  /** Active webhooks of these accounts. */
  async activeWebhooksOf(accountIds: string[]): Promise<WebhookTarget[]> {
    if (accountIds.length === 0) return [];
    return many(
      this.db,
      sql`SELECT w.id, w.account_id, w.hook_url, w.secretkey, w.types, w.status_id, w.active, ${SECRETS} AS secrets
          FROM webhooks.webhooks w WHERE w.account_id = ANY(${accountIds}::varchar[]) AND w.active ORDER BY w.created_at, w.id`,
    );
  }

  /** The account's webhook `id` (lower case) as the delivery log needs it, or undefined (another account's too). */
  webhookOfAccount(accountId: string, id: string): Promise<{ id: string; active: boolean } | undefined> {
    return maybeOne(this.db, sql`SELECT id, active FROM webhooks.webhooks WHERE id = ${id} AND account_id = ${accountId}`);
  }

  /** A deleted status: webhooks filtering on it fall back to the account's lead status. */
  async fallBackStatus(accountId: string, statusId: string, leadStatusId: string): Promise<void> {
    await execute(
      this.db,
      sql`UPDATE webhooks.webhooks SET status_id = ${leadStatusId.toLowerCase()}, modified_at = now()
          WHERE account_id = ${accountId} AND status_id = ${statusId.toLowerCase()}`,
    );
  }

  /**
   * Records events and their deliveries in one statement (one commit): a delivery that exists
   * already for (event, webhook) is left alone, so a redelivered or re-published event adds
   * nothing. Rows asked to be claimed are claimed by `claimKey` unless an older first attempt of
   * the same record to the same webhook still waits. Returns the inserted ids and whether each
   * was claimed.
   */
  async ingest(events: IngestedEvent[], deliveries: NewDelivery[], claimKey: number): Promise<Array<{ id: string; claimed: boolean }>> {
    if (deliveries.length === 0) return [];
    const rows = await many<{ id: string; locked_by: number | null }>(
      this.db,
      sql`WITH ev AS (
            INSERT INTO webhooks.events (event_id, account_id, type, reason, record_id, occurred_at, published_at, stream_seq, data, request_id, traceparent)
            SELECT t.event_id, t.account_id, t.type, t.reason, t.record_id, t.occurred_at, to_timestamp(t.published_ms / 1000.0), t.stream_seq, t.data, t.request_id, t.traceparent
            FROM json_to_recordset(${eventsJson(events)}::json)
              AS t(event_id varchar, account_id varchar, type varchar, reason varchar, record_id varchar, occurred_at bigint, published_ms float8, stream_seq bigint, data json, request_id varchar, traceparent varchar)
            ON CONFLICT (event_id) DO NOTHING
          ),
          n AS (
            SELECT * FROM unnest(
              ${deliveries.map((d) => d.id)}::varchar[],
              ${deliveries.map((d) => d.event_id)}::varchar[],
              ${deliveries.map((d) => d.webhook_id)}::varchar[],
              ${deliveries.map((d) => d.record_id)}::varchar[],
              ${deliveries.map((d) => d.event_seq)}::bigint[],
              ${deliveries.map((d) => d.claim)}::boolean[]
            ) AS t(id, event_id, webhook_id, record_id, event_seq, claim)
          )
          INSERT INTO webhooks.deliveries (id, event_id, webhook_id, record_id, event_seq, next_attempt_at, locked_by)
          SELECT n.id, n.event_id, n.webhook_id, n.record_id, n.event_seq, now(), CASE WHEN n.claim AND ${noOlderFirstAttempt('n')} THEN ${claimKey}::int END
          FROM n JOIN webhooks.webhooks w ON w.id = n.webhook_id
          ON CONFLICT (event_id, webhook_id) DO NOTHING
          RETURNING id, locked_by`,
    );
    return rows.map((r) => ({ id: r.id, claimed: r.locked_by !== null }));
  }

  /**
   * Claims due deliveries of active webhooks for this replica (FOR UPDATE SKIP LOCKED: replicas
   * never take the same rows): the webhooks with waiting deliveries are found by a skip scan of the
   * schedule's index, those this replica has no room for are left out without reading their
   * backlog, and each other webhook gives at most `perWebhook` of its oldest due deliveries —
   * except first attempts that must wait for an older one of the same record.
   */
  async claimDue(claimKey: number, limit: number, perWebhook: number, skipWebhookIds: string[]): Promise<ClaimedDelivery[]> {
    const rows = await many<
      Omit<ClaimedDelivery, 'claim_key' | 'event_seq' | 'timestamp' | 'published_at_ms'> & {
        event_seq: string;
        timestamp: string;
        published_at: Date;
      }
    >(
      this.db,
      sql`WITH RECURSIVE waiting(webhook_id) AS (
            (SELECT webhook_id FROM webhooks.deliveries WHERE status = 'pending' AND locked_by IS NULL ORDER BY webhook_id LIMIT 1)
            UNION ALL
            SELECT (SELECT d.webhook_id FROM webhooks.deliveries d WHERE d.status = 'pending' AND d.locked_by IS NULL AND d.webhook_id > waiting.webhook_id ORDER BY d.webhook_id LIMIT 1)
            FROM waiting WHERE waiting.webhook_id IS NOT NULL
          ),
          picked AS (
            SELECT c.id FROM waiting
            JOIN webhooks.webhooks w ON w.id = waiting.webhook_id AND w.active
            CROSS JOIN LATERAL (
              SELECT c.id FROM webhooks.deliveries c
              WHERE c.webhook_id = waiting.webhook_id AND c.status = 'pending' AND c.locked_by IS NULL AND c.next_attempt_at <= now()
                AND (c.attempt_count > 0 OR ${noOlderFirstAttempt('c')})
              ORDER BY c.next_attempt_at
              LIMIT ${perWebhook}
              FOR UPDATE OF c SKIP LOCKED
            ) c
            WHERE NOT (waiting.webhook_id = ANY(${skipWebhookIds}::varchar[]))
            LIMIT ${limit}
          )
          UPDATE webhooks.deliveries d SET locked_by = ${claimKey}
          FROM picked, webhooks.events e, webhooks.webhooks w
          WHERE d.id = picked.id AND e.event_id = d.event_id AND w.id = d.webhook_id
          RETURNING d.id, d.webhook_id, d.event_id, d.record_id, d.event_seq, d.tries, d.attempt_count, e.type, e.reason, e.occurred_at AS timestamp,
            e.published_at, e.data::text AS data_json, w.hook_url, w.secretkey, ${SECRETS} AS secrets, e.request_id, e.traceparent`,
    );
    return rows
      .map(({ published_at, ...r }) => ({
        ...r,
        event_seq: Number(r.event_seq),
        timestamp: Number(r.timestamp),
        published_at_ms: new Date(published_at).getTime(),
        claim_key: claimKey,
      }))
      .sort((a, b) => a.event_seq - b.event_seq);
  }

  /**
   * Writes attempts and the new state of their deliveries in one statement: the new attempt becomes
   * the row's `last_*` and the one it replaces moves to the attempts table (a delivery that succeeds
   * at once writes no attempt row). Only while the claim is still ours: a replica thought dead may
   * have been replaced, and then the replacement's outcome counts.
   */
  async recordAttempts(records: AttemptRecord[]): Promise<void> {
    if (records.length === 0) return;
    await execute(
      this.db,
      sql`WITH r AS (
            SELECT * FROM unnest(
              ${records.map((r) => r.delivery_id)}::varchar[],
              ${records.map((r) => r.claim_key)}::int[],
              ${records.map((r) => r.status)}::varchar[],
              ${records.map((r) => r.attempted_at)}::timestamptz[],
              ${records.map((r) => r.duration_ms)}::int[],
              ${records.map((r) => r.response_code)}::int[],
              ${records.map((r) => (r.error === null ? null : r.error.slice(0, 300)))}::varchar[],
              ${records.map((r) => r.delay_ms)}::float8[]
            ) AS t(id, claim_key, status, attempted_at, duration_ms, response_code, error, delay_ms)
          ),
          moved AS (
            INSERT INTO webhooks.delivery_attempts (delivery_id, attempted_at, duration_ms, response_code, error)
            SELECT x.id, x.last_attempted_at, x.last_duration_ms, x.last_response_code, x.last_error
            FROM r JOIN webhooks.deliveries x ON x.id = r.id WHERE x.last_attempted_at IS NOT NULL
          )
          UPDATE webhooks.deliveries d SET
            status = r.status,
            attempt_count = d.attempt_count + 1,
            tries = d.tries + 1,
            next_attempt_at = CASE WHEN r.status = 'pending' THEN now() + r.delay_ms * interval '1 millisecond' END,
            completed_at = CASE WHEN r.status = 'pending' THEN NULL ELSE now() END,
            last_response_code = r.response_code,
            last_duration_ms = r.duration_ms,
            last_error = r.error,
            last_attempted_at = r.attempted_at,
            locked_by = NULL
          FROM r WHERE d.id = r.id AND d.locked_by = r.claim_key`,
    );
  }

  /** Gives claimed deliveries back untouched (a replica stopping before it sent them). */
  async release(claimKey: number, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await execute(
      this.db,
      sql`UPDATE webhooks.deliveries SET locked_by = NULL WHERE id = ANY(${ids}::varchar[]) AND locked_by = ${claimKey}`,
    );
  }

  /** Switches a webhook off (its receiver answered 410 Gone) and fails what still waits for it. */
  async disableWebhook(webhookId: string, reason: string): Promise<void> {
    await execute(this.db, sql`UPDATE webhooks.webhooks SET active = false, modified_at = now() WHERE id = ${webhookId} AND active`);
    await this.failPending(webhookId, reason);
  }

  /** Fails the pending deliveries of a webhook that was switched off (not those being attempted right now). */
  async failPending(webhookId: string, reason: string): Promise<void> {
    await execute(
      this.db,
      sql`UPDATE webhooks.deliveries SET status = 'failed', next_attempt_at = NULL, completed_at = now(), last_error = ${reason}
          WHERE webhook_id = ${webhookId} AND status = 'pending' AND locked_by IS NULL`,
    );
  }

  /** Replica keys holding claims, other than ours (to find those of replicas that died). */
  async claimHolders(ownKey: number): Promise<number[]> {
    const rows = await many<{ locked_by: number }>(
      this.db,
      sql`SELECT DISTINCT locked_by FROM webhooks.deliveries WHERE locked_by IS NOT NULL AND locked_by <> ${ownKey}`,
    );
    return rows.map((r) => r.locked_by);
  }

  /** Finished deliveries past the retention, then events nothing refers to any more; returns how many deliveries went. */
  async purge(retentionDays: number, batch = 5000): Promise<number> {
    const deleted = await execute(
      this.db,
      sql`DELETE FROM webhooks.deliveries WHERE id IN (
            SELECT id FROM webhooks.deliveries WHERE status <> 'pending' AND completed_at < now() - ${retentionDays} * interval '1 day' LIMIT ${batch}
          )`,
    );
    await execute(
      this.db,
      sql`DELETE FROM webhooks.events e WHERE e.event_id IN (
            SELECT v.event_id FROM webhooks.events v
            WHERE v.created_at < now() - ${retentionDays} * interval '1 day' AND NOT EXISTS (SELECT 1 FROM webhooks.deliveries d WHERE d.event_id = v.event_id)
            LIMIT ${batch}
          )`,
    );
    return deleted;
  }

  /** Pending deliveries not claimed by a replica: due now, and scheduled later. */
  backlog(): Promise<{ due: number; scheduled: number }> {
    return one(
      this.db,
      sql`SELECT count(*) FILTER (WHERE next_attempt_at <= now())::int AS due, count(*) FILTER (WHERE next_attempt_at > now())::int AS scheduled
          FROM webhooks.deliveries WHERE status = 'pending' AND locked_by IS NULL`,
    );
  }

  // --- the delivery log (GET /webhooks/{id}/deliveries, redeliver) ---

  async countDeliveries(webhookId: string, status?: WebhookDeliveryStatus): Promise<number> {
    const { total } = await one<{ total: number }>(
      this.db,
      sql`SELECT count(*)::int AS total FROM webhooks.deliveries d WHERE d.webhook_id = ${webhookId} AND ${statusIs(status)}`,
    );
    return total;
  }

  /** One page of a webhook's deliveries, newest first. */
  listDeliveries(webhookId: string, status: WebhookDeliveryStatus | undefined, limit: number, offset: number): Promise<DeliveryRow[]> {
    return many(
      this.db,
      sql`SELECT ${DELIVERY_COLUMNS} FROM webhooks.deliveries d JOIN webhooks.events e ON e.event_id = d.event_id
          WHERE d.webhook_id = ${webhookId} AND ${statusIs(status)} ORDER BY d.created_at DESC, d.id DESC LIMIT ${limit} OFFSET ${offset}`,
    );
  }

  findDelivery(webhookId: string, deliveryId: string): Promise<DeliveryRow | undefined> {
    return maybeOne(
      this.db,
      sql`SELECT ${DELIVERY_COLUMNS} FROM webhooks.deliveries d JOIN webhooks.events e ON e.event_id = d.event_id
          WHERE d.webhook_id = ${webhookId} AND d.id = ${deliveryId}`,
    );
  }

  /** The earlier attempts of these deliveries (the last one is on the delivery's row), oldest first. */
  async attemptsOf(deliveryIds: string[]): Promise<AttemptRow[]> {
    if (deliveryIds.length === 0) return [];
    return many(
      this.db,
      sql`SELECT delivery_id, attempted_at, duration_ms, response_code, error FROM webhooks.delivery_attempts
          WHERE delivery_id = ANY(${deliveryIds}::varchar[]) ORDER BY delivery_id, id`,
    );
  }

  /**
   * Schedules a delivery again now with a fresh round of tries, unless an attempt is in progress.
   * Returns false when it is being attempted (claimed by a replica).
   */
  async redeliver(deliveryId: string): Promise<boolean> {
    const updated = await execute(
      this.db,
      sql`UPDATE webhooks.deliveries SET status = 'pending', tries = 0, next_attempt_at = now(), completed_at = NULL
          WHERE id = ${deliveryId} AND locked_by IS NULL`,
    );
    return updated > 0;
  }
}

/** The delivery log's status filter (every status when none). */
function statusIs(status: WebhookDeliveryStatus | undefined) {
  return status === undefined ? sql`true` : sql`d.status = ${status}`;
}
