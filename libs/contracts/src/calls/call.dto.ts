import type { AttachmentDto } from '../attachments/attachment.dto';
import type { PageInfo } from '../paging/paging.request';

/** The spec's Call plus decisions.md's fields. */
export interface CallDto {
  id: string;
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
