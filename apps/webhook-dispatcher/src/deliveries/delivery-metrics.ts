import { Counter, Gauge, Histogram, type Registry } from 'prom-client';

/** What the queue-depth gauge reads when /metrics is scraped. */
export interface QueueDepthSource {
  /** Events in the stream not yet taken by the dispatchers (pending + unacknowledged). */
  stream(): Promise<number | null>;
  /** Pending deliveries in PostgreSQL not claimed by a replica: due now, and scheduled for later. */
  backlog(): Promise<{ due: number; scheduled: number }>;
  /** Deliveries this replica holds in memory (queued or being attempted). */
  local(): number;
}

/**
 * Prometheus metrics of the delivery pipeline: queue depth (stream, due, scheduled, local),
 * attempts by outcome, failures by kind, attempt duration and delivery latency (event stored in
 * JetStream -> receiver's 2xx).
 */
export class DeliveryMetrics {
  readonly attempts: Counter<'outcome'>;
  readonly failures: Counter<'kind'>;
  readonly attemptDuration: Histogram<'outcome'>;
  readonly latency: Histogram<'attempt'>;
  readonly ingested: Counter<string>;
  readonly leader: Gauge<string>;
  private source: QueueDepthSource | undefined;

  constructor(registry: Registry) {
    this.attempts = new Counter({
      name: 'webhook_delivery_attempts_total',
      help: 'Delivery attempts by outcome: delivered, retry (another try scheduled), failed (given up)',
      labelNames: ['outcome'],
      registers: [registry],
    });
    this.failures = new Counter({
      name: 'webhook_delivery_failures_total',
      help: 'Attempts without a 2xx by kind: timeout, network, refused_address, http_status',
      labelNames: ['kind'],
      registers: [registry],
    });
    this.attemptDuration = new Histogram({
      name: 'webhook_delivery_attempt_duration_seconds',
      help: 'Duration of one HTTP attempt (until the status line or the deadline)',
      labelNames: ['outcome'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    });
    this.latency = new Histogram({
      name: 'webhook_delivery_latency_seconds',
      help: "From the event's arrival in JetStream to the receiver's 2xx, by attempt (first or retry)",
      labelNames: ['attempt'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600, 36000, 172800],
      registers: [registry],
    });
    this.ingested = new Counter({
      name: 'webhook_events_ingested_total',
      help: 'Events taken from the stream by this replica',
      registers: [registry],
    });
    this.leader = new Gauge({
      name: 'webhook_dispatcher_ingesting',
      help: '1 while this replica is the one taking events from the stream',
      registers: [registry],
    });
    const sourceOf = () => this.source;
    new Gauge({
      name: 'webhook_queue_depth',
      help: 'Waiting work by queue: stream (events not yet taken), due and scheduled (pending deliveries in PostgreSQL), local (held by this replica)',
      labelNames: ['queue'],
      registers: [registry],
      async collect() {
        const source = sourceOf();
        if (!source) return;
        this.set({ queue: 'local' }, source.local());
        const [stream, backlog] = await Promise.all([source.stream().catch(() => null), source.backlog().catch(() => null)]);
        if (stream !== null) this.set({ queue: 'stream' }, stream);
        if (backlog) {
          this.set({ queue: 'due' }, backlog.due);
          this.set({ queue: 'scheduled' }, backlog.scheduled);
        }
      },
    });
  }

  watch(source: QueueDepthSource): void {
    this.source = source;
  }
}
