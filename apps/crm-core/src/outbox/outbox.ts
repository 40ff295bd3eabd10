import { newId } from '@crm/common';
import { eventsStreamConfig, eventSubject, type DomainEvent, type DomainEventType } from '@crm/contracts';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { DataSource, EntityManager } from 'typeorm';

export interface NewEvent {
  account_id: string;
  type: DomainEventType;
  reason: string;
  record_id: string;
  /** Status of the contact the event is about (webhooks may filter on it); omit when none. */
  contact_status_id?: string | null;
  data: Record<string, unknown>;
}

/** NOTIFY channel that wakes the relays when an event commits (the notification is sent at commit only). */
export const OUTBOX_CHANNEL = 'crm_outbox';

/**
 * Writes an event in the caller's transaction: it is relayed if and only if the change commits.
 * The same statement queues a NOTIFY, delivered at commit, so a relay publishes it at once
 * instead of at its next poll.
 */
export async function writeEvent(manager: EntityManager, event: NewEvent): Promise<string> {
  const id = newId();
  await manager.query(
    `WITH written AS (INSERT INTO crm.outbox (event_id, account_id, type, reason, record_id, contact_status_id, data) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING 1)
     SELECT pg_notify('${OUTBOX_CHANNEL}', '') FROM written`,
    [id, event.account_id, event.type, event.reason, event.record_id, event.contact_status_id ?? null, JSON.stringify(event.data)],
  );
  return id;
}

/** Creates (or updates) the deployment's events stream: file storage, the duplicate window. */
export async function ensureEventsStream(nc: NatsConnection, namespace: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const stream = eventsStreamConfig(namespace);
  const config = { name: stream.name, subjects: stream.subjects, duplicate_window: nanos(stream.duplicateWindowMs) };
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, config);
  } catch {
    // The dispatcher may have created it a moment ago.
    await jsm.streams.add(config).catch(() => jsm.streams.info(config.name));
  }
}

interface OutboxRow {
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

/** Rows relayed per batch. */
const BATCH = 100;
/** Advisory lock held by the relay that is publishing (one at a time keeps the stream in outbox order). */
const RELAY_LOCK = 0x6f757462; // "outb"

/**
 * Relays outbox rows to JetStream in order, at least once: one relay publishes at a time (a
 * transaction-scoped advisory lock; the others find it taken and wait for the next wake-up, so the
 * stream keeps the outbox order and two replicas never interleave their batches), the batch is
 * locked with FOR UPDATE SKIP LOCKED, each row is published with its event id as message id —
 * the whole batch pipelined on one connection, so JetStream stores them in order — and marked
 * sent only after JetStream acknowledged it. A crash between publish and mark re-publishes;
 * JetStream drops the duplicate inside its window.
 */
export class OutboxRelay {
  private readonly js: JetStreamClient;
  private wakeUp: (() => void) | undefined;
  private woken = false;

  constructor(
    private readonly dataSource: DataSource,
    nc: NatsConnection,
    private readonly namespace: string,
    private readonly logger: Logger,
  ) {
    this.js = jetstream(nc);
  }

  /** Relays one batch; returns how many events were published (0 also when another relay is at it). */
  async relayBatch(limit = BATCH): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      // The relay lock and the batch in one round trip: no rows when another relay holds the lock.
      const rows: OutboxRow[] = await m.query(
        `WITH relay AS MATERIALIZED (SELECT pg_try_advisory_xact_lock($2) AS locked)
         SELECT o.seq, o.event_id, o.account_id, o.type, o.reason, o.record_id, o.contact_status_id, o.occurred_at, o.data
         FROM crm.outbox o, relay WHERE relay.locked AND o.published_at IS NULL ORDER BY o.seq LIMIT $1 FOR UPDATE OF o SKIP LOCKED`,
        [limit, RELAY_LOCK],
      );
      const acks = await Promise.allSettled(
        rows.map((row) => {
          const event: DomainEvent = {
            event_id: row.event_id,
            account_id: row.account_id,
            type: row.type,
            reason: row.reason,
            record_id: row.record_id,
            contact_status_id: row.contact_status_id,
            timestamp: Math.floor(new Date(row.occurred_at).getTime() / 1000),
            data: row.data,
          };
          return this.js.publish(eventSubject(this.namespace, row.type, row.reason), JSON.stringify(event), { msgID: row.event_id });
        }),
      );
      // Only the rows before the first failure count as sent: the rest go again, in order, with the next batch.
      const failed = acks.findIndex((a) => a.status === 'rejected');
      const sent = rows.slice(0, failed < 0 ? rows.length : failed).map((r) => r.seq);
      if (sent.length > 0) await m.query('UPDATE crm.outbox SET published_at = now() WHERE seq = ANY($1::bigint[])', [sent]);
      if (failed >= 0 && sent.length === 0) throw (acks[failed] as PromiseRejectedResult).reason;
      return sent.length;
    });
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
      while (running) {
        let count = 0;
        this.woken = false;
        try {
          count = await this.relayBatch(BATCH);
        } catch (error) {
          this.logger.warn({ detail: (error as Error).message }, 'outbox relay: batch failed; retrying');
        }
        // A short batch emptied the backlog: wait for the next commit's NOTIFY (or the poll) rather than probe again.
        if (count < BATCH && !this.woken && running) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, idleMs);
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
