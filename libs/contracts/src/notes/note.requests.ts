import { IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, ValidateIf } from 'class-validator';
import { NotifyUsersField } from '../notifications/notification.requests';
import { RecordListRequest } from '../paging/record-list.request';
import { DateFilterParam, TIME_DATE_FILTERS } from '../paging/time-filter.request';
import { PartialFlag, RequiredContactId } from '../validation/field-rules';
import { LowerKey } from '../validation/transforms';
import { IsPlainDate, MAX_TEXT, present } from '../validation/validators';

/** Notes, calls and meetings take the date_filter values of every list. */
export const ACTIVITY_DATE_FILTERS = TIME_DATE_FILTERS;

/** A note's `date_filter`: the common values and its `date` (a day). */
export const NOTE_DATE_FILTERS = [...TIME_DATE_FILTERS, 'date'] as const;

class NoteFields extends NotifyUsersField {
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
  @RequiredContactId()
  contact_id: string;
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
  @DateFilterParam(NOTE_DATE_FILTERS)
  override date_filter?: (typeof NOTE_DATE_FILTERS)[number] = undefined;

  /** Default: date, newest first. */
  @IsOptional()
  @LowerKey()
  @IsIn(['date', 'created_at', 'modified_at'], {
    message: 'sort_by must be one of: date, created_at, modified_at',
  })
  sort_by?: 'date' | 'created_at' | 'modified_at';
}
