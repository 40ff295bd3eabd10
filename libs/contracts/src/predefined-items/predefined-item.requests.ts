import { Transform } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsBoolean, IsNumber, IsOptional, IsString, Length, Max, MaxLength, Min, ValidateIf } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { PartialFlag } from '../validation/field-rules';
import { toBoolean, trim } from '../validation/transforms';
import { MAX_MONEY } from '../validation/validators';
import { MAX_ITEMS_PER_GROUP } from './predefined-item.dto';

const MONEY = (field: string) => `${field} must be a number from 0 to ${MAX_MONEY}`;
const NAME = 'name must be 1 to 200 characters';
const DESCRIPTION = 'description must be a string of at most 2000 characters';

export class ListPredefinedItemsRequest extends TimeFilterRequest {
  /** Items whose name contains this text, in any letter case. */
  @IsOptional()
  @IsString({ message: 'search must be a string' })
  @MaxLength(200, { message: 'search must be at most 200 characters' })
  search?: string;
}

export class PredefinedItemIdRequest {
  /** Any string: an id that names no item of the caller's account is 404, not 400. */
  @IsString()
  predefined_item_id: string;
}

/** POST /predefined_items: name unique in the account; description, cost and price optional. */
export class CreatePredefinedItemRequest {
  @Transform(trim)
  @IsString({ message: NAME })
  @Length(1, 200, { message: NAME })
  name: string;

  @ValidateIf((o: CreatePredefinedItemRequest) => o.description !== undefined && o.description !== null)
  @IsString({ message: DESCRIPTION })
  @MaxLength(2000, { message: DESCRIPTION })
  description?: string | null;

  @ValidateIf((o: CreatePredefinedItemRequest) => o.cost !== undefined && o.cost !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('cost') })
  @Min(0, { message: MONEY('cost') })
  @Max(MAX_MONEY, { message: MONEY('cost') })
  cost?: number | null;

  @ValidateIf((o: CreatePredefinedItemRequest) => o.price !== undefined && o.price !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('price') })
  @Min(0, { message: MONEY('price') })
  @Max(MAX_MONEY, { message: MONEY('price') })
  price?: number | null;
}

/** PUT /predefined_items/{id}: replaces (absent description, cost, price: back to empty and 0); `partial=true` changes only what is sent. */
export class UpdatePredefinedItemRequest extends PredefinedItemIdRequest {
  @ValidateIf((o: UpdatePredefinedItemRequest) => o.partial !== true || o.name !== undefined)
  @Transform(trim)
  @IsString({ message: NAME })
  @Length(1, 200, { message: NAME })
  name?: string;

  @ValidateIf((o: UpdatePredefinedItemRequest) => o.description !== undefined && o.description !== null)
  @IsString({ message: DESCRIPTION })
  @MaxLength(2000, { message: DESCRIPTION })
  description?: string | null;

  @ValidateIf((o: UpdatePredefinedItemRequest) => o.cost !== undefined && o.cost !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('cost') })
  @Min(0, { message: MONEY('cost') })
  @Max(MAX_MONEY, { message: MONEY('cost') })
  cost?: number | null;

  @ValidateIf((o: UpdatePredefinedItemRequest) => o.price !== undefined && o.price !== null)
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('price') })
  @Min(0, { message: MONEY('price') })
  @Max(MAX_MONEY, { message: MONEY('price') })
  price?: number | null;

  @PartialFlag()
  partial?: boolean;
}

export class ListPredefinedItemGroupsRequest extends TimeFilterRequest {
  /** Embed each group's items (`predefined_items`). */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'include_items must be true or false' })
  include_items?: boolean;
}

export class PredefinedItemGroupIdRequest {
  @IsString()
  predefined_item_group_id: string;
}

/**
 * POST /predefined_item_groups: a named, ordered bundle of ungrouped items of the account.
 * The items come as `item_ids` (the response's name) or `deal_items` (OnePageCRM's body name).
 */
export class CreatePredefinedItemGroupRequest {
  @Transform(trim)
  @IsString({ message: NAME })
  @Length(1, 200, { message: NAME })
  name: string;

  @IsOptional()
  @IsArray({ message: 'item_ids must be an array of predefined item ids' })
  @ArrayMaxSize(MAX_ITEMS_PER_GROUP, { message: `a group holds at most ${MAX_ITEMS_PER_GROUP} items` })
  @IsString({ each: true, message: 'item_ids must hold id strings' })
  item_ids?: string[];

  @IsOptional()
  @IsArray({ message: 'deal_items must be an array of predefined item ids' })
  @ArrayMaxSize(MAX_ITEMS_PER_GROUP, { message: `a group holds at most ${MAX_ITEMS_PER_GROUP} items` })
  @IsString({ each: true, message: 'deal_items must hold id strings' })
  deal_items?: string[];
}
