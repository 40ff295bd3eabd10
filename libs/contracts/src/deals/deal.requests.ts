import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { AttachmentInput } from '../attachments/attachment.requests';
import { RecordListRequest } from '../paging/record-list.request';
import { DateFilterParam } from '../paging/time-filter.request';
import { ALWAYS_VALIDATE, FieldReference, RequiredContactId, stack } from '../validation/field-rules';
import { Lower, LowerKey, ToBoolean, ToInteger, Trim } from '../validation/transforms';
import { IsPlainDate, MAX_MONEY, MAX_TEXT, present } from '../validation/validators';
import { DEAL_STATUSES, DealStatus } from './deal.dto';

/** Deal names longer than this are truncated (spec "Limits"). */
export const DEAL_NAME_LENGTH = 60;

export const DEAL_LIST_STATUSES = ['pending', 'won', 'lost', 'closed'] as const;

export const DEAL_DATE_FILTERS = ['created_at', 'modified_at', 'date', 'expected_close_date', 'close_date'] as const;

export const DEAL_SORT_KEYS = [
  'date',
  'amount',
  'stage',
  'name',
  'expected_close_date',
  'close_date',
  'created_at',
  'modified_at',
] as const;

/** Allowed commission settings (the spec does not list them): the base of a percentage, and the kind. */
export const COMMISSION_BASES = ['', 'amount', 'margin'] as const;

export const COMMISSION_TYPES = ['', 'none', 'percentage', 'absolute'] as const;

const MONEY = (field: string) => `${field} must be a number from 0 to ${MAX_MONEY}`;

export class DealFieldRef {
  @IsString({ message: 'id must be a string' })
  @MaxLength(64, { message: 'id must be a deal field id' })
  id: string;
}

/** One deal field value on write: `{ deal_field: { id }, value }` (value null clears it). */
export class DealFieldInput {
  @FieldReference(() => DealFieldRef)
  deal_field: DealFieldRef;

  /** Checked against the field's type in crm-core. */
  @Allow()
  value: unknown;
}

/** A deal item on write; an `id` of one of the deal's items keeps (and updates) that item. */
export class DealItemInput {
  @IsOptional()
  @IsString({ message: 'id must be a string' })
  @MaxLength(64, { message: 'id must be a deal item id' })
  id?: string;

  @Trim()
  @IsString({ message: 'name must be a string' })
  @IsNotEmpty({ message: 'name is required' })
  @MaxLength(200, { message: 'name must be at most 200 characters' })
  name: string;

  @ValidateIf(present('description'))
  @IsString({ message: 'description must be a string' })
  @MaxLength(MAX_TEXT, {
    message: `description must be at most ${MAX_TEXT} characters`,
  })
  description?: string | null;

  @ValidateIf(present('cost'))
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('cost') })
  @Min(0, { message: MONEY('cost') })
  @Max(MAX_MONEY, { message: MONEY('cost') })
  cost?: number | null;

  @ValidateIf(present('price'))
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('price') })
  @Min(0, { message: MONEY('price') })
  @Max(MAX_MONEY, { message: MONEY('price') })
  price?: number | null;

  @ValidateIf(present('qty'))
  @IsInt({ message: 'qty must be an integer of at least 0' })
  @Min(0, { message: 'qty must be an integer of at least 0' })
  @Max(1_000_000, { message: 'qty must be at most 1000000' })
  qty?: number | null;

  @ValidateIf(present('predefined_item_id'))
  @IsString({ message: 'predefined_item_id must be a string' })
  @MaxLength(24, {
    message: 'predefined_item_id must be at most 24 characters',
  })
  predefined_item_id?: string | null;
}

/** The writable fields of a deal, all optional here; create and replace add their own rules. */
export class DealFieldsRequest {
  @ValidateIf(present('owner_id'))
  @IsString({ message: 'owner_id must be a user id' })
  @MaxLength(64, { message: 'owner_id must be a user id' })
  owner_id?: string | null;

  @ValidateIf(present('pipeline_id'))
  @IsString({ message: 'pipeline_id must be a pipeline id' })
  @MaxLength(64, { message: 'pipeline_id must be a pipeline id' })
  pipeline_id?: string | null;

  @ValidateIf(present('sales_pipeline_id'))
  @IsString({ message: 'sales_pipeline_id must be a pipeline id' })
  @MaxLength(64, { message: 'sales_pipeline_id must be a pipeline id' })
  sales_pipeline_id?: string | null;

  /** Truncated to 60 characters (spec). */
  @ValidateIf(present('name'))
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().slice(0, DEAL_NAME_LENGTH) : value))
  @IsString({ message: 'name must be a string' })
  @IsNotEmpty({ message: 'name must not be empty' })
  name?: string;

  /** Markup `[b]..[/b]`, `[i]..[/i]` is stored exactly as sent. */
  @ValidateIf(present('text'))
  @IsString({ message: 'text must be a string' })
  @MaxLength(MAX_TEXT, {
    message: `text must be at most ${MAX_TEXT} characters`,
  })
  text?: string | null;

  /** 0 < stage < 100 for pending deals (checked in crm-core, where the resulting status is known). */
  @ValidateIf(present('stage'))
  @IsInt({
    message: 'stage must be an integer greater than 0 and less than 100',
  })
  stage?: number | null;

  @ValidateIf(present('status'))
  @Lower()
  @IsIn(DEAL_STATUSES, { message: 'status must be one of: pending, won, lost' })
  status?: DealStatus | null;

  @ValidateIf(present('expected_close_date'))
  @IsPlainDate()
  expected_close_date?: string | null;

  @ValidateIf(present('close_date'))
  @IsPlainDate()
  close_date?: string | null;

  @ValidateIf(present('date'))
  @IsPlainDate()
  date?: string | null;

  @ValidateIf(present('amount'))
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('amount') })
  @Min(0, { message: MONEY('amount') })
  @Max(MAX_MONEY, { message: MONEY('amount') })
  amount?: number | null;

  @ValidateIf(present('months'))
  @IsInt({ message: 'months must be an integer from 1 to 1200' })
  @Min(1, { message: 'months must be an integer from 1 to 1200' })
  @Max(1200, { message: 'months must be an integer from 1 to 1200' })
  months?: number | null;

  @ValidateIf(present('cost'))
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('cost') })
  @Min(0, { message: MONEY('cost') })
  @Max(MAX_MONEY, { message: MONEY('cost') })
  cost?: number | null;

  @ValidateIf(present('commission_base'))
  @IsIn(COMMISSION_BASES, {
    message: 'commission_base must be one of: amount, margin (or empty)',
  })
  commission_base?: string | null;

  @ValidateIf(present('commission_type'))
  @IsIn(COMMISSION_TYPES, {
    message: 'commission_type must be one of: none, percentage, absolute (or empty)',
  })
  commission_type?: string | null;

  @ValidateIf(present('commission'))
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: MONEY('commission') })
  @Min(0, { message: MONEY('commission') })
  @Max(MAX_MONEY, { message: MONEY('commission') })
  commission?: number | null;

  @ValidateIf(present('commission_percentage'))
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'commission_percentage must be a number from 0 to 100' })
  @Min(0, { message: 'commission_percentage must be a number from 0 to 100' })
  @Max(100, { message: 'commission_percentage must be a number from 0 to 100' })
  commission_percentage?: number | null;

  @ValidateIf(present('reason_lost_id'))
  @IsString({ message: 'reason_lost_id must be a string' })
  @MaxLength(24, { message: 'reason_lost_id must be at most 24 characters' })
  reason_lost_id?: string | null;

  /** Admins only (a non-admin may send the current values back unchanged). */
  @ValidateIf(present('deal_fields'))
  @IsArray({
    message: 'deal_fields must be an array of { deal_field: { id }, value }',
  })
  @ArrayMaxSize(500, { message: 'deal_fields may hold at most 500 entries' })
  @ValidateNested({ each: true })
  @Type(() => DealFieldInput)
  deal_fields?: DealFieldInput[] | null;

  /** Other contacts of the account linked to the deal (returned as linked_contacts). */
  @ValidateIf(present('linked_contact_ids'))
  @IsArray({ message: 'linked_contact_ids must be an array of contact ids' })
  @ArrayMaxSize(100, { message: 'linked_contact_ids may hold at most 100 ids' })
  @IsString({
    each: true,
    message: 'linked_contact_ids must be an array of contact ids',
  })
  @MaxLength(64, {
    each: true,
    message: 'linked_contact_ids must be an array of contact ids',
  })
  linked_contact_ids?: string[] | null;

  @ValidateIf(present('deal_items'))
  @IsArray({ message: 'deal_items must be an array of deal items' })
  @ArrayMaxSize(200, { message: 'deal_items may hold at most 200 items' })
  @ValidateNested({ each: true })
  @Type(() => DealItemInput)
  deal_items?: DealItemInput[] | null;

  @ValidateIf(present('attachments'))
  @IsArray({ message: 'attachments must be an array of attachments' })
  @ArrayMaxSize(100, { message: 'attachments may hold at most 100 entries' })
  @ValidateNested({ each: true })
  @Type(() => AttachmentInput)
  attachments?: AttachmentInput[] | null;
}

/** POST /contacts/{contact_id}/deals (and POST /deals with contact_id in the body); name is required. */
export class CreateDealRequest extends DealFieldsRequest {
  @RequiredContactId()
  contact_id: string;

  /** Required; trimmed and truncated to 60 characters. */
  // Its rules are applied below the class: a `declare`d field takes no decorators.
  declare name: string;
}

stack(
  ValidateIf(ALWAYS_VALIDATE),
  IsDefined({ message: 'name is required' }),
  IsString({ message: 'name must be a string' }),
  IsNotEmpty({ message: 'name must not be empty' }),
)(CreateDealRequest.prototype, 'name');

export class DealIdRequest {
  /** Any string: an id that names no deal of the caller's account is 404, not 400. */
  @IsString()
  deal_id: string;
}

/** GET /deals/{deal_id}: `include_history=true` adds `previous_pipeline_stages`, as on the list. */
export class GetDealRequest extends DealIdRequest {
  /** `true`: the deal also carries `previous_pipeline_stages` (the stage it last had in each pipeline it left). */
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'include_history must be true or false' })
  include_history?: boolean;
}

/** PATCH /deals/{id} (and PUT with partial=true): only the fields sent change. */
export class PatchDealRequest extends DealFieldsRequest {
  @IsString()
  deal_id: string;

  /** Moves the deal to another primary contact of the account. */
  @ValidateIf(present('contact_id'))
  @IsString({ message: 'contact_id must be a contact id' })
  @MaxLength(64, { message: 'contact_id must be a contact id' })
  contact_id?: string | null;
}

/** PUT /deals/{id}: replaces the writable fields (name required); `partial=true` acts as PATCH. */
export class UpdateDealRequest extends PatchDealRequest {
  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'partial must be true or false' })
  partial?: boolean;
}

/** GET /deals (and GET /contacts/{contact_id}/deals). */
export class ListDealsRequest extends RecordListRequest {
  @IsOptional()
  @IsString({ message: 'name must be a string' })
  @MaxLength(200, { message: 'name must be at most 200 characters' })
  name?: string;

  @IsOptional()
  @IsString({ message: 'search must be a string' })
  @MaxLength(200, { message: 'search must be at most 200 characters' })
  search?: string;

  @IsOptional()
  @Lower()
  @IsIn(DEAL_LIST_STATUSES, {
    message: 'status must be one of: pending, won, lost, closed',
  })
  status?: (typeof DEAL_LIST_STATUSES)[number];

  @IsOptional()
  @ToInteger()
  @IsInt({
    message: 'stage must be an integer greater than 0 and less than 100',
  })
  @Min(1, {
    message: 'stage must be an integer greater than 0 and less than 100',
  })
  @Max(99, {
    message: 'stage must be an integer greater than 0 and less than 100',
  })
  stage?: number;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  pipeline_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  sales_pipeline_id?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  owner_id?: string;

  // contact_id and company_id (inherited), tag, filter_id: only one at a time.

  @IsOptional()
  @IsString({ message: 'tag must be a string' })
  @MaxLength(100, { message: 'tag must be at most 100 characters' })
  tag?: string;

  @IsOptional()
  @IsString()
  @MaxLength(64)
  filter_id?: string;

  /** `contacts(all)`: every entry also gets `contacts` (primary, then linked). */
  @IsOptional()
  @IsString({
    message: 'fields must be a list of <resource>(all); supported: contacts',
  })
  @MaxLength(200, {
    message: 'fields must be a list of <resource>(all); supported: contacts',
  })
  fields?: string;

  @IsOptional()
  @ToBoolean()
  @IsBoolean({ message: 'include_history must be true or false' })
  include_history?: boolean;

  @DateFilterParam(DEAL_DATE_FILTERS)
  override date_filter?: (typeof DEAL_DATE_FILTERS)[number] = undefined;

  @IsOptional()
  @LowerKey()
  @IsIn(DEAL_SORT_KEYS, {
    message: `sort_by must be one of: ${DEAL_SORT_KEYS.join(', ')}`,
  })
  sort_by?: (typeof DEAL_SORT_KEYS)[number];
}
