import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsObject, IsOptional, IsString, Length, ValidateIf } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { toBoolean, trim } from '../validation/transforms';
import { FILTER_LIMITS, FilterConditionDto } from './filter.dto';

const NAME_MESSAGE = `name must be 1 to ${FILTER_LIMITS.name} characters`;

const CONDITIONS_MESSAGE = `conditions must be an array of at most ${FILTER_LIMITS.conditions} objects { field, operator, value }`;

export class ListFiltersRequest extends TimeFilterRequest {}

export class FilterIdRequest {
  /** Any string: an id that names no filter of the caller's account is 404, not 400. */
  @IsString()
  filter_id: string;
}

/**
 * POST /filters. Each condition is checked by crm-core against the condition language
 * (errors keyed `conditions.<index>.<key>`): the shape here, the meaning there.
 */
export class CreateFilterRequest {
  @Transform(trim)
  @IsString({ message: NAME_MESSAGE })
  @Length(1, FILTER_LIMITS.name, { message: NAME_MESSAGE })
  name: string;

  @IsOptional()
  @IsArray({ message: CONDITIONS_MESSAGE })
  @ArrayMaxSize(FILTER_LIMITS.conditions, { message: CONDITIONS_MESSAGE })
  @IsObject({ each: true, message: CONDITIONS_MESSAGE })
  conditions: FilterConditionDto[] = [];
}

/** PUT /filters/{id}: replaces name and conditions (absent conditions = none); `partial=true` changes only what is sent. */
export class UpdateFilterRequest extends FilterIdRequest {
  @ValidateIf((o: UpdateFilterRequest) => o.partial !== true || o.name !== undefined)
  @Transform(trim)
  @IsString({ message: NAME_MESSAGE })
  @Length(1, FILTER_LIMITS.name, { message: NAME_MESSAGE })
  name?: string;

  @ValidateIf((o: UpdateFilterRequest) => o.conditions !== undefined)
  @IsArray({ message: CONDITIONS_MESSAGE })
  @ArrayMaxSize(FILTER_LIMITS.conditions, { message: CONDITIONS_MESSAGE })
  @IsObject({ each: true, message: CONDITIONS_MESSAGE })
  conditions?: FilterConditionDto[];

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'partial must be true or false' })
  partial?: boolean;
}

/** PATCH /filters/{id}: only the fields sent change. */
export class PatchFilterRequest extends FilterIdRequest {
  @ValidateIf((o: PatchFilterRequest) => o.name !== undefined)
  @Transform(trim)
  @IsString({ message: NAME_MESSAGE })
  @Length(1, FILTER_LIMITS.name, { message: NAME_MESSAGE })
  name?: string;

  @ValidateIf((o: PatchFilterRequest) => o.conditions !== undefined)
  @IsArray({ message: CONDITIONS_MESSAGE })
  @ArrayMaxSize(FILTER_LIMITS.conditions, { message: CONDITIONS_MESSAGE })
  @IsObject({ each: true, message: CONDITIONS_MESSAGE })
  conditions?: FilterConditionDto[];
}
