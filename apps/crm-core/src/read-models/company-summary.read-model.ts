import type { CompanyDto, DealEntryDto } from '@crm/contracts';
import type { Db } from '../common/sql';
import { companyRows, type CompanyRow } from './company.repository';
import { toCompanyDto } from './company.view';
import { fieldDefinitions, type FieldDefinitionRow } from './fields.repository';
import { pendingDealsOfCompanies } from './records.read-model';

/**
 * Companies of the account by id without their `contacts` (as a contact wrapper shows its
 * company): stored counters, company fields and pending deals (read only for companies whose
 * counter says they have some, at most COMPANY_PENDING_DEALS_CAP each). Batched: one query per part.
 */
export async function loadCompanySummaries(db: Db, accountId: string, ids: readonly string[]): Promise<Map<string, CompanyDto>> {
  if (ids.length === 0) return new Map();
  const rows = await companyRows(db, accountId, ids);
  const needsFields = rows.some((row) => row.company_fields && Object.keys(row.company_fields).length > 0);
  const [definitions, pending] = await Promise.all([
    needsFields ? fieldDefinitions(db, accountId, 'company_fields') : Promise.resolve([]),
    pendingDealsOf(db, accountId, rows),
  ]);
  return companyDtos(rows, definitions, pending);
}

/**
 * {@link loadCompanySummaries} from rows already read (with the account's company field
 * definitions): only the pending deals are read, for the companies whose counter says they have some.
 */
export async function companySummariesFrom(
  db: Db,
  accountId: string,
  rows: readonly CompanyRow[],
  definitions: FieldDefinitionRow[],
): Promise<Map<string, CompanyDto>> {
  return companyDtos(rows, definitions, await pendingDealsOf(db, accountId, rows));
}

/** The pending deals of the companies among `rows` whose counter says they have some (no query when none has). */
function pendingDealsOf(db: Db, accountId: string, rows: readonly CompanyRow[]): Promise<Map<string, DealEntryDto[]>> {
  const withPending = rows.filter((r) => r.pending_deals_count > 0).map((r) => r.id);
  return withPending.length > 0 ? pendingDealsOfCompanies(db, accountId, withPending) : Promise.resolve(new Map());
}

function companyDtos(
  rows: readonly CompanyRow[],
  definitions: FieldDefinitionRow[],
  pending: ReadonlyMap<string, DealEntryDto[]>,
): Map<string, CompanyDto> {
  const out = new Map<string, CompanyDto>();
  for (const row of rows) {
    const dto = toCompanyDto(row, definitions);
    dto.pending_deals = pending.get(row.id) ?? [];
    out.set(row.id, dto);
  }
  return out;
}
