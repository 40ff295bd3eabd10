import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { toBoolean, trim } from '../validation/transforms';

export const LEAD_SOURCE_NAME_LENGTH = 100;

const TEXT_MESSAGE = `text must be a name of 1 to ${LEAD_SOURCE_NAME_LENGTH} characters`;

export class ListLeadSourcesRequest extends TimeFilterRequest {}

export class LeadSourceIdRequest {
  /** Any string: an id that names no lead source of the caller's account is 404, not 400. */
  @IsString()
  lead_source_id: string;
}

/** POST /lead_sources: `text` is the lead source's name. */
export class CreateLeadSourceRequest {
  @Transform(trim)
  @IsString({ message: TEXT_MESSAGE })
  @Length(1, LEAD_SOURCE_NAME_LENGTH, { message: TEXT_MESSAGE })
  text: string;
}

/** PUT /lead_sources/{id}: renames (`text` required unless partial=true). */
export class UpdateLeadSourceRequest extends LeadSourceIdRequest {
  @ValidateIf((o: UpdateLeadSourceRequest) => o.partial !== true || o.text !== undefined)
  @Transform(trim)
  @IsString({ message: TEXT_MESSAGE })
  @Length(1, LEAD_SOURCE_NAME_LENGTH, { message: TEXT_MESSAGE })
  text?: string;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'partial must be true or false' })
  partial?: boolean;
}

/** PATCH /lead_sources/{id}. */
export class PatchLeadSourceRequest extends LeadSourceIdRequest {
  @ValidateIf((o: PatchLeadSourceRequest) => o.text !== undefined)
  @Transform(trim)
  @IsString({ message: TEXT_MESSAGE })
  @Length(1, LEAD_SOURCE_NAME_LENGTH, { message: TEXT_MESSAGE })
  text?: string;
}
