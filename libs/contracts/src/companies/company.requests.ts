import { Transform, Type } from 'class-transformer';
import {
  Allow,
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsDefined,
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
import { CONTACT_LIMITS, DateFilter, FieldIdInput, SORT_ORDERS, SortOrder } from '../contacts/contact.requests';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { lower, toBoolean, trim } from '../validation/transforms';
import { ID_PATTERN } from '../validation/validators';

export const COMPANY_SORT_KEYS = ['name', 'created_at', 'modified_at'] as const;

export type CompanySortKey = (typeof COMPANY_SORT_KEYS)[number];

/** Largest `image` data URI (the request body itself is capped at 1 MiB). */
export const COMPANY_IMAGE_MAX = 900_000;

/** GET /companies: by name (default), with search, the common time filters and paging. */
export class ListCompaniesRequest extends TimeFilterRequest {
  declare date_filter?: DateFilter;

  /** Part of the company name (any letter case). */
  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'search must be a string' })
  @MaxLength(CONTACT_LIMITS.search, { message: `search must be at most ${CONTACT_LIMITS.search} characters` })
  search?: string;

  @IsOptional()
  @Transform(lower)
  @IsIn(COMPANY_SORT_KEYS, { message: `sort_by must be one of: ${COMPANY_SORT_KEYS.join(', ')}` })
  sort_by?: CompanySortKey;

  @IsOptional()
  @Transform(lower)
  @IsIn(SORT_ORDERS, { message: 'order must be asc or desc' })
  order?: SortOrder;
}

export class CompanyIdRequest {
  /** Any string: an id that names no company of the caller's account is 404, not 400. */
  @IsString({ message: 'company_id must be a string' })
  company_id: string;
}

export class CompanyAddressInput {
  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'address must be a string' })
  @MaxLength(CONTACT_LIMITS.addressPart, { message: `address must be at most ${CONTACT_LIMITS.addressPart} characters` })
  address?: string;

  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'city must be a string' })
  @MaxLength(200, { message: 'city must be at most 200 characters' })
  city?: string;

  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'state must be a string' })
  @MaxLength(200, { message: 'state must be at most 200 characters' })
  state?: string;

  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'zip_code must be a string' })
  @MaxLength(50, { message: 'zip_code must be at most 50 characters' })
  zip_code?: string;

  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toUpperCase() : value))
  @Matches(/^([A-Z]{2})?$/, { message: 'country_code must be a two-letter country code' })
  country_code?: string;
}

/** `{ company_field: { id }, value }`: the value is checked against the field's type by crm-core. */
export class CompanyFieldValueInput {
  @IsDefined({ message: 'company_field is required' })
  @IsObject({ message: 'company_field must be an object { id }' })
  @ValidateNested()
  @Type(() => FieldIdInput)
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

  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'phone must be a string' })
  @MaxLength(100, { message: 'phone must be at most 100 characters' })
  phone?: string | null;

  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'url must be a string' })
  @MaxLength(CONTACT_LIMITS.url, { message: `url must be at most ${CONTACT_LIMITS.url} characters` })
  url?: string | null;

  @IsOptional()
  @Transform(trim)
  @IsString({ message: 'photo_url must be a string' })
  @MaxLength(CONTACT_LIMITS.url, { message: `photo_url must be at most ${CONTACT_LIMITS.url} characters` })
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

  @IsOptional()
  @Matches(ID_PATTERN, { message: 'synced_status_id must be a 24-character hexadecimal id' })
  synced_status_id?: string | null;

  /** With synced_tags: every contact of the company gets those tags. */
  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'syncing_tags must be true or false' })
  syncing_tags?: boolean | null;

  @IsOptional()
  @IsArray({ message: 'synced_tags must be an array of tag names' })
  @ArrayMaxSize(CONTACT_LIMITS.tags, { message: `synced_tags may hold at most ${CONTACT_LIMITS.tags} entries` })
  @Transform(({ value }) => (Array.isArray(value) ? value.map((v: unknown) => (typeof v === 'string' ? v.trim() : v)) : value))
  @IsString({ each: true, message: 'synced_tags must be an array of tag names' })
  @Length(1, CONTACT_LIMITS.tagName, { each: true, message: `each synced tag must be 1 to ${CONTACT_LIMITS.tagName} characters` })
  synced_tags?: string[] | null;
}

/** PUT /companies/{id}: replaces the writable fields (name required); `partial=true` as PATCH. */
export class UpdateCompanyRequest extends CompanyFieldsInput {
  @IsString({ message: 'company_id must be a string' })
  company_id: string;

  @IsOptional()
  @Transform(toBoolean)
  @IsBoolean({ message: 'partial must be true or false (or 1 or 0)' })
  partial?: boolean;
}

/** PATCH /companies/{id}: changes only the fields sent. */
export class PatchCompanyRequest extends CompanyFieldsInput {
  @IsString({ message: 'company_id must be a string' })
  company_id: string;
}
