import type { DomainEventType } from '@crm/contracts';
import type pg from 'pg';
import { execute, many, sql, type Db } from '../common/sql';

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
}

export type NewOutboxRow = Pick<OutboxRow, 'event_id' | 'account_id' | 'type' | 'reason' | 'record_id' | 'contact_status_id' | 'data'>;

/** Advisory lock held by the relay that is publishing (one at a time keeps the stream in outbox order). */
const RELAY_LOCK = 0x6f757462; // "outb"

/**
 * Writes an event in the caller's transaction. The same statement queues a NOTIFY, delivered at
 * commit, so a relay publishes it at once instead of at its next poll.
 */
export async function insertOutboxEvent(db: Db, event: NewOutboxRow): Promise<void> {
  await execute(
    db,
    sql`WITH written AS (
          INSERT INTO crm.outbox (event_id, account_id, type, reason, record_id, contact_status_id, data)
          VALUES (${event.event_id}, ${event.account_id}, ${event.type}, ${event.reason}, ${event.record_id}, ${event.contact_status_id},
                  ${JSON.stringify(event.data)})
          RETURNING 1)
        SELECT pg_notify(${OUTBOX_CHANNEL}, '') FROM written`,
    { prepare: true },
  );
}

/**
 * Claims the next batch for the calling transaction's relay: the relay lock and the oldest
 * unpublished rows (FOR UPDATE SKIP LOCKED) in one round trip; no rows when another relay holds
 * the lock.
 */
export function claimOutboxBatch(db: Db, limit: number): Promise<OutboxRow[]> {
  return many(
    db,
    sql`WITH relay AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(${RELAY_LOCK}) AS locked)
        SELECT o.seq, o.event_id, o.account_id, o.type, o.reason, o.record_id, o.contact_status_id, o.occurred_at, o.data
        FROM crm.outbox o, relay WHERE relay.locked AND o.published_at IS NULL ORDER BY o.seq LIMIT ${limit} FOR UPDATE OF o SKIP LOCKED`,
    { prepare: true },
  );
}

export async function markOutboxPublished(db: Db, seqs: readonly string[]): Promise<void> {
  await execute(db, sql`UPDATE crm.outbox SET published_at = now() WHERE seq = ANY(${seqs}::bigint[])`, { prepare: true });
}

/** Subscribes a dedicated session to the outbox's commit notifications. */
export async function listenForOutboxEvents(client: pg.Client): Promise<void> {
  await client.query(`LISTEN ${OUTBOX_CHANNEL}`);
}
