import type { CallDto } from '@crm/contracts';
import { toAttachmentDtos } from '../records/attachment.view';
import { fullName, isoOf } from '../records/record-common';
import type { CallRow } from './calls.repository';

/** `index`: the call's 1-based place in the result set it is answered in (1 when answered alone), as OnePageCRM documents it. */
export function toCallDto(row: CallRow, index = 1): CallDto {
  return {
    id: row.id,
    index,
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
