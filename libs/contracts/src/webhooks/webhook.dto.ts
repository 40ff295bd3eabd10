import type { PageInfo } from '../paging/paging.request';
import type { WebhookDeliveryStatus, WebhookEventType } from './webhook.requests';

/** A webhook registration; `signing_secret` only in the creation and rotation responses. */
export interface WebhookDto {
  id: string;
  name: string;
  hook_url: string;
  secretkey: string;
  types: WebhookEventType[];
  status_id: string | null;
  active: boolean;
  created_at: string;
  modified_at: string;
  signing_secret?: string;
}

export interface WebhookReply {
  webhook: WebhookDto;
}

export interface ListWebhooksReply extends PageInfo {
  webhooks: WebhookReply[];
}

/** One HTTP attempt of a delivery. */
export interface WebhookDeliveryAttemptDto {
  attempted_at: string;
  /** HTTP status of the receiver's answer; null when there was none (timeout, network error, refused address). */
  response_code: number | null;
  duration_ms: number;
  /** Why the attempt failed without an answer (or the answer that was not 2xx); null on success. */
  error: string | null;
}

/**
 * One event sent to one webhook. `id` is also the `webhook-id` header, the same across retries
 * and redeliveries, so receivers can drop duplicates.
 */
export interface WebhookDeliveryDto {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  reason: string;
  record_id: string;
  status: WebhookDeliveryStatus;
  /** Every attempt, oldest first. */
  attempts: WebhookDeliveryAttemptDto[];
  /** Of the last attempt (null before the first). */
  response_code: number | null;
  duration_ms: number | null;
  error: string | null;
  /** When the next try is due (pending deliveries), else null. */
  next_attempt_at: string | null;
  created_at: string;
  /** When it was delivered or given up (null while pending). */
  completed_at: string | null;
}

export interface WebhookDeliveryReply {
  delivery: WebhookDeliveryDto;
}

export interface ListWebhookDeliveriesReply extends PageInfo {
  deliveries: WebhookDeliveryReply[];
}

/**
 * What an attempt's `error` says when the receiver gave no answer (decisions.md "Event pipeline
 * and fan-out bounds"): a category, never an address, a port or a DNS answer, so the delivery log
 * cannot be used to map a network. A non-2xx answer reads `HTTP <status>`.
 */
export const WebhookDeliveryErrors = {
  timeout: 'timeout',
  dns: 'DNS lookup failed',
  refused: 'connection refused',
  reset: 'connection reset',
  unreachable: 'host unreachable',
  tls: 'TLS error',
  blocked: 'blocked: private address',
  badResponse: 'invalid HTTP response',
  badUrl: 'invalid receiver URL',
  network: 'network error',
} as const;
export type WebhookDeliveryError = (typeof WebhookDeliveryErrors)[keyof typeof WebhookDeliveryErrors];
