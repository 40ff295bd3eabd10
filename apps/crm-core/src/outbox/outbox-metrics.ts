import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import { perScrape } from '../common/per-scrape';
import type { OutboxBacklog } from './outbox.repository';

/** Why a row was parked: refused for good by NATS (too large, invalid), or failing on every try. */
export type ParkReason = 'rejected' | 'retries_exhausted';

/**
 * Prometheus metrics of the outbox relay (decisions.md "Event pipeline and fan-out bounds"):
 * events published, publishes that failed and wait for a retry, rows parked by reason, events
 * written in their reduced form, the relay lag (an event's write to JetStream's ack), and the
 * pending rows, parked rows and the oldest pending row's age read at scrape time (one query per
 * scrape for the three).
 */
export class OutboxMetrics {
  readonly published: Counter<string>;
  readonly failed: Counter<string>;
  readonly parked: Counter<'reason'>;
  readonly truncated: Counter<'type'>;
  readonly lag: Histogram<string>;
  private backlog: (() => Promise<OutboxBacklog>) | undefined;

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
    this.lag = new Histogram({
      name: 'crm_outbox_relay_lag_seconds',
      help: "From an event's write (its transaction) to JetStream's acknowledgement of its publish",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900],
      registers: [registry],
    });
    const read = async (key: keyof OutboxBacklog, gauge: Gauge<string>) => {
      const counts = await this.readBacklog();
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
    new Gauge({
      name: 'crm_outbox_oldest_pending_age_seconds',
      help: 'Age of the oldest outbox row waiting to be published, 0 when none waits (read at scrape time)',
      registers: [registry],
      async collect() {
        await read('oldest_pending_seconds', this);
      },
    });
  }

  /** Where the gauges read the backlog from. */
  readBacklogFrom(source: () => Promise<OutboxBacklog>): void {
    this.backlog = source;
  }

  /** The backlog for this scrape: one query serves the three gauges (reused for a second). */
  private readonly readBacklog = perScrape(async () => this.backlog?.());
}
