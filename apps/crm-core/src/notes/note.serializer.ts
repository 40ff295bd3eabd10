import type { NoteDto } from '@crm/contracts';
import { attachmentsJson, toAttachmentDtos } from '../records/attachments';
import { fullName, isoOf, plainDateOf } from '../records/record-common';

/** A Note with its linked deal's name, author and attachments; crm.notes `n`, its contact `c`. */
export const NOTE_SELECT = `SELECT n.id, n.contact_id, n.author_id, n.text, n.date, n.linked_deal_id, n.created_at, n.modified_at,
    ld.name AS linked_deal_name, au.first_name AS a_first_name, au.last_name AS a_last_name, c.status_id AS c_status_id,
    ${attachmentsJson('n.id')} AS attachments
  FROM crm.notes n
  JOIN crm.contacts c ON c.id = n.contact_id
  LEFT JOIN crm.deals ld ON ld.id = n.linked_deal_id
  LEFT JOIN crm.users au ON au.id = n.author_id`;

export interface NoteRow {
  id: string;
  contact_id: string;
  author_id: string;
  text: string;
  date: string | Date;
  linked_deal_id: string | null;
  linked_deal_name: string | null;
  created_at: Date | string;
  modified_at: Date | string;
  a_first_name: string | null;
  a_last_name: string | null;
  c_status_id: string;
  attachments: unknown;
}

/** The API (and webhook) shape of a note: no linked deal is "" (Events rule 5), never null. */
export function toNoteDto(row: NoteRow): NoteDto {
  return {
    id: row.id,
    contact_id: row.contact_id,
    text: row.text,
    date: plainDateOf(row.date)!,
    linked_deal_id: row.linked_deal_id ?? '',
    linked_deal_name: row.linked_deal_id ? (row.linked_deal_name ?? '') : '',
    author: fullName(row.a_first_name, row.a_last_name),
    attachments: toAttachmentDtos(row.attachments),
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}
