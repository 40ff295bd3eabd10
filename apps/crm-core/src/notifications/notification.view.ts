import type { NotificationDto } from '@crm/contracts';
import { fullName, isoOf } from '../records/record-common';
import type { NotificationRow } from './notifications.repository';

const WHAT = { note: 'a note', call: 'a call', meeting: 'a meeting' } as const;

/** "Ada A.": the first name and the last name's initial, as OnePageCRM's `by` shows a user. */
function shortName(first: string | null, last: string | null): string {
  const initial = last?.trim().charAt(0);
  return initial ? `${(first ?? '').trim()} ${initial}.`.trim() : (first ?? '').trim();
}

/** The API shape of one of the caller's notifications. */
export function toNotificationDto(row: NotificationRow): NotificationDto {
  const by = shortName(row.a_first_name, row.a_last_name);
  const contact = fullName(row.c_first_name, row.c_last_name);
  return {
    id: row.id,
    type: row.kind,
    by,
    read: row.read_at !== null,
    user_id: row.user_id,
    contact_id: row.contact_id,
    record_id: row.record_id,
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.read_at ?? row.created_at),
    mobile_data: {
      title: `${by || 'Someone'} mentioned you in ${WHAT[row.kind]}${contact ? ` on ${contact}` : ''}`,
      body: row.body,
      action_type: row.kind,
    },
  };
}
