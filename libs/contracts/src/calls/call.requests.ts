import { IsIn, IsOptional, IsString, Matches, MaxLength, ValidateIf } from 'class-validator';
import { NotifyUsersField } from '../notifications/notification.requests';
import { CALL_RESULTS } from '../call-results/call-result.dto';
import { RecordListRequest } from '../paging/record-list.request';
import { DateFilterParam, TIME_DATE_FILTERS } from '../paging/time-filter.request';
import { PartialFlag, RequiredContactId, UnixSeconds } from '../validation/field-rules';
import { LowerKey } from '../validation/transforms';
import { MAX_TEXT, present } from '../validation/validators';

class CallFields extends NotifyUsersField {
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
  @UnixSeconds()
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
  @RequiredContactId()
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

/** `date_filter`: the common values and `call_time` (the call's call_time_int, Unix seconds). */
export const CALL_DATE_FILTERS = [...TIME_DATE_FILTERS, 'call_time'] as const;

export class ListCallsRequest extends RecordListRequest {
  @DateFilterParam(CALL_DATE_FILTERS)
  override date_filter?: (typeof CALL_DATE_FILTERS)[number] = undefined;

  /** Default: call_time_int, newest first. */
  @IsOptional()
  @LowerKey()
  @IsIn(['call_time_int', 'created_at', 'modified_at'], {
    message: 'sort_by must be one of: call_time_int, created_at, modified_at',
  })
  sort_by?: 'call_time_int' | 'created_at' | 'modified_at';
}
