import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { toBoolean, trim } from '../validation/transforms';

export const STATUS_LIMITS = { name: 100, text: 10, description: 1000 } as const;

/** Color of a status made without one. */
export const DEFAULT_STATUS_COLOR = '#9E9E9E';

const STATUS_MESSAGE = `status must be a name of 1 to ${STATUS_LIMITS.name} characters`;

const TEXT_MESSAGE = `text must be a short label of 1 to ${STATUS_LIMITS.text} characters`;

const DESCRIPTION_MESSAGE = `description must be a string of at most ${STATUS_LIMITS.description} characters`;

const COLOR_MESSAGE = 'color must be a hex color #RRGGBB or #RGB';

const COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export class ListStatusesRequest extends TimeFilterRequest {}

export class StatusIdRequest {
  /** Any string: an id that names no status of the caller's account is 404, not 400. */
  @IsString()
  status_id: string;
}

/** POST /statuses: `status` (the name) required; `text` defaults to its first two letters in capitals. */
export class CreateStatusRequest {
  @Transform(trim)
  @IsString({ message: STATUS_MESSAGE })
  @Length(1, STATUS_LIMITS.name, { message: STATUS_MESSAGE })
  status: string;

  @ValidateIf((o: CreateStatusRequest) => o.text !== undefined && o.text !== null)
  @Transform(trim)
  @IsString({ message: TEXT_MESSAGE })
  @Length(1, STATUS_LIMITS.text, { message: TEXT_MESSAGE })
  text?: string | null;

  @ValidateIf((o: CreateStatusRequest) => o.description !== undefined && o.description !== null)
  @IsString({ message: DESCRIPTION_MESSAGE })
  @MaxLength(STATUS_LIMITS.description, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  @ValidateIf((o: CreateStatusRequest) => o.color !== undefined && o.color !== null)
  @Transform(trim)
  @IsString({ message: COLOR_MESSAGE })
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;
}

/** PUT /statuses/{id}: replaces the writable fields (absent ones defaulted); `partial=true` changes only what is sent. */
export class UpdateStatusRequest extends StatusIdRequest {
  @ValidateIf((o: UpdateStatusRequest) => o.partial !== true || o.status !== undefined)
  @Transform(trim)
  @IsString({ message: STATUS_MESSAGE })
  @Length(1, STATUS_LIMITS.name, { message: STATUS_MESSAGE })
  status?: string;

  @ValidateIf((o: UpdateStatusRequest) => o.text !== undefined && o.text !== null)
  @Transform(trim)
  @IsString({ message: TEXT_MESSAGE })
  @Length(1, STATUS_LIMITS.text, { message: TEXT_MESSAGE })
  text?: string | null;

  @ValidateIf((o: UpdateStatusRequest) => o.description !== undefined && o.description !== null)
  @IsString({ message: DESCRIPTION_MESSAGE })
  @MaxLength(STATUS_LIMITS.description, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  @ValidateIf((o: UpdateStatusRequest) => o.color !== undefined && o.color !== null)
  @Transform(trim)
  @IsString({ message: COLOR_MESSAGE })
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'partial must be true or false' })
  partial?: boolean;
}

/** PATCH /statuses/{id}: only the fields sent change (null text, description or color: back to the default). */
export class PatchStatusRequest extends StatusIdRequest {
  @ValidateIf((o: PatchStatusRequest) => o.status !== undefined)
  @Transform(trim)
  @IsString({ message: STATUS_MESSAGE })
  @Length(1, STATUS_LIMITS.name, { message: STATUS_MESSAGE })
  status?: string;

  @ValidateIf((o: PatchStatusRequest) => o.text !== undefined && o.text !== null)
  @Transform(trim)
  @IsString({ message: TEXT_MESSAGE })
  @Length(1, STATUS_LIMITS.text, { message: TEXT_MESSAGE })
  text?: string | null;

  @ValidateIf((o: PatchStatusRequest) => o.description !== undefined && o.description !== null)
  @IsString({ message: DESCRIPTION_MESSAGE })
  @MaxLength(STATUS_LIMITS.description, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  @ValidateIf((o: PatchStatusRequest) => o.color !== undefined && o.color !== null)
  @Transform(trim)
  @IsString({ message: COLOR_MESSAGE })
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;
}
