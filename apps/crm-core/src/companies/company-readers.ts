import type { CompanyAddressDto, CompanyDto, CompanyFieldValueDto, DealEntryDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { fieldDefinitions, fieldValues, loadContactWrappers, type FieldDefinitionRow } from '../contacts/contact-readers';
import { pendingDealsOfCompanyIds } from '../contacts/record-arrays';
import { preparedQuery } from '../contacts/prepared-query';

interface CompanyRow {
  id: string;
  name: string;
  description: string;
  phone: string;
  url: string;
  photo_url: string;
  image: string;
  address: Partial<CompanyAddressDto>;
  company_fields: Record<string, unknown>;
  syncing_status: boolean;
  synced_status_id: string | null;
  syncing_tags: boolean;
  synced_tags: string[];
  contacts_count: number;
  won_deals_count: number;
  pending_deals_count: number;
  total_won_amount: number;
  total_pending_amount: number;
  created_at: Date;
  modified_at: Date;
}

/** Counters are aggregated on read over the company's non-deleted contacts and their deals. */
const COMPANY_SELECT = `
  SELECT co.id, co.name, co.description, co.phone, co.url, co.photo_url, co.image, co.address, co.company_fields,
         co.syncing_status, co.synced_status_id, co.syncing_tags, co.synced_tags, co.created_at, co.modified_at,
         (SELECT count(*)::int FROM crm.contacts c WHERE c.company_id = co.id AND c.deleted_at IS NULL) AS contacts_count,
         dd.won_deals_count, dd.pending_deals_count, dd.total_won_amount, dd.total_pending_amount
  FROM crm.companies co
  LEFT JOIN LATERAL (
    SELECT count(*) FILTER (WHERE d.status = 'won')::int AS won_deals_count,
           count(*) FILTER (WHERE d.status = 'pending')::int AS pending_deals_count,
           coalesce(sum(d.amount * d.months) FILTER (WHERE d.status = 'won'), 0)::float8 AS total_won_amount,
           coalesce(sum(d.amount * d.months) FILTER (WHERE d.status = 'pending'), 0)::float8 AS total_pending_amount
    FROM crm.contacts c JOIN crm.deals d ON d.contact_id = c.id
    WHERE c.company_id = co.id AND c.deleted_at IS NULL
  ) dd ON true`;

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

function toCompanyDto(row: CompanyRow, definitions: FieldDefinitionRow[]): CompanyDto {
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
    synced_status_id: row.synced_status_id,
    syncing_tags: row.syncing_tags,
    synced_tags: row.synced_tags,
    contacts_count: row.contacts_count,
    won_deals_count: row.won_deals_count,
    pending_deals_count: row.pending_deals_count,
    total_won_amount: Number(row.total_won_amount),
    total_pending_amount: Number(row.total_pending_amount),
    pending_deals: [],
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}

/**
 * Companies of the account by id, with counters and pending deals; with `withContacts` also
 * `contacts` (wrappers of its non-deleted contacts by name, seen by `viewerId`). Batched: the
 * cost does not grow with the number of companies beyond one query per part.
 */
export async function loadCompanyDtos(
  m: EntityManager,
  accountId: string,
  ids: string[],
  options: CompanyLoadOptions,
): Promise<Map<string, CompanyDto>> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return new Map();
  return loadCompanies(m, accountId, wanted, options);
}

export interface CompanyLoadOptions {
  withContacts: boolean;
  viewerId: string | null;
}

const COMPANIES_BY_ID = `${COMPANY_SELECT} WHERE co.account_id = $1 AND co.id = ANY($2::varchar[])`;

async function loadCompanies(
  m: EntityManager,
  accountId: string,
  ids: string[],
  options: CompanyLoadOptions,
): Promise<Map<string, CompanyDto>> {
  const out = new Map<string, CompanyDto>();
  const rows = await preparedQuery<CompanyRow>(m, COMPANIES_BY_ID, [accountId, ids]);
  if (rows.length === 0) return out;
  const needsFields = rows.some((row) => row.company_fields && Object.keys(row.company_fields).length > 0);
  // Deals are read only for companies that have pending ones (the counter is already known).
  const withPending = rows.filter((r) => r.pending_deals_count > 0).map((r) => r.id);
  const [definitions, pending] = await Promise.all([
    needsFields ? fieldDefinitions(m, accountId, 'company_fields') : Promise.resolve([]),
    withPending.length > 0 ? pendingDealsOfCompanyIds(m, accountId, withPending) : Promise.resolve(new Map<string, DealEntryDto[]>()),
  ]);
  for (const row of rows) {
    const dto = toCompanyDto(row, definitions);
    dto.pending_deals = pending.get(row.id) ?? [];
    out.set(row.id, dto);
  }
  if (options.withContacts) {
    const members: Array<{ id: string; company_id: string }> = await m.query(
      'SELECT id, company_id FROM crm.contacts WHERE account_id = $1 AND company_id = ANY($2::varchar[]) AND deleted_at IS NULL ORDER BY sort_name, id',
      [accountId, [...out.keys()]],
    );
    const wrappers = await loadContactWrappers(
      m,
      accountId,
      members.map((c) => c.id),
      options.viewerId,
    );
    for (const company of out.values()) company.contacts = [];
    for (const wrapper of wrappers) out.get(wrapper.contact.company_id!)?.contacts?.push(wrapper);
  }
  return out;
}
