import type { WebhookDeliveryDto } from '@crm/contracts';
import type { AttemptRow, DeliveryRow } from './deliveries.repository';

function iso(value: Date | null): string | null {
  return value === null ? null : new Date(value).toISOString();
}

/** The API's WebhookDelivery: its attempts oldest first, the last one from the delivery's row. */
export function toDeliveryDto(row: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryDto {
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
