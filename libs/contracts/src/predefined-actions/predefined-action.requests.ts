import { Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  Min,
  ValidateIf,
} from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { PartialFlag } from '../validation/field-rules';
import { trim } from '../validation/transforms';

/** Statuses a template may give the action it makes (the next-action kinds of the spec's Action). */
export const PREDEFINED_ACTION_STATUSES = ['date', 'date_time', 'waiting'] as const;

export type PredefinedActionStatus = (typeof PREDEFINED_ACTION_STATUSES)[number];

export class ListPredefinedActionsRequest extends TimeFilterRequest {}

export class PredefinedActionIdRequest {
  /** Any string: an id that names no template of the caller's account is 404, not 400. */
  @IsString()
  predefined_action_id: string;
}

/** POST /predefined_actions: a template for actions (docs/decisions.md "Predefined actions"). */
export class CreatePredefinedActionRequest {
  @Transform(trim)
  @IsString({ message: 'text must be a string' })
  @Length(1, 2000, { message: 'text must be 1 to 2000 characters' })
  text: string;

  @IsOptional()
  @IsIn(PREDEFINED_ACTION_STATUSES, { message: `status must be one of: ${PREDEFINED_ACTION_STATUSES.join(', ')}` })
  status: PredefinedActionStatus = 'date';

  /** Days from the day the template is applied to the action's date (date and date_time). */
  @IsOptional()
  @IsInt({ message: 'days_after must be an integer from 0 to 3650' })
  @Min(0, { message: 'days_after must be an integer from 0 to 3650' })
  @Max(3650, { message: 'days_after must be an integer from 0 to 3650' })
  days_after: number = 0;

  /** OnePageCRM's name of `days_after`; wins when both are sent. */
  @IsOptional()
  @IsInt({ message: 'days must be an integer from 0 to 3650' })
  @Min(0, { message: 'days must be an integer from 0 to 3650' })
  @Max(3650, { message: 'days must be an integer from 0 to 3650' })
  days?: number;

  /** Local time of day `HH:MM`, required for date_time and refused otherwise. */
  @IsOptional()
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'time must be HH:MM (00:00 to 23:59)' })
  time?: string;
}

/**
 * PUT /predefined_actions/{id}: replaces the template (absent status, days_after and time take
 * their create defaults); `partial=true` changes only the fields sent. Group membership is not
 * written here (the group's PUT does that).
 */
export class UpdatePredefinedActionRequest extends PredefinedActionIdRequest {
  @ValidateIf((o: UpdatePredefinedActionRequest) => o.partial !== true || o.text !== undefined)
  @Transform(trim)
  @IsString({ message: 'text must be a string' })
  @Length(1, 2000, { message: 'text must be 1 to 2000 characters' })
  text?: string;

  @IsOptional()
  @IsIn(PREDEFINED_ACTION_STATUSES, { message: `status must be one of: ${PREDEFINED_ACTION_STATUSES.join(', ')}` })
  status?: PredefinedActionStatus;

  @IsOptional()
  @IsInt({ message: 'days_after must be an integer from 0 to 3650' })
  @Min(0, { message: 'days_after must be an integer from 0 to 3650' })
  @Max(3650, { message: 'days_after must be an integer from 0 to 3650' })
  days_after?: number;

  /** OnePageCRM's name of `days_after`; wins when both are sent. */
  @IsOptional()
  @IsInt({ message: 'days must be an integer from 0 to 3650' })
  @Min(0, { message: 'days must be an integer from 0 to 3650' })
  @Max(3650, { message: 'days must be an integer from 0 to 3650' })
  days?: number;

  @ValidateIf((o: UpdatePredefinedActionRequest) => o.time !== undefined && o.time !== null)
  @Matches(/^([01]\d|2[0-3]):[0-5]\d$/, { message: 'time must be HH:MM (00:00 to 23:59)' })
  time?: string | null;

  @PartialFlag()
  partial?: boolean;
}

export class ListPredefinedActionGroupsRequest extends TimeFilterRequest {}

export class PredefinedActionGroupIdRequest {
  @IsString()
  predefined_action_group_id: string;
}

/** POST /predefined_action_groups: a named, ordered set of at least two templates. */
export class CreatePredefinedActionGroupRequest {
  @ValidateIf((o: CreatePredefinedActionGroupRequest) => o.text === undefined)
  @Transform(trim)
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;

  /** OnePageCRM's name of `name`. */
  @ValidateIf((o: CreatePredefinedActionGroupRequest) => o.text !== undefined)
  @Transform(trim)
  @IsString({ message: 'text must be a string' })
  @Length(1, 100, { message: 'text must be 1 to 100 characters' })
  text?: string;

  /** OnePageCRM's name of `predefined_action_ids`. */
  @ValidateIf((o: CreatePredefinedActionGroupRequest) => o.action_ids !== undefined)
  @IsArray({ message: 'action_ids must be an array of ids' })
  @ArrayMinSize(2, { message: 'a group needs at least two predefined actions' })
  @ArrayMaxSize(100, { message: 'a group holds at most 100 predefined actions' })
  @IsString({ each: true, message: 'action_ids must hold id strings' })
  action_ids?: string[];

  @ValidateIf((o: CreatePredefinedActionGroupRequest) => o.action_ids === undefined)
  @IsArray({ message: 'predefined_action_ids must be an array of ids' })
  @ArrayMinSize(2, { message: 'a group needs at least two predefined actions' })
  @ArrayMaxSize(100, { message: 'a group holds at most 100 predefined actions' })
  @IsString({ each: true, message: 'predefined_action_ids must hold id strings' })
  predefined_action_ids: string[];
}

/**
 * PUT /predefined_action_groups/{id}: a new name and the complete, ordered membership (at least
 * two templates, each ungrouped or already this group's; those left out become ungrouped).
 * `partial=true` changes only the fields sent.
 */
export class UpdatePredefinedActionGroupRequest extends PredefinedActionGroupIdRequest {
  @ValidateIf((o: UpdatePredefinedActionGroupRequest) => o.text === undefined && (o.partial !== true || o.name !== undefined))
  @Transform(trim)
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name?: string;

  /** OnePageCRM's name of `name`. */
  @ValidateIf((o: UpdatePredefinedActionGroupRequest) => o.text !== undefined)
  @Transform(trim)
  @IsString({ message: 'text must be a string' })
  @Length(1, 100, { message: 'text must be 1 to 100 characters' })
  text?: string;

  /** OnePageCRM's name of `predefined_action_ids`. */
  @ValidateIf((o: UpdatePredefinedActionGroupRequest) => o.action_ids !== undefined)
  @IsArray({ message: 'action_ids must be an array of ids' })
  @ArrayMinSize(2, { message: 'a group needs at least two predefined actions' })
  @ArrayMaxSize(100, { message: 'a group holds at most 100 predefined actions' })
  @IsString({ each: true, message: 'action_ids must hold id strings' })
  action_ids?: string[];

  @ValidateIf(
    (o: UpdatePredefinedActionGroupRequest) => o.action_ids === undefined && (o.partial !== true || o.predefined_action_ids !== undefined),
  )
  @IsArray({ message: 'predefined_action_ids must be an array of ids' })
  @ArrayMinSize(2, { message: 'a group needs at least two predefined actions' })
  @ArrayMaxSize(100, { message: 'a group holds at most 100 predefined actions' })
  @IsString({ each: true, message: 'predefined_action_ids must hold id strings' })
  predefined_action_ids?: string[];

  @PartialFlag()
  partial?: boolean;
}
