import type { MeetingDto } from '@crm/contracts';
import { toAttachmentDtos } from '../records/attachment.view';
import { fullName, isoOf } from '../records/record-common';
import type { MeetingRow } from './meetings.repository';

/** `index`: the meeting's 1-based place in the result set it is answered in (1 when answered alone), as OnePageCRM documents it. */
export function toMeetingDto(row: MeetingRow, index = 1): MeetingDto {
  return {
    id: row.id,
    index,
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
