import { Transform } from 'class-transformer';
import { IsOptional, Matches } from 'class-validator';
import { OptionalTrimmedString } from '../validation/field-rules';

/** Longest part of a postal address (the street lines). */
export const ADDRESS_PART_MAX = 500;

/** A company's address; each entry of a contact's address_list adds a type ({@link AddressInput}). */
export class CompanyAddressInput {
  @OptionalTrimmedString(ADDRESS_PART_MAX)
  address?: string;

  @OptionalTrimmedString(200)
  city?: string;

  @OptionalTrimmedString(200)
  state?: string;

  @OptionalTrimmedString(50)
  zip_code?: string;

  /** ISO 3166-1 alpha-2 (any case), or empty. */
  @IsOptional()
  @Transform(({ value }) => (typeof value === 'string' ? value.trim().toUpperCase() : value))
  @Matches(/^([A-Z]{2})?$/, { message: 'country_code must be a two-letter country code' })
  country_code?: string;
}
