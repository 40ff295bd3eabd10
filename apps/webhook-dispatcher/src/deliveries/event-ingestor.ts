import { newId } from '@crm/common';
import {
  eventsStreamConfig,
  RpcHeaders,
  STATUS_DELETED_EVENT,
  WEBHOOK_DISPATCHER_CONSUMER,
  WEBHOOK_EVENT_TYPES,
  type DomainEvent,
  type StatusDeletedData,
} from '@crm/contracts';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type ConsumerMessages, type JsMsg } from '@nats-io/jetstream';
import { nanos, type NatsConnection } from '@nats-io/transport-node';
import {
  currentTraceparent,
  contextWithSpan,
  endSpan,
  extractTraceContext,
  safeRequestId,
  SpanKind,
  startSpan,
  TRACEPARENT_PATTERN,
  tracingEnabled,
  type Span,
} from '@crm/observability';
import type { Logger } from 'pino';
import type { ClaimedDelivery, DeliveriesRepository, IngestedEvent, NewDelivery, WebhookTarget } from './deliveries.repository';
import type { DeliveryMetrics } from './delivery-metrics';
import type { DeliverySender } from './delivery-sender';
import type { WebhookCache } from './webhook-cache';
import { webhookWants } from './webhook-filter';

/** Unacknowledged events come back to the consumer after this long (a replica that died holding them). */
export const CONSUMER_ACK_WAIT_MS = 5_000;
/** Events taken from the stream per pull (and at most per ingest statement). */
const BATCH = 256;
const DELIVERABLE = new Set<string>(WEBHOOK_EVENT_TYPES);
/** How long a batch waits at most for room at busy, answering receivers (bounded: others' events wait too). */
const ROOM_WAIT_MS = 50;

/**
 * Creates the events stream if crm-core has not yet (with `replicas` copies, EVENTS_STREAM_REPLICAS),
 * and the dispatchers' durable consumer (explicit acks; as many replicas as the stream).
 */
export async function ensureDispatcherConsumer(nc: NatsConnection, namespace: string, replicas = 1): Promise<void> {
  const jsm = await jetstreamManager(nc);
  const stream = eventsStreamConfig(namespace);
  try {
    await jsm.streams.info(stream.name);
  } catch {
    await jsm.streams
      .add({ name: stream.name, subjects: stream.subjects, duplicate_window: nanos(stream.duplicateWindowMs), num_replicas: replicas })
      .catch(async (error: unknown) =>
        jsm.streams.info(stream.name).catch(() => {
          throw error;
        }),
      );
  }
  const config = {
    durable_name: WEBHOOK_DISPATCHER_CONSUMER,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    ack_wait: nanos(CONSUMER_ACK_WAIT_MS),
    max_ack_pending: 20_000,
    max_deliver: -1,
  };
  try {
    await jsm.consumers.info(stream.name, WEBHOOK_DISPATCHER_CONSUMER);
    await jsm.consumers.update(stream.name, WEBHOOK_DISPATCHER_CONSUMER, {
      ack_wait: config.ack_wait,
      max_ack_pending: config.max_ack_pending,
      max_deliver: config.max_deliver,
    });
  } catch {
    await jsm.consumers.add(stream.name, config).catch(() => jsm.consumers.info(stream.name, WEBHOOK_DISPATCHER_CONSUMER));
  }
}

function parseEvent(msg: JsMsg): DomainEvent | null {
  try {
    const event = msg.json<DomainEvent>();
    const ok =
      event &&
      typeof event.event_id === 'string' &&
      typeof event.account_id === 'string' &&
      typeof event.type === 'string' &&
      typeof event.reason === 'string' &&
      typeof event.record_id === 'string' &&
      typeof event.timestamp === 'number';
    return ok ? event : null;
  } catch {
    return null;
  }
}

interface Taken {
  msg: JsMsg;
  event: DomainEvent;
  /** The X-Request-Id the message carries (a safe token), if any. */
  requestId: string | null;
  /** The traceparent its deliveries continue: the ingest span's while tracing, else the message's own. */
  traceparent: string | null;
  /** While tracing, a consumer span in the event's trace, from taking to acknowledging. */
  span?: Span;
}

/** The request id and trace context a message carries, and (while tracing) its consumer span. */
function traceOf(msg: JsMsg, event: DomainEvent): Pick<Taken, 'requestId' | 'traceparent' | 'span'> {
  const requestId = safeRequestId(msg.headers?.get(RpcHeaders.requestId)) ?? null;
  const incoming = msg.headers?.get('traceparent');
  const traceparent = incoming && TRACEPARENT_PATTERN.test(incoming) ? incoming : null;
  if (!tracingEnabled() || !traceparent) return { requestId, traceparent };
  const span = startSpan(
    'webhook ingest',
    SpanKind.CONSUMER,
    {
      'messaging.system': 'nats',
      'messaging.operation.type': 'process',
      'messaging.message.id': event.event_id,
      'crm.event_type': `${event.type}.${event.reason}`,
      'crm.request_id': requestId ?? '',
    },
    extractTraceContext((name) => msg.headers?.get(name)),
  );
  return { requestId, traceparent: (span && currentTraceparent(contextWithSpan(span))) ?? traceparent, span };
}

/**
 * Takes events from the shared durable consumer (on the replica holding the ingest lock), records
 * one delivery per (event, matching webhook) in PostgreSQL, and only then acknowledges: an event
 * is never acknowledged before its deliveries are stored, so a crash at any point means a
 * redelivery, which the unique (event, webhook) key turns into nothing. What this replica has room
 * for is claimed in the same statement and sent at once; the rest waits in the schedule for any
 * replica. Each delivery keeps the request id and trace context of its event's message, and,
 * while tracing, each event taken is a consumer span in its trace.
 */
export class EventIngestor {
  private active = false;
  private messages: ConsumerMessages | undefined;
  private loop: Promise<void> | undefined;
  private buffer: JsMsg[] = [];
  private processing: Promise<void> | undefined;

  constructor(
    private readonly nc: NatsConnection,
    private readonly namespace: string,
    private readonly repository: DeliveriesRepository,
    private readonly webhooks: WebhookCache,
    private readonly sender: DeliverySender,
    private readonly metrics: DeliveryMetrics,
    private readonly logger: Logger,
    private readonly claimKey: () => number | null,
    private readonly notifyDue: () => Promise<void>,
  ) {}

  start(): void {
    if (this.active) return;
    this.active = true;
    this.metrics.leader.set(1);
    this.loop = this.run();
  }

  /** Stops pulling; events taken but not yet stored are not acknowledged (they come back to whoever ingests next). */
  async stop(): Promise<void> {
    this.active = false;
    this.metrics.leader.set(0);
    await this.messages?.close().catch(() => undefined);
    await this.loop;
  }

  /** Events in the stream not yet taken (pending) or taken and not acknowledged. */
  async streamDepth(): Promise<number> {
    const jsm = await jetstreamManager(this.nc);
    const info = await jsm.consumers.info(eventsStreamConfig(this.namespace).name, WEBHOOK_DISPATCHER_CONSUMER);
    return info.num_pending + info.num_ack_pending;
  }

  private async run(): Promise<void> {
    const js = jetstream(this.nc);
    while (this.active) {
      try {
        const consumer = await js.consumers.get(eventsStreamConfig(this.namespace).name, WEBHOOK_DISPATCHER_CONSUMER);
        const messages = await consumer.consume({ max_messages: BATCH });
        this.messages = messages;
        if (!this.active) await messages.close();
        for await (const msg of messages) {
          this.buffer.push(msg);
          this.kick();
          // Backpressure: stop pulling while a full batch waits for PostgreSQL.
          if (this.buffer.length >= BATCH) await this.processing;
          if (!this.active) break;
        }
      } catch (error) {
        if (!this.active) break;
        this.logger.warn({ detail: (error as Error).message }, 'webhook dispatcher: consuming the events stream failed; retrying');
        await sleep(1000);
      }
    }
    await this.processing;
    // Taken but not stored: left unacknowledged, they come back to whoever ingests next.
    this.buffer = [];
  }

  /**
   * Stores what has arrived: everything that came in together goes in one statement (one message
   * when idle, for latency; up to a full batch under load, for throughput), one batch at a time.
   */
  private kick(): void {
    this.processing ??= (async () => {
      await new Promise((r) => setImmediate(r));
      while (this.buffer.length > 0 && this.active) await this.ingest(this.buffer.splice(0, BATCH));
    })().finally(() => {
      this.processing = undefined;
      if (this.buffer.length > 0 && this.active) this.kick();
    });
  }

  private async ingest(msgs: JsMsg[]): Promise<void> {
    const taken: Taken[] = [];
    for (const msg of msgs) {
      const event = parseEvent(msg);
      if (event) taken.push({ msg, event, ...traceOf(msg, event) });
      else {
        this.logger.error(
          { stream_seq: msg.seq, subject: msg.subject },
          'webhook dispatcher: dropped a message that is not a domain event',
        );
        msg.term('not a domain event');
      }
    }
    let delayMs = 100;
    let lastWorking = Date.now();
    for (;;) {
      try {
        await this.store(taken);
        break;
      } catch (error) {
        if (!this.active) {
          for (const t of taken) endSpan(t.span, 'not stored: left for the next replica');
          return; // not acknowledged: the next replica to ingest gets them again
        }
        this.logger.warn(
          { detail: (error as Error).message, events: taken.length },
          'webhook dispatcher: could not store deliveries; retrying (events stay unacknowledged)',
        );
        await sleep(delayMs);
        delayMs = Math.min(delayMs * 2, 5000);
        if (Date.now() - lastWorking > CONSUMER_ACK_WAIT_MS / 3) {
          taken.forEach((t) => t.msg.working());
          lastWorking = Date.now();
        }
      }
    }
    for (const t of taken) {
      t.msg.ack();
      endSpan(t.span);
    }
    this.metrics.ingested.inc(taken.length);
    if (this.logger.isLevelEnabled('debug'))
      for (const t of taken)
        this.logger.debug({ request_id: t.requestId ?? undefined, event_id: t.event.event_id, stream_seq: t.msg.seq }, 'event ingested');
  }

  /** One statement for the whole batch; sends what was claimed. */
  private async store(taken: Taken[]): Promise<void> {
    const claimKey = this.claimKey();
    if (claimKey === null) throw new Error('this replica has no PostgreSQL session');
    const accounts = [...new Set(taken.map((t) => t.event.account_id))];
    const byAccount = await this.webhooks.activeWebhooksOf(accounts);

    const matched: Array<Taken & { targets: WebhookTarget[] }> = [];
    const needs = new Map<string, number>();
    for (const t of taken) {
      const { event } = t;
      if (event.type === STATUS_DELETED_EVENT.type) {
        if (event.reason === STATUS_DELETED_EVENT.reason) await this.fallBack(event, byAccount.get(event.account_id) ?? []);
        continue;
      }
      if (!DELIVERABLE.has(event.type)) continue;
      const targets = (byAccount.get(event.account_id) ?? []).filter((w) => webhookWants(w, event));
      t.span?.setAttribute('crm.webhook_deliveries', targets.length);
      if (targets.length === 0) continue;
      matched.push({ ...t, targets });
      for (const w of targets) needs.set(w.id, (needs.get(w.id) ?? 0) + 1);
    }
    // A busy receiver that answers: wait a moment for its room rather than detour through the schedule.
    await this.sender.waitForRoom(needs, ROOM_WAIT_MS);

    const events: IngestedEvent[] = [];
    const deliveries: NewDelivery[] = [];
    const ready = new Map<string, Omit<ClaimedDelivery, 'claim_key'>>();
    const seenRecord = new Set<string>();
    const planned = new Map<string, number>();
    for (const { msg, event, targets, requestId, traceparent } of matched) {
      const published = msg.time.getTime();
      const ingested: IngestedEvent = {
        event_id: event.event_id,
        account_id: event.account_id,
        type: event.type,
        reason: event.reason,
        record_id: event.record_id,
        timestamp: event.timestamp,
        published_at_ms: published,
        stream_seq: msg.seq,
        data_json: JSON.stringify(event.data ?? {}),
        request_id: requestId,
        traceparent,
      };
      events.push(ingested);
      for (const w of targets) {
        const id = newId();
        const recordKey = `${w.id}/${event.record_id}`;
        // Only the first delivery of a record per webhook in a batch can be claimed: the next one waits for its first attempt.
        const claim = !seenRecord.has(recordKey) && this.sender.hasRoomFor(w.id, planned.get(w.id) ?? 0);
        seenRecord.add(recordKey);
        if (claim) planned.set(w.id, (planned.get(w.id) ?? 0) + 1);
        deliveries.push({ id, event_id: event.event_id, webhook_id: w.id, record_id: event.record_id, event_seq: msg.seq, claim });
        ready.set(id, {
          id,
          webhook_id: w.id,
          event_id: event.event_id,
          record_id: event.record_id,
          event_seq: msg.seq,
          tries: 0,
          attempt_count: 0,
          type: event.type,
          reason: event.reason,
          timestamp: event.timestamp,
          published_at_ms: published,
          data_json: ingested.data_json,
          hook_url: w.hook_url,
          secretkey: w.secretkey,
          secrets: w.secrets,
          request_id: requestId,
          traceparent,
        });
      }
    }
    const inserted = await this.repository.ingest(events, deliveries, claimKey);
    const claimed = inserted.filter((r) => r.claimed).map((r) => ({ ...ready.get(r.id)!, claim_key: claimKey }));
    if (claimed.length > 0) this.sender.submit(claimed);
    if (claimed.length < inserted.length) await this.notifyDue();
  }

  /** A status was deleted: webhooks filtering on it now filter on the lead status (in PostgreSQL and for the rest of this batch). */
  private async fallBack(event: DomainEvent, webhooks: WebhookTarget[]): Promise<void> {
    const data = event.data as unknown as Partial<StatusDeletedData>;
    const statusId = data?.status?.id ?? event.record_id;
    const leadId = data?.lead_status_id;
    if (typeof statusId !== 'string' || typeof leadId !== 'string') {
      this.logger.error({ event_id: event.event_id }, 'webhook dispatcher: a status-deleted event without status id or lead status id');
      return;
    }
    await this.repository.fallBackStatus(event.account_id, statusId, leadId);
    for (const w of webhooks) if (w.status_id === statusId.toLowerCase()) w.status_id = leadId.toLowerCase();
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
