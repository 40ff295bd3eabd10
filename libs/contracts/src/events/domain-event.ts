import type { WebhookEventType } from '../webhooks/webhook.requests';

/**
 * Event types: the spec's webhook entities, plus `status` (account configuration: a deleted
 * status, reason `deleted`, data `{ status: { id }, lead_status_id }`), which the dispatcher
 * consumes itself (webhooks filtering on that status fall back to lead) and never delivers.
 */
export type DomainEventType = WebhookEventType | 'status';

/**
 * A change of a record, written by crm-core to its outbox in the same transaction as the change
 * and relayed to JetStream; the webhook-dispatcher turns it into the spec's webhook body.
 */
export interface DomainEvent {
  /** 24-hex id; also the JetStream message id (duplicates inside the window are dropped). */
  event_id: string;
  account_id: string;
  /** The spec's Events `type` (or `status`, internal). */
  type: DomainEventType;
  /** `created`, `updated`, `deleted`, `completed`, `changed_to_<status>`... */
  reason: string;
  record_id: string;
  /** Status of the contact the event is about (for a webhook's status_id filter); null when none. */
  contact_status_id: string | null;
  /** Unix seconds of the change. */
  timestamp: number;
  /** The record as the API serializes it, nested under its entity key (rules 1-6 of the spec). */
  data: Record<string, unknown>;
}

/** JetStream stream of one deployment's domain events. */
export function eventsStreamName(namespace: string): string {
  return `${namespace.replace(/[^A-Za-z0-9_-]/g, '_')}_EVENTS`;
}

/** Subject of an event: `<namespace>.events.<type>.<reason>`; the stream takes `<namespace>.events.>`. */
export function eventSubject(namespace: string, type: string, reason: string): string {
  return `${namespace}.events.${type}.${reason}`;
}

export function eventsStreamSubjects(namespace: string): string[] {
  return [`${namespace}.events.>`];
}

/** How long JetStream remembers message ids to drop a re-published event. */
export const EVENTS_DUPLICATE_WINDOW_MS = 10 * 60 * 1000;

/** The events stream as both sides create it (whichever starts first): name, subjects, duplicate window. */
export function eventsStreamConfig(namespace: string): { name: string; subjects: string[]; duplicateWindowMs: number } {
  return { name: eventsStreamName(namespace), subjects: eventsStreamSubjects(namespace), duplicateWindowMs: EVENTS_DUPLICATE_WINDOW_MS };
}

/** Durable JetStream consumer of the events stream shared by every webhook-dispatcher replica. */
export const WEBHOOK_DISPATCHER_CONSUMER = 'webhook-dispatcher';

/** Type and reason of the internal event that falls webhooks filtering on a deleted status back to lead. */
export const STATUS_DELETED_EVENT = { type: 'status', reason: 'deleted' } as const;

/** `data` of the internal status-deleted event. */
export interface StatusDeletedData {
  status: { id: string };
  lead_status_id: string;
}

/**
 * Largest `data` of an event, serialized as JSON, in bytes (decisions.md "Event pipeline and
 * fan-out bounds"): well under NATS's 1 MiB message limit, so every event written can be relayed.
 * A larger one is written in its reduced form ({@link TruncatedEventData}).
 */
export const MAX_EVENT_DATA_BYTES = 256 * 1024;

/**
 * `data` of an event whose record did not fit in {@link MAX_EVENT_DATA_BYTES}: the record as the
 * API serializes it without the contact event's sibling keys (`next_actions`, `queued_actions`...)
 * when that fits, else only `{ id }` under the entity key; `truncated: true` either way. A receiver
 * that sees `truncated` reads the record through the API.
 */
export type TruncatedEventData = Record<string, unknown> & { truncated: true };
