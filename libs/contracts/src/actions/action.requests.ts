import { IsBoolean, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { RecordListRequest } from '../paging/record-list.request';
import { DateFilterParam } from '../paging/time-filter.request';
import { RequiredContactId, UnixSeconds } from '../validation/field-rules';
import { EmptyAsNull, Lower, LowerKey, ToBoolean } from '../validation/transforms';
import { IsPlainDate, present } from '../validation/validators';
import { ACTION_STATUSES, ActionStatus } from './action.dto';

/** Statuses a client may write: next actions and queued ones (`done` comes from mark_as_done). */
export const WRITABLE_ACTION_STATUSES = ['asap', 'date', 'date_time', 'waiting', 'queued', 'queued_with_date'] as const;

export type WritableActionStatus = (typeof WRITABLE_ACTION_STATUSES)[number];

export const MAX_ACTION_TEXT = 10_000;

const STATUS_MESSAGE = `status must be one of: ${WRITABLE_ACTION_STATUSES.join(', ')}`;

const TEXT_MESSAGE = `text must be a non-empty string of at most ${MAX_ACTION_TEXT} characters`;

/**
 * The writable fields of an action. `status`: `asap` (no date, the most urgent), `date` (a day),
 * `date_time` (a day and `exact_time`), `waiting` (no date) are next actions; `queued` (no date)
 * and `queued_with_date` (a day) are queued behind the next action at `position`.
 */
export class ActionFieldsRequest {
  /** Default: the caller. */
  @ValidateIf(present('assignee_id'))
  @IsString({ message: 'assignee_id must be a user id' })
  @MaxLength(64, { message: 'assignee_id must be a user id' })
  assignee_id?: string | null;

  @ValidateIf((o: ActionFieldsRequest) => o.text !== undefined)
  @IsString({ message: TEXT_MESSAGE })
  @IsNotEmpty({ message: TEXT_MESSAGE })
  @MaxLength(MAX_ACTION_TEXT, { message: TEXT_MESSAGE })
  text?: string;

  /** Default: date_time with exact_time, date with a date, else waiting. */
  @ValidateIf(present('status'))
  @Lower()
  @IsIn(WRITABLE_ACTION_STATUSES, { message: STATUS_MESSAGE })
  status?: WritableActionStatus | null;

  /** A day; '' (as undated actions answer it) means none. */
  @EmptyAsNull()
  @ValidateIf(present('date'))
  @IsPlainDate()
  date?: string | null;

  /** Unix seconds (status date_time); 0, as actions without a time answer it, means none. */
  @UnixSeconds()
  exact_time?: number | null;

  /** Place in the queue of queued actions (1 = first); default: the end. */
  @ValidateIf(present('position'))
  @IsInt({ message: 'position must be an integer from 1 to 10000' })
  @Min(1, { message: 'position must be an integer from 1 to 10000' })
  @Max(10_000, { message: 'position must be an integer from 1 to 10000' })
  position?: number | null;
}

/** POST /actions (and POST /contacts/{contact_id}/actions): contact_id and text required. */
export class CreateActionRequest extends ActionFieldsRequest {
  @RequiredContactId()
  contact_id: string;
}

export class ActionIdRequest {
  /** Any string: an id that names no action of the caller's account is 404, not 400. */
  @IsString()
  action_id: string;
}

/** DELETE /actions/{action_id}: `undo=true` restores an action deleted in the last 30 days (OnePageCRM's undo). */
export class DeleteActionRequest extends ActionIdRequest {
  /** true: restore the action deleted in the last 30 days (the same request repeated with undo=true); 404 when there is none. */
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'undo must be true or false (or 1 or 0)' })
  undo?: boolean;
}

/**
 * PUT /actions/{action_id}: replaces text (required), status, date, exact_time, position and
 * assignee; `done` true completes it, false undoes a completion. `partial=true`: only the fields sent.
 */
export class UpdateActionRequest extends ActionFieldsRequest {
  @IsString()
  action_id: string;

  /** Body or query (`PUT /actions/{id}?done=true`, as OnePageCRM documents it); a body value wins. */
  @ValidateIf(present('done'))
  @ToBoolean()
  @IsBoolean({ message: 'done must be true or false' })
  done?: boolean | null;

  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'partial must be true or false' })
  partial?: boolean;
}

/** PUT /actions/external/{provider}/{external_id}: creates or updates the mirrored action. */
export class ExternalActionRequest extends ActionFieldsRequest {
  @IsString()
  @MaxLength(100, { message: 'provider must be at most 100 characters' })
  provider: string;

  @IsString()
  @MaxLength(200, { message: 'external_id must be at most 200 characters' })
  external_id: string;

  @RequiredContactId()
  contact_id: string;
}

/** `close_date`: the day an action was completed (its done_at), as OnePageCRM names it. */
export const ACTION_DATE_FILTERS = ['created_at', 'modified_at', 'date', 'close_date'] as const;

export const ACTION_SORT_KEYS = ['date', 'position', 'created_at', 'modified_at'] as const;

/** GET /actions (and GET /contacts/{contact_id}/actions). */
export class ListActionsRequest extends RecordListRequest {
  @IsOptional()
  @IsString()
  @MaxLength(64)
  assignee_id?: string;

  @IsOptional()
  @Lower()
  @IsIn(ACTION_STATUSES, {
    message: `status must be one of: ${ACTION_STATUSES.join(', ')}`,
  })
  status?: ActionStatus;

  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'done must be true or false' })
  done?: boolean;

  @DateFilterParam(ACTION_DATE_FILTERS)
  override date_filter?: (typeof ACTION_DATE_FILTERS)[number] = undefined;

  /** Default: open actions first, by date (undated last), exact_time, position. */
  @IsOptional()
  @LowerKey()
  @IsIn(ACTION_SORT_KEYS, {
    message: `sort_by must be one of: ${ACTION_SORT_KEYS.join(', ')}`,
  })
  sort_by?: (typeof ACTION_SORT_KEYS)[number];
}
