import { Injectable } from '@nestjs/common';
import { isId } from '@crm/common';
import {
  ApiError,
  assertAdmin,
  ErrorName,
  ListWebhookDeliveriesRequest,
  pageInfo,
  parseContract,
  WebhookDeliveryIdRequest,
  type Caller,
  type ListWebhookDeliveriesReply,
  type WebhookDeliveryReply,
} from '@crm/contracts';
import { DeliveriesRepository } from './deliveries.repository';
import { toDeliveryDto } from './delivery.view';

const ADMIN_ONLY = 'Only account administrators can manage webhooks';

/** The delivery log of a webhook and manual redelivery (admin only, like the registrations). */
@Injectable()
export class DeliveriesService {
  constructor(private readonly repository: DeliveriesRepository) {}

  async list(caller: Caller, payload: unknown): Promise<ListWebhookDeliveriesReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const request = parseContract(ListWebhookDeliveriesRequest, payload);
    const webhook = await this.webhookOf(caller, request.webhook_id);
    const [total, rows] = await Promise.all([
      this.repository.countDeliveries(webhook.id, request.status),
      this.repository.listDeliveries(webhook.id, request.status, request.per_page, (request.page - 1) * request.per_page),
    ]);
    const attempts = await this.repository.attemptsOf(rows.map((r) => r.id));
    return {
      deliveries: rows.map((row) => ({ delivery: toDeliveryDto(row, attempts) })),
      ...pageInfo(total, request.page, request.per_page),
    };
  }

  /**
   * Sends a delivery again now with a fresh round of tries and the same webhook-id. 409 while an
   * attempt of it is in progress, or when the webhook is switched off (nothing would be sent).
   */
  async redeliver(caller: Caller, payload: unknown): Promise<WebhookDeliveryReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const request = parseContract(WebhookDeliveryIdRequest, payload);
    const webhook = await this.webhookOf(caller, request.webhook_id);
    const deliveryId = request.delivery_id.toLowerCase();
    const found = isId(deliveryId) ? await this.repository.findDelivery(webhook.id, deliveryId) : undefined;
    if (!found) throw ApiError.notFound('Delivery not found');
    if (!webhook.active) throw new ApiError(ErrorName.Conflict, 'The webhook is not active: activate it before redelivering');
    if (!(await this.repository.redeliver(found.id))) throw new ApiError(ErrorName.Conflict, 'An attempt of this delivery is in progress');
    const row = (await this.repository.findDelivery(webhook.id, found.id))!;
    return { delivery: toDeliveryDto(row, await this.repository.attemptsOf([row.id])) };
  }

  /** The account's webhook, or 404 (another account's, or an id that cannot be one). */
  private async webhookOf(caller: Caller, id: string): Promise<{ id: string; active: boolean }> {
    const normalized = id.toLowerCase();
    const webhook = isId(normalized) ? await this.repository.webhookOfAccount(caller.account_id, normalized) : undefined;
    if (!webhook) throw ApiError.notFound('Webhook not found');
    return webhook;
  }
}
