import type { PageInfo } from '../paging/paging.request';
import type { WebhookEventType } from './webhook.requests';

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
