import type { MeetingDto } from '@crm/contracts';
import { attachmentsJson, toAttachmentDtos } from '../records/attachments';
import { fullName, isoOf } from '../records/record-common';

/** A Meeting with its author and attachments; crm.meetings `g`, its contact `c`. */
export const MEETING_SELECT = `SELECT g.id, g.contact_id, g.author_id, g.text, g.meeting_time_int, g.place, g.created_at, g.modified_at,
    au.first_name AS a_first_name, au.last_name AS a_last_name, c.status_id AS c_status_id,
    ${attachmentsJson('g.id')} AS attachments
  FROM crm.meetings g
  JOIN crm.contacts c ON c.id = g.contact_id
  LEFT JOIN crm.users au ON au.id = g.author_id`;

export interface MeetingRow {
  id: string;
  contact_id: string;
  author_id: string;
  text: string;
  meeting_time_int: string | number;
  place: string;
  created_at: Date | string;
  modified_at: Date | string;
  a_first_name: string | null;
  a_last_name: string | null;
  c_status_id: string;
  attachments: unknown;
}

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
