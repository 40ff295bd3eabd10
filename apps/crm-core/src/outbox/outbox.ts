import { newId } from '@crm/common';
import { eventSubject, eventsStreamName, eventsStreamSubjects, EVENTS_DUPLICATE_WINDOW_MS, type DomainEvent, type DomainEventType } from '@crm/contracts';
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

/** Writes an event in the caller's transaction: it is relayed if and only if the change commits. */
export async function writeEvent(manager: EntityManager, event: NewEvent): Promise<string> {
  const id = newId();
  await manager.query('INSERT INTO crm.outbox (event_id, account_id, type, reason, record_id, contact_status_id, data) VALUES ($1, $2, $3, $4, $5, $6, $7)', [id, event.account_id, event.type, event.reason, event.record_id, event.contact_status_id ?? null, JSON.stringify(event.data)]);
  return id;
}

/** Creates (or updates) the deployment's events stream: file storage, the duplicate window. */
export async function ensureEventsStream(nc: NatsConnection, namespace: string): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const config = { name: eventsStreamName(namespace), subjects: eventsStreamSubjects(namespace), duplicate_window: nanos(EVENTS_DUPLICATE_WINDOW_MS) };
  try {
    await jsm.streams.info(config.name);
    await jsm.streams.update(config.name, config);
  } catch {
    await jsm.streams.add(config);
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

/**
 * Relays outbox rows to JetStream in order, at least once: a batch is locked with
 * FOR UPDATE SKIP LOCKED (several relays never send the same rows at once), each row is published
 * with its event id as message id and marked sent only after JetStream acknowledged it. A crash
 * between publish and mark re-publishes; JetStream drops the duplicate inside its window.
 */
export class OutboxRelay {
  private readonly js: JetStreamClient;

  constructor(
    private readonly dataSource: DataSource,
    nc: NatsConnection,
    private readonly namespace: string,
    private readonly logger: Logger,
  ) {
    this.js = jetstream(nc);
  }

  /** Relays one batch; returns how many events were published. */
  async relayBatch(limit = 100): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const rows: OutboxRow[] = await m.query('SELECT seq, event_id, account_id, type, reason, record_id, contact_status_id, occurred_at, data FROM crm.outbox WHERE published_at IS NULL ORDER BY seq LIMIT $1 FOR UPDATE SKIP LOCKED', [limit]);
      const sent: string[] = [];
      try {
        for (const row of rows) {
          const event: DomainEvent = { event_id: row.event_id, account_id: row.account_id, type: row.type, reason: row.reason, record_id: row.record_id, contact_status_id: row.contact_status_id, timestamp: Math.floor(new Date(row.occurred_at).getTime() / 1000), data: row.data };
          await this.js.publish(eventSubject(this.namespace, row.type, row.reason), JSON.stringify(event), { msgID: row.event_id });
          sent.push(row.seq);
        }
      } finally {
        // Rows acknowledged before a failure are marked, so they are not sent again needlessly.
        if (sent.length > 0) await m.query('UPDATE crm.outbox SET published_at = now() WHERE seq = ANY($1::bigint[])', [sent]);
      }
      return sent.length;
    });
  }

  /** Relays until stopped: at once while there is a backlog, else every `idleMs`. */
  run(idleMs = 200): { stop(): Promise<void> } {
    let running = true;
    const loop = (async () => {
      while (running) {
        let count = 0;
        try {
          count = await this.relayBatch();
        } catch (error) {
          this.logger.warn({ detail: (error as Error).message }, 'outbox relay: batch failed; retrying');
        }
        if (count === 0) await new Promise((r) => setTimeout(r, idleMs));
      }
    })();
    return {
      stop: async () => {
        running = false;
        await loop;
      },
    };
  }
}
