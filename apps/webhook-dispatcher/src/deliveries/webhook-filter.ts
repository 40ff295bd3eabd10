import type { DomainEvent } from '@crm/contracts';
import type { WebhookTarget } from './deliveries.repository';

/** Whether a webhook gets an event: its `types` filter (empty = all) and its `status_id` filter. */
export function webhookWants(
  webhook: Pick<WebhookTarget, 'types' | 'status_id' | 'active'>,
  event: Pick<DomainEvent, 'type' | 'contact_status_id'>,
): boolean {
  if (!webhook.active) return false;
  if (webhook.types.length > 0 && !webhook.types.includes(event.type)) return false;
  if (webhook.status_id && (event.contact_status_id ?? '').toLowerCase() !== webhook.status_id) return false;
  return true;
}
