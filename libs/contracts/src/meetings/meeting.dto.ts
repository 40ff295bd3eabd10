import type { AttachmentDto } from '../attachments/attachment.dto';
import type { PageInfo } from '../paging/paging.request';

/** decisions.md's Meeting. */
export interface MeetingDto {
  id: string;
  contact_id: string;
  text: string;
  /** Unix seconds. */
  meeting_time_int: number;
  place: string;
  author: string;
  attachments: AttachmentDto[];
  created_at: string;
  modified_at: string;
}

export interface MeetingReply {
  meeting: MeetingDto;
}

export interface ListMeetingsReply extends PageInfo {
  meetings: MeetingReply[];
}
