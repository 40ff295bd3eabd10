import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsNotEmpty,
  IsObject,
  IsOptional,
  IsString,
  Length,
  Matches,
  MaxLength,
  ValidateNested,
} from 'class-validator';
import { CompanyAddressInput } from '../addresses/address.requests';
import { CONTACT_LIMITS, CONTACT_SORT_KEYS, ContactSortKey, DateFilter, FieldIdInput, SortOrder } from '../contacts/contact.requests';
import { PagingRequest } from '../paging/paging.request';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { FieldReference, OptionalFlag, OptionalIdOrEmpty, OptionalTrimmedString, SortOrderParam } from '../validation/field-rules';
import { lower, LowerKey, toBoolean, trim, trimEach } from '../validation/transforms';

export const COMPANY_SORT_KEYS = ['name', 'created_at', 'modified_at'] as const;

export type CompanySortKey = (typeof COMPANY_SORT_KEYS)[number];

/** Largest `image` data URI (the request body itself is capped at 1 MiB). */
export const COMPANY_IMAGE_MAX = 900_000;

/** GET /companies: by name (default), with search, name, phone, letter, the common time filters and paging. */
export class ListCompaniesRequest extends TimeFilterRequest {
  declare date_filter?: DateFilter;

  /** Part of the company name (any letter case). */
  @OptionalTrimmedString(CONTACT_LIMITS.search)
  search?: string;

  /** The company of exactly this name (any letter case; names are unique in an account). */
  @OptionalTrimmedString(200)
  name?: string;

  /** Companies whose phone has exactly these digits (spaces, dashes, brackets and `+` are ignored). */
  @OptionalTrimmedString(CONTACT_LIMITS.typedValue)
  phone?: string;

  /** a-z (any case): names that begin with that letter; 1: names that do not begin with a-z. */
  @IsOptional()
  @Transform(lower)
  @Matches(/^[a-z1]$/, { message: 'letter must be one letter a-z, or 1' })
  letter?: string;

  @IsOptional()
  @LowerKey()
  @IsIn(COMPANY_SORT_KEYS, { message: `sort_by must be one of: ${COMPANY_SORT_KEYS.join(', ')}` })
  sort_by?: CompanySortKey;

  @SortOrderParam()
  order?: SortOrder;
}

export class CompanyIdRequest {
  /** Any string: an id that names no company of the caller's account is 404, not 400. */
  @IsString({ message: 'company_id must be a string' })
  company_id: string;
}

/** `{ company_field: { id }, value }`: the value is checked against the field's type by crm-core. */
export class CompanyFieldValueInput {
  @FieldReference(() => FieldIdInput)
  company_field: FieldIdInput;

  @Allow()
  value?: unknown;
}

/** Writable company fields; absent = not sent, null = cleared (PUT clears what is absent). */
export class CompanyFieldsInput {
  /** Renaming renames the company of every contact linked to it (unique per account, any letter case). */
  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'name must be a string' })
  @IsNotEmpty({ message: 'name must not be empty' })
  @MaxLength(CONTACT_LIMITS.name, { message: `name must be at most ${CONTACT_LIMITS.name} characters` })
  name?: string | null;

  @IsOptional()
  @IsString({ message: 'description must be a string' })
  @MaxLength(CONTACT_LIMITS.background, { message: `description must be at most ${CONTACT_LIMITS.background} characters` })
  description?: string | null;

  @OptionalTrimmedString(100)
  phone?: string | null;

  @OptionalTrimmedString(CONTACT_LIMITS.url)
  url?: string | null;

  @OptionalTrimmedString(CONTACT_LIMITS.url)
  photo_url?: string | null;

  /** A data URI of an image (`data:image/png;base64,...`), or "" for none. */
  @IsOptional()
  @IsString({ message: 'image must be a data URI string' })
  @MaxLength(COMPANY_IMAGE_MAX, { message: `image must be at most ${COMPANY_IMAGE_MAX} characters` })
  @Matches(/^(data:image\/(png|jpeg|gif|webp|svg\+xml);base64,[A-Za-z0-9+/]+=*)?$/, {
    message: 'image must be a data URI: data:image/<png|jpeg|gif|webp|svg+xml>;base64,...',
  })
  image?: string | null;

  @IsOptional()
  @IsObject({ message: 'address must be an object { address, city, state, zip_code, country_code }' })
  @ValidateNested()
  @Type(() => CompanyAddressInput)
  address?: CompanyAddressInput | null;

  @IsOptional()
  @IsArray({ message: 'company_fields must be an array of { company_field: { id }, value }' })
  @ArrayMaxSize(CONTACT_LIMITS.customFields, { message: `company_fields may hold at most ${CONTACT_LIMITS.customFields} entries` })
  @ValidateNested({ each: true })
  @Type(() => CompanyFieldValueInput)
  company_fields?: CompanyFieldValueInput[] | null;

  /** With synced_status_id: every contact of the company gets that status. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'syncing_status must be true or false' })
  syncing_status?: boolean | null;

  @OptionalIdOrEmpty()
  synced_status_id?: string | null;

  /** With synced_tags: every contact of the company gets those tags. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'syncing_tags must be true or false' })
  syncing_tags?: boolean | null;

  @IsOptional()
  @IsArray({ message: 'synced_tags must be an array of tag names' })
  @ArrayMaxSize(CONTACT_LIMITS.tags, { message: `synced_tags may hold at most ${CONTACT_LIMITS.tags} entries` })
  @Transform(trimEach)
  @IsString({ each: true, message: 'synced_tags must be an array of tag names' })
  @Length(1, CONTACT_LIMITS.tagName, { each: true, message: `each synced tag must be 1 to ${CONTACT_LIMITS.tagName} characters` })
  synced_tags?: string[] | null;
}

/** PUT /companies/{id}: replaces the writable fields (name required); `partial=true` as PATCH. */
export class UpdateCompanyRequest extends CompanyFieldsInput {
  @IsString({ message: 'company_id must be a string' })
  company_id: string;

  @OptionalFlag()
  partial?: boolean;
}

/** PATCH /companies/{id}: changes only the fields sent. */
export class PatchCompanyRequest extends CompanyFieldsInput {
  @IsString({ message: 'company_id must be a string' })
  company_id: string;
}

/** GET /companies/{id}/linked_contacts: the contacts of other companies linked to this one, by name unless `sort_by` says otherwise. */
export class ListLinkedContactsRequest extends PagingRequest {
  @IsString({ message: 'company_id must be a string' })
  company_id: string;

  @IsOptional()
  @LowerKey()
  @IsIn(CONTACT_SORT_KEYS, { message: `sort_by must be one of: ${CONTACT_SORT_KEYS.join(', ')}` })
  sort_by?: ContactSortKey;

  @SortOrderParam()
  order?: SortOrder;
}

/** POST /companies/{id}/linked_contacts `{ contact_id }` and DELETE /companies/{id}/linked_contacts/{contact_id}. */
export class LinkedContactRequest {
  @IsString({ message: 'company_id must be a string' })
  company_id: string;

  /** A contact of the account (else 404) that is not one of the company's own (400). */
  @IsString({ message: 'contact_id is required' })
  @Length(1, 64, { message: 'contact_id must be a contact id' })
  contact_id: string;
}

/** POST /companies/{id}/synced_status `{ status_id }`: every contact of the company takes that status, now and on joining. */
export class SetSyncedStatusRequest {
  @IsString({ message: 'company_id must be a string' })
  company_id: string;

  /** A status of the account (else 404). */
  @IsString({ message: 'status_id is required' })
  @Length(1, 64, { message: 'status_id must be a status id' })
  status_id: string;
}
