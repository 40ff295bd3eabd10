import type { CallDto } from '@crm/contracts';
import { attachmentsJson, toAttachmentDtos } from '../records/attachments';
import { fullName, isoOf } from '../records/record-common';

/** A Call with its author and attachments; crm.calls `l`, its contact `c`. */
export const CALL_SELECT = `SELECT l.id, l.contact_id, l.author_id, l.text, l.call_result, l.call_time_int, l.via, l.phone_number, l.recording_link, l.created_at, l.modified_at,
    au.first_name AS a_first_name, au.last_name AS a_last_name, c.status_id AS c_status_id,
    ${attachmentsJson('l.id')} AS attachments
  FROM crm.calls l
  JOIN crm.contacts c ON c.id = l.contact_id
  LEFT JOIN crm.users au ON au.id = l.author_id`;

export interface CallRow {
  id: string;
  contact_id: string;
  author_id: string;
  text: string;
  call_result: string;
  call_time_int: string | number;
  via: string;
  phone_number: string;
  recording_link: string;
  created_at: Date | string;
  modified_at: Date | string;
  a_first_name: string | null;
  a_last_name: string | null;
  c_status_id: string;
  attachments: unknown;
}

export function toCallDto(row: CallRow): CallDto {
  return {
    id: row.id,
    contact_id: row.contact_id,
    text: row.text,
    call_result: row.call_result,
    call_time_int: Number(row.call_time_int),
    via: row.via,
    phone_number: row.phone_number,
    recording_link: row.recording_link,
    author: fullName(row.a_first_name, row.a_last_name),
    attachments: toAttachmentDtos(row.attachments),
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}
