import type { AttachmentDto } from '../attachments/attachment.dto';
import type { PageInfo } from '../paging/paging.request';

/** decisions.md's Meeting. */
export interface MeetingDto {
  id: string;
  /** OnePageCRM's index of the meeting in the result set: 1-based across pages ((page - 1) × per_page + place), in a contact's `meetings` array its place there, 1 when answered alone (one meeting, events). */
  index: number;
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
