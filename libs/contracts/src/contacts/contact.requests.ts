import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsDefined,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  Length,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { ADDRESS_PART_MAX, CompanyAddressInput } from '../addresses/address.requests';
import { DEFAULT_PER_PAGE, MAX_PAGE, MAX_PAGE_MESSAGE, MAX_PER_PAGE, PagingRequest } from '../paging/paging.request';
import {
  FieldReference,
  OptionalFlag,
  OptionalId,
  OptionalIdOrEmpty,
  OptionalTrimmedString,
  SortOrderParam,
} from '../validation/field-rules';
import { lower, LowerKey, toInteger, toTimeString, trim, trimEach } from '../validation/transforms';
import { ID_PATTERN, IsTimeBound, NotWith } from '../validation/validators';

export const CONTACT_SORT_KEYS = ['created_at', 'modified_at', 'first_name', 'last_name', 'company_name', 'name'] as const;

export type ContactSortKey = (typeof CONTACT_SORT_KEYS)[number];

export const SORT_ORDERS = ['asc', 'desc'] as const;

export type SortOrder = (typeof SORT_ORDERS)[number];

export const DATE_FILTERS = ['created_at', 'modified_at'] as const;

export type DateFilter = (typeof DATE_FILTERS)[number];

/** Limits of contact input (the spec shows none beyond the deal name). */
export const CONTACT_LIMITS = {
  name: 200,
  title: 50,
  url: 2000,
  background: 100_000,
  typedValues: 50,
  typedValue: 500,
  type: 50,
  addresses: 20,
  addressPart: ADDRESS_PART_MAX,
  tags: 100,
  tagName: 100,
  customFields: 500,
  comment: 2000,
  search: 200,
  /** DELETE /contacts/delete and POST /contacts/undelete (decisions.md). */
  bulkIds: 100,
} as const;

const ID_MESSAGE = (name: string) => `${name} must be a 24-character hexadecimal id`;

const FIELDS_PATTERN =
  /^\s*(deals|notes|calls|meetings|pinned_attachments)\(all\)\s*(,\s*(deals|notes|calls|meetings|pinned_attachments)\(all\)\s*)*$/;

/**
 * Filters shared by GET /contacts and the cascade: the spec's table, the common time filters and
 * their mutual-exclusion rules (a forbidden combination names every parameter involved).
 */
export class ContactFilterRequest {
  /** Include contacts owned by other users (default: only the caller's). */
  @OptionalFlag()
  team?: boolean;

  /** Contact name, company name or phone. */
  @OptionalTrimmedString(CONTACT_LIMITS.search)
  search?: string;

  @OptionalTrimmedString(CONTACT_LIMITS.typedValue)
  phone?: string;

  @OptionalTrimmedString(CONTACT_LIMITS.typedValue)
  url?: string;

  @OptionalTrimmedString(CONTACT_LIMITS.typedValue)
  email?: string;

  /** Only contacts the caller has in the action stream (a next action assigned to the caller). */
  @OptionalFlag()
  action_stream?: boolean;

  /** Owned by the caller and having open actions for any user. */
  @OptionalFlag()
  @NotWith(['has_actions_for_me'])
  has_actions?: boolean;

  /** Owned by the caller and having open actions for the caller. */
  @OptionalFlag()
  @NotWith(['has_actions'])
  has_actions_for_me?: boolean;

  /** Owned by the caller and having open actions dated today (UTC) for the caller. */
  @OptionalFlag()
  has_actions_today?: boolean;

  @OptionalFlag()
  pending_deal?: boolean;

  @OptionalFlag()
  starred?: boolean;

  /** The caller has a next action of status waiting. */
  @OptionalFlag()
  waiting?: boolean;

  /** a-z (any case), or 1 for names that do not start with a letter. */
  @IsOptional()
  @Transform(lower)
  @Matches(/^[a-z1]$/, { message: 'letter must be one letter a-z, or 1' })
  letter?: string;

  /** Used together with custom_field_value: either one alone is 400 naming the missing one. */
  @ValidateIf((o: ContactFilterRequest) => o.custom_field_id != null || o.custom_field_value != null)
  @IsDefined({ message: 'custom_field_id is required with custom_field_value' })
  @Matches(ID_PATTERN, { message: ID_MESSAGE('custom_field_id') })
  custom_field_id?: string;

  @ValidateIf((o: ContactFilterRequest) => o.custom_field_id != null || o.custom_field_value != null)
  @IsDefined({ message: 'custom_field_value is required with custom_field_id' })
  @IsString({ message: 'custom_field_value must be a string' })
  @MaxLength(10_000, { message: 'custom_field_value must be at most 10000 characters' })
  custom_field_value?: string;

  /** Lead source text (any letter case). */
  @OptionalTrimmedString(100)
  @NotWith(['lead_source_id'])
  lead_source?: string;

  @OptionalId()
  @NotWith(['lead_source'])
  lead_source_id?: string;

  @OptionalId()
  status_id?: string;

  @OptionalId()
  owner_id?: string;

  /** Contacts not linked with this company: neither its own contacts nor those linked to it (linked_contacts). */
  @OptionalId()
  @NotWith(['company_id'])
  not_linked_with?: string;

  @OptionalId()
  @NotWith(['not_linked_with', 'tag', 'filter_id'])
  company_id?: string;

  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'tag must be a string' })
  @Length(1, CONTACT_LIMITS.tagName, { message: `tag must be 1 to ${CONTACT_LIMITS.tagName} characters` })
  @NotWith(['company_id', 'filter_id'])
  tag?: string;

  @OptionalId()
  @NotWith(['company_id', 'tag'])
  filter_id?: string;

  /** Field of since/until: created_at (default) or modified_at (`updated_at` is read as modified_at). */
  @IsOptional()
  @LowerKey()
  @IsIn(DATE_FILTERS, { message: `date_filter must be one of: ${DATE_FILTERS.join(', ')}` })
  @NotWith(['modified_since', 'unmodified_since'])
  date_filter?: DateFilter;

  @IsOptional()
  @Transform(toTimeString)
  @IsTimeBound()
  since?: string;

  @IsOptional()
  @Transform(toTimeString)
  @IsTimeBound()
  until?: string;

  @IsOptional()
  @Transform(toTimeString)
  @IsTimeBound()
  @NotWith(['date_filter'])
  modified_since?: string;

  @IsOptional()
  @Transform(toTimeString)
  @IsTimeBound()
  @NotWith(['date_filter'])
  unmodified_since?: string;
}

/** GET /contacts: the filters, `fields`, sort and paging. */
export class ListContactsRequest extends ContactFilterRequest {
  /** `deals(all),notes(all),calls(all),meetings(all),pinned_attachments(all)`, any subset. */
  @IsOptional()
  @IsString({ message: 'fields must be a string' })
  @Matches(FIELDS_PATTERN, {
    message: 'fields must list <resource>(all) entries separated by commas; resources: deals, notes, calls, meetings, pinned_attachments',
  })
  fields?: string;

  @IsOptional()
  @LowerKey()
  @IsIn(CONTACT_SORT_KEYS, { message: `sort_by must be one of: ${CONTACT_SORT_KEYS.join(', ')}` })
  sort_by?: ContactSortKey;

  @SortOrderParam()
  order?: SortOrder;

  /** Default 1 (an absent value takes the default; null is refused like any non-integer). */
  @ValidateIf((_: unknown, value: unknown) => value !== undefined)
  @Transform(toInteger)
  @IsInt({ message: 'page must be an integer of at least 1' })
  @Min(1, { message: 'page must be an integer of at least 1' })
  @Max(MAX_PAGE, { message: MAX_PAGE_MESSAGE })
  page: number = 1;

  /** Default 10; above 100 clamped to 100. */
  @ValidateIf((_: unknown, value: unknown) => value !== undefined)
  @Transform(toInteger)
  @Transform(({ value }) => (typeof value === 'number' && value > MAX_PER_PAGE ? MAX_PER_PAGE : value))
  @IsInt({ message: 'per_page must be an integer of at least 1' })
  @Min(1, { message: 'per_page must be an integer of at least 1' })
  per_page: number = DEFAULT_PER_PAGE;
}

/** GET /contacts/cascade and /contacts/cascade/{last_id}: the filters of GET /contacts, keyset-paged by name. */
export class CascadeContactsRequest extends ContactFilterRequest {
  /** The id of the contact last received; absent or `0` for the first batch. */
  @IsOptional()
  @IsString({ message: 'last_id must be a string' })
  last_id?: string;
}

export class ContactIdRequest {
  /** Any string: an id that names no contact of the caller's account is 404, not 400. */
  @IsString({ message: 'contact_id must be a string' })
  contact_id: string;
}

/** DELETE /contacts/{contact_id}: `undo=true` restores the contact deleted within 30 days (as POST /contacts/undelete). */
export class DeleteContactRequest extends ContactIdRequest {
  /** `true`: restore the contact deleted within the last 30 days instead of deleting it. */
  @OptionalFlag()
  undo?: boolean;
}

/** `{ type, value }` of urls, phones and emails. */
export class TypedValueInput {
  /** e.g. work, mobile, home, other (free text, lower-cased); default other. */
  @IsOptional()
  @Transform(lower)
  @IsString({ message: 'type must be a string' })
  @MaxLength(CONTACT_LIMITS.type, { message: `type must be at most ${CONTACT_LIMITS.type} characters` })
  type?: string;

  @Transform(trim)
  @IsString({ message: 'value must be a string' })
  @IsNotEmpty({ message: 'value must not be empty' })
  @MaxLength(CONTACT_LIMITS.typedValue, { message: `value must be at most ${CONTACT_LIMITS.typedValue} characters` })
  value: string;
}

export class EmailInput extends TypedValueInput {
  @Transform(trim)
  @IsString({ message: 'value must be a string' })
  @Matches(/^[^\s@]+@[^\s@]+$/, { message: 'value must be an email address' })
  @MaxLength(CONTACT_LIMITS.typedValue, { message: `value must be at most ${CONTACT_LIMITS.typedValue} characters` })
  declare value: string;
}

/** An entry of a contact's address_list: a company's address and a type. */
export class AddressInput extends CompanyAddressInput {
  @IsOptional()
  @Transform(lower)
  @IsString({ message: 'type must be a string' })
  @MaxLength(CONTACT_LIMITS.type, { message: `type must be at most ${CONTACT_LIMITS.type} characters` })
  type?: string;
}

export class FieldIdInput {
  @IsString({ message: 'id must be a string' })
  id: string;
}

/** `{ custom_field: { id }, value }`: the value is checked against the field's type by crm-core. */
export class CustomFieldValueInput {
  @FieldReference(() => FieldIdInput)
  custom_field: FieldIdInput;

  @Allow()
  value?: unknown;
}

/**
 * Writable contact fields. Absent (undefined) means "not sent"; null clears a field. Whether
 * absent fields are cleared (PUT) or kept (PATCH, PUT `partial=true`) is the service's call.
 */
export class ContactFieldsInput {
  @OptionalTrimmedString(CONTACT_LIMITS.title)
  title?: string | null;

  @OptionalTrimmedString(CONTACT_LIMITS.name)
  first_name?: string | null;

  @OptionalTrimmedString(CONTACT_LIMITS.name)
  last_name?: string | null;

  @OptionalTrimmedString(CONTACT_LIMITS.name)
  job_title?: string | null;

  @OptionalFlag()
  starred?: boolean | null;

  @OptionalTrimmedString(CONTACT_LIMITS.url)
  photo_url?: string | null;

  /** Creates or matches (any letter case) the account's company of that name; "" or null: none. */
  @OptionalTrimmedString(CONTACT_LIMITS.name)
  company_name?: string | null;

  /** An existing company of the account (wins over company_name). */
  @OptionalId()
  company_id?: string | null;

  @IsOptional()
  @IsArray({ message: 'urls must be an array of { type, value }' })
  @ArrayMaxSize(CONTACT_LIMITS.typedValues, { message: `urls may hold at most ${CONTACT_LIMITS.typedValues} entries` })
  @ValidateNested({ each: true })
  @Type(() => TypedValueInput)
  urls?: TypedValueInput[] | null;

  @IsOptional()
  @IsArray({ message: 'phones must be an array of { type, value }' })
  @ArrayMaxSize(CONTACT_LIMITS.typedValues, { message: `phones may hold at most ${CONTACT_LIMITS.typedValues} entries` })
  @ValidateNested({ each: true })
  @Type(() => TypedValueInput)
  phones?: TypedValueInput[] | null;

  @IsOptional()
  @IsArray({ message: 'emails must be an array of { type, value }' })
  @ArrayMaxSize(CONTACT_LIMITS.typedValues, { message: `emails may hold at most ${CONTACT_LIMITS.typedValues} entries` })
  @ValidateNested({ each: true })
  @Type(() => EmailInput)
  emails?: EmailInput[] | null;

  @IsOptional()
  @IsArray({ message: 'address_list must be an array of addresses' })
  @ArrayMaxSize(CONTACT_LIMITS.addresses, { message: `address_list may hold at most ${CONTACT_LIMITS.addresses} entries` })
  @ValidateNested({ each: true })
  @Type(() => AddressInput)
  address_list?: AddressInput[] | null;

  /** One of the account's statuses (default: the lead status). */
  @OptionalId()
  status_id?: string | null;

  /** Tag names; a new name creates the tag, an existing one (any letter case) is used as spelled there. */
  @IsOptional()
  @IsArray({ message: 'tags must be an array of tag names' })
  @ArrayMaxSize(CONTACT_LIMITS.tags, { message: `tags may hold at most ${CONTACT_LIMITS.tags} entries` })
  @Transform(trimEach)
  @IsString({ each: true, message: 'tags must be an array of tag names' })
  @Length(1, CONTACT_LIMITS.tagName, { each: true, message: `each tag must be 1 to ${CONTACT_LIMITS.tagName} characters` })
  tags?: string[] | null;

  @OptionalIdOrEmpty()
  lead_source_id?: string | null;

  @IsOptional()
  @IsString({ message: 'background must be a string' })
  @MaxLength(CONTACT_LIMITS.background, { message: `background must be at most ${CONTACT_LIMITS.background} characters` })
  background?: string | null;

  /** A user of the account (default: the caller). */
  @OptionalId()
  owner_id?: string | null;

  @IsOptional()
  @IsArray({ message: 'custom_fields must be an array of { custom_field: { id }, value }' })
  @ArrayMaxSize(CONTACT_LIMITS.customFields, { message: `custom_fields may hold at most ${CONTACT_LIMITS.customFields} entries` })
  @ValidateNested({ each: true })
  @Type(() => CustomFieldValueInput)
  custom_fields?: CustomFieldValueInput[] | null;
}

/** POST /contacts: last_name or company_name is required (checked with the rest by crm-core). */
export class CreateContactRequest extends ContactFieldsInput {}

/** PUT /contacts/{id}: replaces the writable fields; `partial=true` changes only the fields sent. */
export class UpdateContactRequest extends ContactFieldsInput {
  @IsString({ message: 'contact_id must be a string' })
  contact_id: string;

  @OptionalFlag()
  partial?: boolean;
}

/** PATCH /contacts/{id}: changes only the fields sent. */
export class PatchContactRequest extends ContactFieldsInput {
  @IsString({ message: 'contact_id must be a string' })
  contact_id: string;
}

const IDS_PATTERN = /^\s*[0-9a-fA-F]{24}\s*(,\s*[0-9a-fA-F]{24}\s*)*$/;

const IDS_MESSAGE = `ids must be 1 to ${CONTACT_LIMITS.bulkIds} contact ids separated by commas`;

/** DELETE /contacts/delete?ids= and POST /contacts/undelete?ids= (a JSON array is accepted too). */
export class ContactIdsRequest {
  @Transform(({ value }) => (Array.isArray(value) && value.every((v) => typeof v === 'string') ? value.join(',') : value))
  @IsDefined({ message: IDS_MESSAGE })
  @IsString({ message: IDS_MESSAGE })
  @Matches(IDS_PATTERN, { message: IDS_MESSAGE })
  ids: string;
}

export class ChangeStatusRequest extends ContactIdRequest {
  /** Any string: a status that is not the account's is 404. */
  @IsString({ message: 'status_id must be a string' })
  status_id: string;
}

export class ContactTagRequest extends ContactIdRequest {
  @Transform(trim)
  @IsString({ message: 'tag_name must be a string' })
  @Length(1, CONTACT_LIMITS.tagName, { message: `tag_name must be 1 to ${CONTACT_LIMITS.tagName} characters` })
  tag_name: string;
}

export class CloseSalesCycleRequest extends ContactIdRequest {
  @OptionalTrimmedString(CONTACT_LIMITS.comment)
  comment?: string | null;
}

/** PUT /contacts/{id}/change_owner/{owner_id}: a user of the account (else 404). */
export class ChangeOwnerRequest extends ContactIdRequest {
  @IsString({ message: 'owner_id must be a string' })
  owner_id: string;
}

/**
 * PUT /contacts/{id}/split: the contact leaves its company and, with `company_name`, joins the
 * account's company of that name (any letter case) or a new one.
 */
export class SplitContactRequest extends ContactIdRequest {
  @OptionalTrimmedString(CONTACT_LIMITS.name)
  company_name?: string | null;
}

/**
 * GET /action_stream: the contacts in the caller's action stream, most urgent next action first,
 * with the filters of GET /contacts (`team` defaults to true here: the stream is the caller's
 * actions, whoever owns the contact).
 */
export class ActionStreamRequest extends ListContactsRequest {}

/** GET /team_stream: the account's action stream (every assignee), or one user's with `user_id`. */
export class TeamStreamRequest extends ListContactsRequest {
  @OptionalId()
  user_id?: string;
}

/** GET /contacts/filters/{filter_id}: the contacts a saved filter matches, in action stream order. */
export class ContactsByFilterRequest extends PagingRequest {
  @IsString()
  filter_id: string;
}

/** Splits the `ids` of a {@link ContactIdsRequest} into distinct lower-case ids. */
export function splitIds(ids: string): string[] {
  return [...new Set(ids.split(',').map((id) => id.trim().toLowerCase()))];
}
