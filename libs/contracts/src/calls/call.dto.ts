import type { AttachmentDto } from '../attachments/attachment.dto';
import type { PageInfo } from '../paging/paging.request';

/** The spec's Call plus decisions.md's fields. */
export interface CallDto {
  id: string;
  /** OnePageCRM's index of the call in the result set: 1-based across pages ((page - 1) × per_page + place), in a contact's `calls` array its place there, 1 when answered alone (one call, events). */
  index: number;
  contact_id: string;
  text: string;
  call_result: string;
  /** Unix seconds. */
  call_time_int: number;
  via: string;
  phone_number: string;
  recording_link: string;
  author: string;
  attachments: AttachmentDto[];
  created_at: string;
  modified_at: string;
}

export interface CallReply {
  call: CallDto;
}

export interface ListCallsReply extends PageInfo {
  calls: CallReply[];
}
