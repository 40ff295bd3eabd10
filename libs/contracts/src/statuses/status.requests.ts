import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Length, Matches, MaxLength, ValidateIf } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { toBoolean, trim } from '../validation/transforms';
import { ReadOnlyField } from '../validation/validators';

/**
 * `text` (the display name) is stored up to 100 characters (names made before it was the display
 * name keep their length); a new or changed one is held to OnePageCRM's 20 (the service checks it).
 */
export const STATUS_LIMITS = { text: 100, newText: 20, description: 1000 } as const;

/** Color of a status made without one. */
export const DEFAULT_STATUS_COLOR = '#9E9E9E';

export const STATUS_TEXT_MESSAGE = `text must be the status name, 1 to ${STATUS_LIMITS.newText} characters`;

/** `status` is the type key the server assigns; a body may repeat the current one (a client sending back what it read). */
export const STATUS_READ_ONLY_MESSAGE =
  'status is the read-only type key of the status (lead, prospect, custom1, ...); send the name as text';

const DESCRIPTION_MESSAGE = `description must be a string of at most ${STATUS_LIMITS.description} characters`;

const COLOR_MESSAGE = 'color must be a hex color #RRGGBB or #RGB (OnePageCRM sends it without the #: also accepted)';

const COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

/** Trimmed; OnePageCRM's six hex digits without `#` (`f96600`) are read as `#f96600`. */
const hexColor = ({ value }: { value: unknown }): unknown => {
  const color = trim({ value });
  return typeof color === 'string' && /^([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(color) ? `#${color}` : color;
};

export class ListStatusesRequest extends TimeFilterRequest {}

export class StatusIdRequest {
  /** Any string: an id that names no status of the caller's account is 404, not 400. */
  @IsString()
  status_id: string;
}

/** POST /statuses: `text` (the name) required; the type key `status` is assigned (`custom1`, `custom2`, ...). */
export class CreateStatusRequest {
  @Transform(trim)
  @IsString({ message: STATUS_TEXT_MESSAGE })
  @Length(1, STATUS_LIMITS.text, { message: STATUS_TEXT_MESSAGE })
  text: string;

  /** Refused when sent: the server assigns the type key. */
  @ValidateIf((o: CreateStatusRequest) => o.status !== undefined)
  @ReadOnlyField({ message: STATUS_READ_ONLY_MESSAGE })
  status?: unknown;

  @ValidateIf((o: CreateStatusRequest) => o.description !== undefined && o.description !== null)
  @IsString({ message: DESCRIPTION_MESSAGE })
  @MaxLength(STATUS_LIMITS.description, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  @ValidateIf((o: CreateStatusRequest) => o.color !== undefined && o.color !== null)
  @Transform(hexColor)
  @IsString({ message: COLOR_MESSAGE })
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;
}

/**
 * PUT /statuses/{id}: `text` required, absent description and color back to their defaults;
 * `partial=true` changes only what is sent. `status` may repeat the current type key (ignored).
 */
export class UpdateStatusRequest extends StatusIdRequest {
  @ValidateIf((o: UpdateStatusRequest) => o.partial !== true || o.text !== undefined)
  @Transform(trim)
  @IsString({ message: STATUS_TEXT_MESSAGE })
  @Length(1, STATUS_LIMITS.text, { message: STATUS_TEXT_MESSAGE })
  text?: string;

  /** The read-only type key: the current one may be sent back (ignored), any other is 400. */
  @ValidateIf((o: UpdateStatusRequest) => o.status !== undefined)
  @Transform(trim)
  @IsString({ message: STATUS_READ_ONLY_MESSAGE })
  status?: string;

  @ValidateIf((o: UpdateStatusRequest) => o.description !== undefined && o.description !== null)
  @IsString({ message: DESCRIPTION_MESSAGE })
  @MaxLength(STATUS_LIMITS.description, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  @ValidateIf((o: UpdateStatusRequest) => o.color !== undefined && o.color !== null)
  @Transform(hexColor)
  @IsString({ message: COLOR_MESSAGE })
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'partial must be true or false' })
  partial?: boolean;
}

/** PATCH /statuses/{id}: only the fields sent change (null description or color: back to the default). */
export class PatchStatusRequest extends StatusIdRequest {
  @ValidateIf((o: PatchStatusRequest) => o.text !== undefined)
  @Transform(trim)
  @IsString({ message: STATUS_TEXT_MESSAGE })
  @Length(1, STATUS_LIMITS.text, { message: STATUS_TEXT_MESSAGE })
  text?: string;

  /** The read-only type key: the current one may be sent back (ignored), any other is 400. */
  @ValidateIf((o: PatchStatusRequest) => o.status !== undefined)
  @Transform(trim)
  @IsString({ message: STATUS_READ_ONLY_MESSAGE })
  status?: string;

  @ValidateIf((o: PatchStatusRequest) => o.description !== undefined && o.description !== null)
  @IsString({ message: DESCRIPTION_MESSAGE })
  @MaxLength(STATUS_LIMITS.description, { message: DESCRIPTION_MESSAGE })
  description?: string | null;

  @ValidateIf((o: PatchStatusRequest) => o.color !== undefined && o.color !== null)
  @Transform(hexColor)
  @IsString({ message: COLOR_MESSAGE })
  @Matches(COLOR, { message: COLOR_MESSAGE })
  color?: string | null;
}
