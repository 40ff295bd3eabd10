import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { CALL_RESULTS } from '../configuration/pipeline.dto';
import { AttachmentInput } from './attachment.dto';
import { TIME_DATE_FILTERS } from '../paging/time-filter.request';
import { RecordListRequest } from './record-list.request';
import { IsPlainDate, Lower, MAX_TEXT, ToBoolean } from './record.validators';

const present = (key: string) => (o: Record<string, unknown>) => o[key] !== undefined && o[key] !== null;
const UNIX_MESSAGE = (field: string) => `${field} must be Unix seconds`;
/** Notes, calls and meetings take the date_filter values of every list. */
export const ACTIVITY_DATE_FILTERS = TIME_DATE_FILTERS;

class AttachmentsField {
  @ValidateIf(present('attachments'))
  @IsArray({ message: 'attachments must be an array of attachments' })
  @ArrayMaxSize(100, { message: 'attachments may hold at most 100 entries' })
  @ValidateNested({ each: true })
  @Type(() => AttachmentInput)
  attachments?: AttachmentInput[] | null;
}

/** Query (or body) `partial=true` on PUT: change only the fields sent. */
function PartialFlag(): PropertyDecorator {
  return (target, key) => {
    IsOptional()(target, key);
    ToBoolean()(target, key);
    IsBoolean({ message: 'partial must be true or false' })(target, key);
  };
}

// --- notes ---

class NoteFields extends AttachmentsField {
  /** Markup `[b]..[/b]`, `[i]..[/i]` is stored exactly as sent. */
  @ValidateIf(present('text'))
  @IsString({ message: 'text must be a string' })
  @IsNotEmpty({ message: 'text must not be empty' })
  @MaxLength(MAX_TEXT, {
    message: `text must be at most ${MAX_TEXT} characters`,
  })
  text?: string;

  /** Default: today (UTC). */
  @ValidateIf(present('date'))
  @IsPlainDate()
  date?: string | null;

  /** A deal of the note's contact; "" or null: none. */
  @ValidateIf(present('linked_deal_id'))
  @IsString({ message: 'linked_deal_id must be a deal id' })
  @MaxLength(64, { message: 'linked_deal_id must be a deal id' })
  linked_deal_id?: string | null;
}

/** POST /notes (and POST /contacts/{contact_id}/notes): contact_id and text required. */
export class CreateNoteRequest extends NoteFields {
  @IsString({ message: 'contact_id is required' })
  @IsNotEmpty({ message: 'contact_id is required' })
  @MaxLength(64, { message: 'contact_id must be a contact id' })
  contact_id: string;

  /** Users of the account to notify of the note. */
  @ValidateIf(present('user_ids_to_notify'))
  @IsArray({ message: 'user_ids_to_notify must be an array of user ids' })
  @ArrayMaxSize(100, { message: 'user_ids_to_notify may hold at most 100 ids' })
  @IsString({
    each: true,
    message: 'user_ids_to_notify must be an array of user ids',
  })
  @MaxLength(64, {
    each: true,
    message: 'user_ids_to_notify must be an array of user ids',
  })
  user_ids_to_notify?: string[] | null;
}

/** PUT /notes/{note_id}: replaces text (required), date, linked_deal_id, attachments. */
export class UpdateNoteRequest extends NoteFields {
  @IsString()
  note_id: string;

  @PartialFlag()
  partial?: boolean;
}

export class NoteIdRequest {
  @IsString()
  note_id: string;
}

export class ListNotesRequest extends RecordListRequest {
  /** Default: date, newest first. */
  @IsOptional()
  @Lower()
  @IsIn(['date', 'created_at', 'modified_at'], {
    message: 'sort_by must be one of: date, created_at, modified_at',
  })
  sort_by?: 'date' | 'created_at' | 'modified_at';
}

// --- calls ---

class CallFields extends AttachmentsField {
  @ValidateIf(present('text'))
  @IsString({ message: 'text must be a string' })
  @MaxLength(MAX_TEXT, {
    message: `text must be at most ${MAX_TEXT} characters`,
  })
  text?: string | null;

  /** One of the account's call results (GET /call_results), or "" for none. */
  @ValidateIf(present('call_result'))
  @IsIn(['', ...CALL_RESULTS.map((r) => r.id)], {
    message: `call_result must be one of: ${CALL_RESULTS.map((r) => r.id).join(', ')} (or empty)`,
  })
  call_result?: string | null;

  /** Unix seconds; default: now. */
  @ValidateIf(present('call_time_int'))
  @IsInt({ message: UNIX_MESSAGE('call_time_int') })
  @Min(0, { message: UNIX_MESSAGE('call_time_int') })
  @Max(99_999_999_999, { message: UNIX_MESSAGE('call_time_int') })
  call_time_int?: number | null;

  @ValidateIf(present('via'))
  @IsString({ message: 'via must be a string' })
  @MaxLength(100, { message: 'via must be at most 100 characters' })
  via?: string | null;

  @ValidateIf(present('phone_number'))
  @IsString({ message: 'phone_number must be a string' })
  @MaxLength(100, { message: 'phone_number must be at most 100 characters' })
  phone_number?: string | null;

  @ValidateIf((o: CallFields) =>
    typeof o.recording_link === 'string' ? o.recording_link !== '' : o.recording_link !== undefined && o.recording_link !== null,
  )
  @IsString({ message: 'recording_link must be an absolute http(s) URL' })
  @MaxLength(2000, {
    message: 'recording_link must be at most 2000 characters',
  })
  @Matches(/^https?:\/\/\S+$/i, {
    message: 'recording_link must be an absolute http(s) URL',
  })
  recording_link?: string | null;
}

/** POST /calls (and POST /contacts/{contact_id}/calls). */
export class CreateCallRequest extends CallFields {
  @IsString({ message: 'contact_id is required' })
  @IsNotEmpty({ message: 'contact_id is required' })
  @MaxLength(64, { message: 'contact_id must be a contact id' })
  contact_id: string;
}

export class UpdateCallRequest extends CallFields {
  @IsString()
  call_id: string;

  @PartialFlag()
  partial?: boolean;
}

export class CallIdRequest {
  @IsString()
  call_id: string;
}

export class ListCallsRequest extends RecordListRequest {
  /** Default: call_time_int, newest first. */
  @IsOptional()
  @Lower()
  @IsIn(['call_time_int', 'created_at', 'modified_at'], {
    message: 'sort_by must be one of: call_time_int, created_at, modified_at',
  })
  sort_by?: 'call_time_int' | 'created_at' | 'modified_at';
}

// --- meetings ---

class MeetingFields extends AttachmentsField {
  @ValidateIf(present('text'))
  @IsString({ message: 'text must be a string' })
  @MaxLength(MAX_TEXT, {
    message: `text must be at most ${MAX_TEXT} characters`,
  })
  text?: string | null;

  /** Unix seconds; default: now. */
  @ValidateIf(present('meeting_time_int'))
  @IsInt({ message: UNIX_MESSAGE('meeting_time_int') })
  @Min(0, { message: UNIX_MESSAGE('meeting_time_int') })
  @Max(99_999_999_999, { message: UNIX_MESSAGE('meeting_time_int') })
  meeting_time_int?: number | null;

  @ValidateIf(present('place'))
  @IsString({ message: 'place must be a string' })
  @MaxLength(500, { message: 'place must be at most 500 characters' })
  place?: string | null;
}

/** POST /meetings (and POST /contacts/{contact_id}/meetings). */
export class CreateMeetingRequest extends MeetingFields {
  @IsString({ message: 'contact_id is required' })
  @IsNotEmpty({ message: 'contact_id is required' })
  @MaxLength(64, { message: 'contact_id must be a contact id' })
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

export class ListMeetingsRequest extends RecordListRequest {
  /** Default: meeting_time_int, newest first. */
  @IsOptional()
  @Lower()
  @IsIn(['meeting_time_int', 'created_at', 'modified_at'], {
    message: 'sort_by must be one of: meeting_time_int, created_at, modified_at',
  })
  sort_by?: 'meeting_time_int' | 'created_at' | 'modified_at';
}
