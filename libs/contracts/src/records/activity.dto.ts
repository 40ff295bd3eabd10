import type { PageInfo } from '../paging/paging.request';
import type { AttachmentDto } from './attachment.dto';

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

export interface NoteReply {
  note: NoteDto;
}
export interface CallReply {
  call: CallDto;
}
export interface MeetingReply {
  meeting: MeetingDto;
}
export interface ListNotesReply extends PageInfo {
  notes: NoteReply[];
}
export interface ListCallsReply extends PageInfo {
  calls: CallReply[];
}
export interface ListMeetingsReply extends PageInfo {
  meetings: MeetingReply[];
}
