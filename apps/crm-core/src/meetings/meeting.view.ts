import type { MeetingDto } from '@crm/contracts';
import { toAttachmentDtos } from '../records/attachment.view';
import { fullName, isoOf } from '../records/record-common';
import type { MeetingRow } from './meetings.repository';

export function toMeetingDto(row: MeetingRow): MeetingDto {
  return {
    id: row.id,
    contact_id: row.contact_id,
    text: row.text,
    meeting_time_int: Number(row.meeting_time_int),
    place: row.place,
    author: fullName(row.a_first_name, row.a_last_name),
    attachments: toAttachmentDtos(row.attachments),
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}
