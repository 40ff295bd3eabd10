import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsIn, IsOptional, IsString, Length, Matches, MaxLength } from 'class-validator';
import { PagingRequest } from '../paging/paging.request';

/** Entities a webhook can subscribe to (the spec's Events `type`). */
export const WEBHOOK_EVENT_TYPES = ['contact', 'company', 'deal', 'action', 'note', 'call', 'meeting'] as const;
export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

const trim = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value);
const toBoolean = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^(true|false|1|0)$/i.test(value) ? /^(true|1)$/i.test(value) : value;

export class ListWebhooksRequest extends PagingRequest {}

export class WebhookIdRequest {
  /** Any string: an id that names no webhook of the caller's account is 404, not 400. */
  @IsString()
  webhook_id: string;
}

/** POST /webhooks (decisions.md "Webhooks"). */
export class CreateWebhookRequest {
  @Transform(trim)
  @IsString({ message: 'name must be a string' })
  @Length(1, 200, { message: 'name must be 1 to 200 characters' })
  name: string;

  @Transform(trim)
  @IsString({ message: 'hook_url must be a string' })
  @MaxLength(2000, { message: 'hook_url must be at most 2000 characters' })
  @Matches(/^https?:\/\/[^\s]+$/i, { message: 'hook_url must be an absolute http(s) URL' })
  hook_url: string;

  @IsOptional()
  @IsString({ message: 'secretkey must be a string' })
  @MaxLength(200, { message: 'secretkey must be at most 200 characters' })
  secretkey: string = '';

  /** Entity filter; empty means every entity. */
  @IsOptional()
  @IsArray({ message: 'types must be an array' })
  @ArrayMaxSize(WEBHOOK_EVENT_TYPES.length, { message: 'types lists each entity at most once' })
  @IsIn(WEBHOOK_EVENT_TYPES, { each: true, message: `types must hold values of: ${WEBHOOK_EVENT_TYPES.join(', ')}` })
  types: WebhookEventType[] = [];

  /** Only events about contacts of this status (and their records); null: every status. */
  @IsOptional()
  @Matches(/^[0-9a-fA-F]{24}$/, { message: 'status_id must be a status id (24 hex characters) or null' })
  status_id?: string | null;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'active must be true or false' })
  active: boolean = true;
}

/** PUT /webhooks/{id}: replaces the writable fields (absent ones take their defaults). */
export class UpdateWebhookRequest extends CreateWebhookRequest {
  @IsString()
  webhook_id: string;
}

/** States of a delivery: waiting for its first attempt or a retry, delivered (2xx), or failed for good. */
export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/** GET /webhooks/{id}/deliveries: newest first, optionally only one status. */
export class ListWebhookDeliveriesRequest extends PagingRequest {
  @IsString()
  webhook_id: string;

  @IsOptional()
  @IsIn(WEBHOOK_DELIVERY_STATUSES, { message: `status must be one of: ${WEBHOOK_DELIVERY_STATUSES.join(', ')}` })
  status?: WebhookDeliveryStatus;
}

/** POST /webhooks/{id}/deliveries/{delivery_id}/redeliver. */
export class WebhookDeliveryIdRequest {
  @IsString()
  webhook_id: string;

  /** Any string: an id that names no delivery of that webhook is 404, not 400. */
  @IsString()
  delivery_id: string;
}
