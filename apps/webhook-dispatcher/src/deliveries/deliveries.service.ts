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
  type WebhookDeliveryDto,
  type WebhookDeliveryReply,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { DeliveriesRepository, type AttemptRow, type DeliveryRow } from './deliveries.repository';

const ADMIN_ONLY = 'Only account administrators can manage webhooks';

/** The delivery log of a webhook and manual redelivery (admin only, like the registrations). */
@Injectable()
export class DeliveriesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly repository: DeliveriesRepository,
  ) {}

  async list(caller: Caller, payload: unknown): Promise<ListWebhookDeliveriesReply> {
    assertAdmin(caller, ADMIN_ONLY);
    const request = parseContract(ListWebhookDeliveriesRequest, payload);
    const webhook = await this.webhookOf(caller, request.webhook_id);
    const [total, rows] = await Promise.all([
      this.repository.countDeliveries(webhook.id, request.status),
      this.repository.listDeliveries(webhook.id, request.status, request.per_page, (request.page - 1) * request.per_page),
    ]);
    const attempts = await this.repository.attemptsOf(rows.map((r) => r.id));
    return { deliveries: rows.map((row) => ({ delivery: toDto(row, attempts) })), ...pageInfo(total, request.page, request.per_page) };
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
    return { delivery: toDto(row, await this.repository.attemptsOf([row.id])) };
  }

  private async webhookOf(caller: Caller, id: string): Promise<{ id: string; active: boolean }> {
    const normalized = id.toLowerCase();
    const rows: Array<{ id: string; active: boolean }> = isId(normalized)
      ? await this.dataSource.query('SELECT id, active FROM webhooks.webhooks WHERE id = $1 AND account_id = $2', [
          normalized,
          caller.account_id,
        ])
      : [];
    if (!rows[0]) throw ApiError.notFound('Webhook not found');
    return rows[0];
  }
}

function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

function toDto(row: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryDto {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    type: row.type,
    reason: row.reason,
    record_id: row.record_id,
    status: row.status,
    attempts: [
      ...attempts.filter((a) => a.delivery_id === row.id),
      ...(row.last_attempted_at
        ? [
            {
              delivery_id: row.id,
              attempted_at: row.last_attempted_at,
              response_code: row.last_response_code,
              duration_ms: row.last_duration_ms ?? 0,
              error: row.last_error,
            },
          ]
        : []),
    ].map((a) => ({
      attempted_at: new Date(a.attempted_at).toISOString(),
      response_code: a.response_code,
      duration_ms: a.duration_ms,
      error: a.error,
    })),
    response_code: row.last_response_code,
    duration_ms: row.last_duration_ms,
    error: row.last_error,
    next_attempt_at: row.status === 'pending' ? iso(row.next_attempt_at) : null,
    created_at: new Date(row.created_at).toISOString(),
    completed_at: iso(row.completed_at),
  };
}
