import { IsIn, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { NotifyUsersField } from '../notifications/notification.requests';
import { RecordListRequest } from '../paging/record-list.request';
import { DateFilterParam, TIME_DATE_FILTERS } from '../paging/time-filter.request';
import { PartialFlag, RequiredContactId, UnixSeconds } from '../validation/field-rules';
import { LowerKey } from '../validation/transforms';
import { MAX_TEXT, present } from '../validation/validators';

class MeetingFields extends NotifyUsersField {
  @ValidateIf(present('text'))
  @IsString({ message: 'text must be a string' })
  @MaxLength(MAX_TEXT, {
    message: `text must be at most ${MAX_TEXT} characters`,
  })
  text?: string | null;

  /** Unix seconds; default: now. */
  @UnixSeconds()
  meeting_time_int?: number | null;

  @ValidateIf(present('place'))
  @IsString({ message: 'place must be a string' })
  @MaxLength(500, { message: 'place must be at most 500 characters' })
  place?: string | null;
}

/** POST /meetings (and POST /contacts/{contact_id}/meetings). */
export class CreateMeetingRequest extends MeetingFields {
  @RequiredContactId()
  contact_id: string;
}

export class UpdateMeetingRequest extends MeetingFields {
  @IsString()
  meeting_id: string;

  @PartialFlag()
  partial?: boolean;
}

export class MeetingIdRequest {
  @IsString()
  meeting_id: string;
}

/** `date_filter`: the common values and `meeting_time` (the meeting's meeting_time_int, Unix seconds). */
export const MEETING_DATE_FILTERS = [...TIME_DATE_FILTERS, 'meeting_time'] as const;

export class ListMeetingsRequest extends RecordListRequest {
  @DateFilterParam(MEETING_DATE_FILTERS)
  override date_filter?: (typeof MEETING_DATE_FILTERS)[number] = undefined;

  /** Default: meeting_time_int, newest first. */
  @IsOptional()
  @LowerKey()
  @IsIn(['meeting_time_int', 'created_at', 'modified_at'], {
    message: 'sort_by must be one of: meeting_time_int, created_at, modified_at',
  })
  sort_by?: 'meeting_time_int' | 'created_at' | 'modified_at';
}
