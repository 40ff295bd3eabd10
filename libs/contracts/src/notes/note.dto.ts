import type { AttachmentDto } from '../attachments/attachment.dto';
import type { PageInfo } from '../paging/paging.request';

/** The spec's Note; `linked_deal_id` and `linked_deal_name` are "" when no deal is linked. */
export interface NoteDto {
  id: string;
  contact_id: string;
  text: string;
  date: string;
  linked_deal_id: string;
  linked_deal_name: string;
  /** Name of the user who wrote it. */
  author: string;
  attachments: AttachmentDto[];
  created_at: string;
  modified_at: string;
}

export interface NoteReply {
  note: NoteDto;
}

export interface ListNotesReply extends PageInfo {
  notes: NoteReply[];
}
