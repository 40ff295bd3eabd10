import { Transform, Type } from 'class-transformer';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsDefined, IsIn, IsOptional, IsString, Length, ValidateNested } from 'class-validator';
import type { SortOrder } from '../contacts/contact.requests';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { OptionalFlag, OptionalTrimmedString, SortOrderParam } from '../validation/field-rules';
import { LowerKey, trim } from '../validation/transforms';

export const RELATIONSHIP_TYPE_SORT_KEYS = ['created_at', 'modified_at'] as const;

/** GET /relationship_types: by creation unless `sort_by`; `search` and `symmetrical` narrow it. */
export class ListRelationshipTypesRequest extends TimeFilterRequest {
  /** Part of a variant's name (any letter case). */
  @OptionalTrimmedString(100)
  search?: string;

  /** true: only symmetrical types (one variant); false: only directional ones (two). */
  @OptionalFlag()
  symmetrical?: boolean;

  @IsOptional()
  @LowerKey()
  @IsIn(RELATIONSHIP_TYPE_SORT_KEYS, { message: `sort_by must be one of: ${RELATIONSHIP_TYPE_SORT_KEYS.join(', ')}` })
  sort_by?: (typeof RELATIONSHIP_TYPE_SORT_KEYS)[number];

  @SortOrderParam()
  order?: SortOrder;
}

export class RelationshipTypeIdRequest {
  /** Any string: an id that names no type of the caller's account is 404, not 400. */
  @IsString()
  relationship_type_id: string;
}

export class NewVariant {
  @Transform(trim)
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;
}

/** POST /relationship_types: one variant = symmetrical, two = directional (decisions.md). */
export class CreateRelationshipTypeRequest {
  @IsDefined({ message: 'variants is required' })
  @IsArray({ message: 'variants must be an array of { name }' })
  @ArrayMinSize(1, { message: 'variants must hold one (symmetrical) or two (directional) variants' })
  @ArrayMaxSize(2, { message: 'variants must hold one (symmetrical) or two (directional) variants' })
  @ValidateNested({ each: true })
  @Type(() => NewVariant)
  variants: NewVariant[];
}

export class RenamedVariant {
  @IsString({ message: 'id must be a string' })
  id: string;

  @Transform(trim)
  @IsString({ message: 'name must be a string' })
  @Length(1, 100, { message: 'name must be 1 to 100 characters' })
  name: string;
}

/** PUT /relationship_types/{id}: every existing variant id with its new name, nothing else. */
export class UpdateRelationshipTypeRequest extends RelationshipTypeIdRequest {
  @IsDefined({ message: 'variants is required' })
  @IsArray({ message: 'variants must be an array of { id, name }' })
  @ArrayMinSize(1, { message: 'variants must list every variant of the type' })
  @ArrayMaxSize(2, { message: 'variants must list every variant of the type' })
  @ValidateNested({ each: true })
  @Type(() => RenamedVariant)
  variants: RenamedVariant[];
}
