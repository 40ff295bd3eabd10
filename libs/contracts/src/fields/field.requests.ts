import { LowerKey } from '../validation/transforms';
import { ClassConstructor, Transform } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
} from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { toBoolean, trim, trimEach } from '../validation/transforms';
import { FIELD_LIMITS, FIELD_TYPES, FieldSet, FieldType } from './field.dto';

export const FIELD_SORT_KEYS = ['position', 'created_at', 'modified_at'] as const;

export type FieldSortKey = (typeof FIELD_SORT_KEYS)[number];

export const FIELD_SORT_ORDERS = ['asc', 'desc'] as const;

export type FieldSortOrder = (typeof FIELD_SORT_ORDERS)[number];

const TYPE_MESSAGE = `type must be one of: ${FIELD_TYPES.join(', ')}`;

const NAME_MESSAGE = `name must be a non-empty string of at most ${FIELD_LIMITS.nameLength} characters`;

const CHOICES_MESSAGE = `choices must be an array of non-empty strings of at most ${FIELD_LIMITS.choiceLength} characters`;

const POSITION_MESSAGE = `position must be an integer from 0 to ${FIELD_LIMITS.maxPosition}`;

const lower = ({ value }: { value: unknown }): unknown => (typeof value === 'string' ? value.toLowerCase() : value);

/** GET /custom_fields, /company_fields, /deal_fields. */
export class ListFieldsRequest extends TimeFilterRequest {
  /** Default: position (then created_at, id). */
  @IsOptional()
  @LowerKey()
  @IsIn(FIELD_SORT_KEYS, { message: `sort_by must be one of: ${FIELD_SORT_KEYS.join(', ')}` })
  sort_by?: FieldSortKey;

  /** Default: asc. */
  @IsOptional()
  @Transform(lower)
  @IsIn(FIELD_SORT_ORDERS, { message: 'order must be asc or desc' })
  order?: FieldSortOrder;

  /** Only fields of this type. */
  @IsOptional()
  @IsIn(FIELD_TYPES, { message: TYPE_MESSAGE })
  type?: FieldType;
}

/** POST: name and type required; position defaults to the end of the set. */
export class CreateFieldRequest {
  @Transform(trim)
  @IsString({ message: NAME_MESSAGE })
  @IsNotEmpty({ message: NAME_MESSAGE })
  @MaxLength(FIELD_LIMITS.nameLength, { message: NAME_MESSAGE })
  name: string;

  @IsIn(FIELD_TYPES, { message: TYPE_MESSAGE })
  type: FieldType;

  /** Absent or null: one more than the highest position of the set. */
  @ValidateIf((o: CreateFieldRequest) => o.position !== undefined && o.position !== null)
  @IsInt({ message: POSITION_MESSAGE })
  @Min(0, { message: POSITION_MESSAGE })
  @Max(FIELD_LIMITS.maxPosition, { message: POSITION_MESSAGE })
  position?: number | null;

  /** Required (non-empty) for select_box and multiple_choice, refused for other types. */
  @ValidateIf((o: CreateFieldRequest) => o.choices !== undefined && o.choices !== null)
  @Transform(trimEach)
  @IsArray({ message: CHOICES_MESSAGE })
  @ArrayMaxSize(FIELD_LIMITS.choices, { message: `choices may hold at most ${FIELD_LIMITS.choices} entries` })
  @IsString({ each: true, message: CHOICES_MESSAGE })
  @IsNotEmpty({ each: true, message: CHOICES_MESSAGE })
  @MaxLength(FIELD_LIMITS.choiceLength, { each: true, message: CHOICES_MESSAGE })
  choices?: string[] | null;
}

/**
 * PUT: replaces the writable fields (name required; choices absent = none). The type cannot
 * change (sending the current one is fine); an absent position keeps the current one. With
 * `partial=true` only the fields sent change, as with PATCH.
 */
export class UpdateFieldRequest {
  @ValidateIf((o: UpdateFieldRequest) => o.partial !== true || o.name !== undefined)
  @Transform(trim)
  @IsString({ message: NAME_MESSAGE })
  @IsNotEmpty({ message: NAME_MESSAGE })
  @MaxLength(FIELD_LIMITS.nameLength, { message: NAME_MESSAGE })
  name?: string;

  @ValidateIf((o: UpdateFieldRequest) => o.type !== undefined)
  @IsIn(FIELD_TYPES, { message: TYPE_MESSAGE })
  type?: FieldType;

  @ValidateIf((o: UpdateFieldRequest) => o.position !== undefined && o.position !== null)
  @IsInt({ message: POSITION_MESSAGE })
  @Min(0, { message: POSITION_MESSAGE })
  @Max(FIELD_LIMITS.maxPosition, { message: POSITION_MESSAGE })
  position?: number | null;

  @ValidateIf((o: UpdateFieldRequest) => o.choices !== undefined && o.choices !== null)
  @Transform(trimEach)
  @IsArray({ message: CHOICES_MESSAGE })
  @ArrayMaxSize(FIELD_LIMITS.choices, { message: `choices may hold at most ${FIELD_LIMITS.choices} entries` })
  @IsString({ each: true, message: CHOICES_MESSAGE })
  @IsNotEmpty({ each: true, message: CHOICES_MESSAGE })
  @MaxLength(FIELD_LIMITS.choiceLength, { each: true, message: CHOICES_MESSAGE })
  choices?: string[] | null;

  /** Query (or body) `partial=true`: change only the fields sent. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'partial must be true or false' })
  partial?: boolean;
}

/** PATCH: only the fields sent change (an array sent replaces the whole array). */
export class PatchFieldRequest {
  @ValidateIf((o: PatchFieldRequest) => o.name !== undefined)
  @Transform(trim)
  @IsString({ message: NAME_MESSAGE })
  @IsNotEmpty({ message: NAME_MESSAGE })
  @MaxLength(FIELD_LIMITS.nameLength, { message: NAME_MESSAGE })
  name?: string;

  @ValidateIf((o: PatchFieldRequest) => o.type !== undefined)
  @IsIn(FIELD_TYPES, { message: TYPE_MESSAGE })
  type?: FieldType;

  @ValidateIf((o: PatchFieldRequest) => o.position !== undefined && o.position !== null)
  @IsInt({ message: POSITION_MESSAGE })
  @Min(0, { message: POSITION_MESSAGE })
  @Max(FIELD_LIMITS.maxPosition, { message: POSITION_MESSAGE })
  position?: number | null;

  @ValidateIf((o: PatchFieldRequest) => o.choices !== undefined && o.choices !== null)
  @Transform(trimEach)
  @IsArray({ message: CHOICES_MESSAGE })
  @ArrayMaxSize(FIELD_LIMITS.choices, { message: `choices may hold at most ${FIELD_LIMITS.choices} entries` })
  @IsString({ each: true, message: CHOICES_MESSAGE })
  @IsNotEmpty({ each: true, message: CHOICES_MESSAGE })
  @MaxLength(FIELD_LIMITS.choiceLength, { each: true, message: CHOICES_MESSAGE })
  choices?: string[] | null;
}

// Per-set classes: the path parameter carries the set's name (`custom_field_id`, ...). Any string
// is accepted: an id that names no field of the caller's account is 404, not 400.

export class CustomFieldIdRequest {
  @IsString()
  custom_field_id: string;
}

export class UpdateCustomFieldRequest extends UpdateFieldRequest {
  @IsString()
  custom_field_id: string;
}

export class PatchCustomFieldRequest extends PatchFieldRequest {
  @IsString()
  custom_field_id: string;
}

export class CompanyFieldIdRequest {
  @IsString()
  company_field_id: string;
}

export class UpdateCompanyFieldRequest extends UpdateFieldRequest {
  @IsString()
  company_field_id: string;
}

export class PatchCompanyFieldRequest extends PatchFieldRequest {
  @IsString()
  company_field_id: string;
}

export class DealFieldIdRequest {
  @IsString()
  deal_field_id: string;
}

export class UpdateDealFieldRequest extends UpdateFieldRequest {
  @IsString()
  deal_field_id: string;
}

export class PatchDealFieldRequest extends PatchFieldRequest {
  @IsString()
  deal_field_id: string;
}

/** The request classes of each set's single-record routes. */
export const FIELD_REQUESTS: Readonly<
  Record<
    FieldSet,
    { id: ClassConstructor<object>; update: ClassConstructor<UpdateFieldRequest>; patch: ClassConstructor<PatchFieldRequest> }
  >
> = {
  custom_fields: { id: CustomFieldIdRequest, update: UpdateCustomFieldRequest, patch: PatchCustomFieldRequest },
  company_fields: { id: CompanyFieldIdRequest, update: UpdateCompanyFieldRequest, patch: PatchCompanyFieldRequest },
  deal_fields: { id: DealFieldIdRequest, update: UpdateDealFieldRequest, patch: PatchDealFieldRequest },
};
