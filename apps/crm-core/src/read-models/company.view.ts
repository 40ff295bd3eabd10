import type { CompanyAddressDto, CompanyDto, CompanyFieldValueDto } from '@crm/contracts';
import type { CompanyRow } from './company.repository';
import type { FieldDefinitionRow } from './fields.repository';
import { isoOf } from '../records/record-common';
import { fieldValues } from './fields.view';

function address(stored: Partial<CompanyAddressDto> | null): CompanyAddressDto {
  const a = stored ?? {};
  return {
    address: a.address ?? '',
    city: a.city ?? '',
    state: a.state ?? '',
    zip_code: a.zip_code ?? '',
    country_code: a.country_code ?? '',
  };
}

/** The API (and webhook) shape of a company, without `contacts`; `pending_deals` is filled by the reader. */
export function toCompanyDto(row: CompanyRow, definitions: FieldDefinitionRow[]): CompanyDto {
  return {
    id: row.id,
    image: row.image,
    name: row.name,
    description: row.description,
    phone: row.phone,
    photo_url: row.photo_url,
    url: row.url,
    address: address(row.address),
    company_fields: fieldValues(row.company_fields ?? {}, definitions, 'company_field') as CompanyFieldValueDto[],
    syncing_status: row.syncing_status,
    synced_status_id: row.synced_status_id ?? '',
    syncing_tags: row.syncing_tags,
    synced_tags: row.synced_tags,
    contacts_count: row.contacts_count,
    won_deals_count: row.won_deals_count,
    pending_deals_count: row.pending_deals_count,
    total_won_amount: Number(row.total_won_amount),
    total_pending_amount: Number(row.total_pending_amount),
    pending_deals: [],
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}
