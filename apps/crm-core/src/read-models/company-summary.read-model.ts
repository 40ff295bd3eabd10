import type { CompanyDto, DealEntryDto } from '@crm/contracts';
import type { Db } from '../common/sql';
import { companyRows } from './company.repository';
import { toCompanyDto } from './company.view';
import { fieldDefinitions } from './fields.repository';
import { pendingDealsOfCompanies } from './records.read-model';

/**
 * Companies of the account by id without their `contacts` (as a contact wrapper shows its
 * company): stored counters, company fields and pending deals (read only for companies whose
 * counter says they have some, at most COMPANY_PENDING_DEALS_CAP each). Batched: one query per part.
 */
export async function loadCompanySummaries(db: Db, accountId: string, ids: readonly string[]): Promise<Map<string, CompanyDto>> {
  const out = new Map<string, CompanyDto>();
  if (ids.length === 0) return out;
  const rows = await companyRows(db, accountId, ids);
  if (rows.length === 0) return out;
  const needsFields = rows.some((row) => row.company_fields && Object.keys(row.company_fields).length > 0);
  const withPending = rows.filter((r) => r.pending_deals_count > 0).map((r) => r.id);
  const [definitions, pending] = await Promise.all([
    needsFields ? fieldDefinitions(db, accountId, 'company_fields') : Promise.resolve([]),
    withPending.length > 0 ? pendingDealsOfCompanies(db, accountId, withPending) : Promise.resolve(new Map<string, DealEntryDto[]>()),
  ]);
  for (const row of rows) {
    const dto = toCompanyDto(row, definitions);
    dto.pending_deals = pending.get(row.id) ?? [];
    out.set(row.id, dto);
  }
  return out;
}
