import type { NoteDto } from '@crm/contracts';
import { toAttachmentDtos } from '../records/attachment.view';
import { fullName, isoOf, plainDateOf } from '../records/record-common';
import type { NoteRow } from './notes.repository';

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
