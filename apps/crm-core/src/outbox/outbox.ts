import { newId } from '@crm/common';
import { eventsStreamConfig, eventSubject, type DomainEvent, type DomainEventType } from '@crm/contracts';
import { jetstream, jetstreamManager, type JetStreamClient } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import type { Logger } from 'pino';
import type { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { claimOutboxBatch, insertOutboxEvent, markOutboxPublished } from './outbox.repository';

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
 * and the relays are woken at commit (see OUTBOX_CHANNEL).
 */
export async function writeEvent(db: Db, event: NewEvent): Promise<string> {
  const id = newId();
  await insertOutboxEvent(db, { event_id: id, ...event, contact_status_id: event.contact_status_id ?? null });
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

/** Rows relayed per batch. */
const BATCH = 100;

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
    return this.dataSource.transaction(async (tx) => {
      const rows = await claimOutboxBatch(tx, limit);
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
      if (sent.length > 0) await markOutboxPublished(tx, sent);
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
