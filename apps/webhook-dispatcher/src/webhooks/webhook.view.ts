import type { WebhookDto } from '@crm/contracts';
import type { WebhookRow } from './webhooks.repository';

/** The API's Webhook; the signing secret only when asked (the create and rotate replies). */
export function toWebhookDto(row: WebhookRow, withSecret = false): WebhookDto {
  const dto: WebhookDto = {
    id: row.id,
    name: row.name,
    hook_url: row.hook_url,
    secretkey: row.secretkey,
    types: row.types as WebhookDto['types'],
    status_id: row.status_id,
    active: row.active,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
  if (withSecret) dto.signing_secret = row.signing_secret;
  return dto;
}
