import { Counter, Gauge, type Registry } from 'prom-client';

/** Why a row was parked: refused for good by NATS (too large, invalid), or failing on every try. */
export type ParkReason = 'rejected' | 'retries_exhausted';

/**
 * Prometheus metrics of the outbox relay (decisions.md "Event pipeline and fan-out bounds"):
 * events published, publishes that failed and wait for a retry, rows parked by reason, events
 * written in their reduced form, and the pending and parked rows read at scrape time.
 */
export class OutboxMetrics {
  readonly published: Counter<string>;
  readonly failed: Counter<string>;
  readonly parked: Counter<'reason'>;
  readonly truncated: Counter<'type'>;
  private backlog: (() => Promise<{ pending: number; parked: number }>) | undefined;

  constructor(registry: Registry) {
    this.published = new Counter({
      name: 'crm_outbox_events_published_total',
      help: 'Outbox events published to JetStream by this relay',
      registers: [registry],
    });
    this.failed = new Counter({
      name: 'crm_outbox_publish_failures_total',
      help: 'Publishes that failed and were scheduled again (the record waits; other records go on)',
      registers: [registry],
    });
    this.parked = new Counter({
      name: 'crm_outbox_events_parked_total',
      help: 'Outbox rows parked (kept, never relayed): rejected for good by NATS, or retries exhausted',
      labelNames: ['reason'],
      registers: [registry],
    });
    this.truncated = new Counter({
      name: 'crm_outbox_events_truncated_total',
      help: 'Events relayed in their reduced form because their data exceeded the event size cap',
      labelNames: ['type'],
      registers: [registry],
    });
    const read = async (key: 'pending' | 'parked', gauge: Gauge<string>) => {
      const counts = await this.backlog?.().catch(() => undefined);
      if (counts) gauge.set(counts[key]);
    };
    new Gauge({
      name: 'crm_outbox_pending_events',
      help: 'Outbox rows waiting to be published (read at scrape time)',
      registers: [registry],
      async collect() {
        await read('pending', this);
      },
    });
    new Gauge({
      name: 'crm_outbox_parked_events',
      help: 'Outbox rows parked (read at scrape time); each needs a look (decisions.md)',
      registers: [registry],
      async collect() {
        await read('parked', this);
      },
    });
  }

  /** Where the gauges read the pending and parked rows from. */
  readBacklogFrom(source: () => Promise<{ pending: number; parked: number }>): void {
    this.backlog = source;
  }
}
