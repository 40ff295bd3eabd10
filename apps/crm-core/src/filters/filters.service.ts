import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  CreateFilterRequest,
  ErrorName,
  FilterIdRequest,
  ListFiltersRequest,
  PatchFilterRequest,
  UpdateFilterRequest,
  pageInfo,
  parseContract,
  type Caller,
  type FieldErrors,
  type FieldType,
  type FilterConditionDto,
  type FilterDto,
  type FilterReply,
  type ListFiltersReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import { isUniqueViolation } from '../common/unique-violation';
import { customFieldIdsOf, parseConditions, type CustomFieldInfo, type FilterReferences } from './filter-conditions';
import { accountTimeWhere } from '../records/time-filters';

const NAME_INDEX = 'filters_name_uq';

interface FilterRow {
  id: string;
  name: string;
  conditions: FilterConditionDto[];
  created_at: Date;
  modified_at: Date;
}

/** Tables of the ids a condition may name. */
const REFERENCE_TABLES: Record<keyof FilterReferences, { table: string; label: string }> = {
  status_id: { table: 'crm.statuses', label: 'status' },
  owner_id: { table: 'crm.users', label: 'user' },
  lead_source_id: { table: 'crm.lead_sources', label: 'lead source' },
  company_id: { table: 'crm.companies', label: 'company' },
};

/**
 * Saved filters: named condition lists over contacts (the language is in filter-conditions.ts),
 * usable as `filter_id` on GET /contacts and GET /deals. Shared by the account; writes are admin only.
 */
@Injectable()
export class FiltersService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListFiltersReply> {
    const request = parseContract(ListFiltersRequest, payload);
    const { page, per_page } = request;
    const { where, params } = accountTimeWhere(caller.account_id, request, 'f');
    const [{ total }] = await this.dataSource.query(`SELECT count(*)::int AS total FROM crm.filters f WHERE ${where}`, params);
    const n = params.length;
    const rows: FilterRow[] = await this.dataSource.query(
      `SELECT f.id, f.name, f.conditions, f.created_at, f.modified_at FROM crm.filters f WHERE ${where} ORDER BY lower(f.name), f.id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, per_page, (page - 1) * per_page],
    );
    return { filters: rows.map((row) => ({ filter: toFilterDto(row) })), ...pageInfo(total, page, per_page) };
  }

  /** Every filter of the account by name (bootstrap). */
  async all(m: EntityManager, accountId: string): Promise<FilterDto[]> {
    const rows: FilterRow[] = await m.query(
      'SELECT id, name, conditions, created_at, modified_at FROM crm.filters WHERE account_id = $1 ORDER BY lower(name), id',
      [accountId],
    );
    return rows.map(toFilterDto);
  }

  async get(caller: Caller, payload: unknown): Promise<FilterReply> {
    const { filter_id } = parseContract(FilterIdRequest, payload);
    return { filter: toFilterDto(await this.find(this.dataSource.manager, caller.account_id, filter_id)) };
  }

  async create(caller: Caller, payload: unknown): Promise<FilterReply> {
    assertAdmin(caller);
    const request = parseContract(CreateFilterRequest, payload);
    const id = newId();
    return this.unique(() =>
      this.dataSource.transaction(async (m) => {
        const conditions = await this.checkConditions(m, caller.account_id, request.conditions);
        await m.query('INSERT INTO crm.filters (id, account_id, name, conditions) VALUES ($1, $2, $3, $4)', [
          id,
          caller.account_id,
          request.name,
          JSON.stringify(conditions),
        ]);
        return { filter: toFilterDto(await this.find(m, caller.account_id, id)) };
      }),
    );
  }

  /** PUT: name required, absent conditions = none; with partial=true only what is sent changes. */
  async update(caller: Caller, payload: unknown): Promise<FilterReply> {
    assertAdmin(caller);
    const request = parseContract(UpdateFilterRequest, payload);
    if (request.partial) return this.change(caller, request.filter_id, request.name, request.conditions);
    return this.change(caller, request.filter_id, request.name, request.conditions ?? []);
  }

  async patch(caller: Caller, payload: unknown): Promise<FilterReply> {
    assertAdmin(caller);
    const request = parseContract(PatchFilterRequest, payload);
    return this.change(caller, request.filter_id, request.name, request.conditions);
  }

  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller);
    const { filter_id } = parseContract(FilterIdRequest, payload);
    const id = filter_id.toLowerCase();
    const gone: unknown[] = isId(id)
      ? await this.dataSource.query(
          'WITH gone AS (DELETE FROM crm.filters WHERE id = $1 AND account_id = $2 RETURNING id) SELECT id FROM gone',
          [id, caller.account_id],
        )
      : [];
    if (gone.length === 0) throw ApiError.notFound('Filter not found');
    return {};
  }

  private change(caller: Caller, filterId: string, name: string | undefined, rawConditions: unknown[] | undefined): Promise<FilterReply> {
    return this.unique(() =>
      this.dataSource.transaction(async (m) => {
        const current = await this.find(m, caller.account_id, filterId, true);
        const nextName = name ?? current.name;
        const conditions =
          rawConditions === undefined ? current.conditions : await this.checkConditions(m, caller.account_id, rawConditions);
        if (nextName !== current.name || JSON.stringify(conditions) !== JSON.stringify(current.conditions)) {
          await m.query('UPDATE crm.filters SET name = $1, conditions = $2, modified_at = now() WHERE id = $3', [
            nextName,
            JSON.stringify(conditions),
            current.id,
          ]);
        }
        return { filter: toFilterDto(await this.find(m, caller.account_id, current.id)) };
      }),
    );
  }

  /** Validates and normalizes conditions; ids they name must be the account's (404 otherwise). */
  private async checkConditions(m: EntityManager, accountId: string, raw: unknown[]): Promise<FilterConditionDto[]> {
    const customIds = customFieldIdsOf(raw);
    const fields = new Map<string, CustomFieldInfo>();
    if (customIds.length > 0) {
      const rows: Array<{ id: string; type: FieldType; choices: string[] | null }> = await m.query(
        "SELECT id, type, choices FROM crm.fields WHERE account_id = $1 AND field_set = 'custom_fields' AND id = ANY($2::varchar[])",
        [accountId, customIds],
      );
      for (const row of rows) fields.set(row.id, { type: row.type, choices: row.choices });
    }
    const { conditions, references } = parseConditions(raw, fields);
    const missing: FieldErrors = {};
    for (const [field, refs] of Object.entries(references) as Array<[keyof FilterReferences, Array<{ id: string; key: string }>]>) {
      if (refs.length === 0) continue;
      const { table, label } = REFERENCE_TABLES[field];
      const found: Array<{ id: string }> = await m.query(`SELECT id FROM ${table} WHERE account_id = $1 AND id = ANY($2::varchar[])`, [
        accountId,
        refs.map((r) => r.id),
      ]);
      const known = new Set(found.map((f) => f.id));
      for (const ref of refs) if (!known.has(ref.id) && !missing[ref.key]) missing[ref.key] = `${ref.id} names no ${label} of this account`;
    }
    if (Object.keys(missing).length > 0)
      throw new ApiError(ErrorName.ResourceNotFound, 'A condition names a record that does not exist', missing);
    return conditions;
  }

  private async find(m: EntityManager, accountId: string, filterId: string, lock = false): Promise<FilterRow> {
    const id = filterId.toLowerCase();
    const [row]: FilterRow[] = isId(id)
      ? await m.query(
          `SELECT id, name, conditions, created_at, modified_at FROM crm.filters WHERE id = $1 AND account_id = $2${lock ? ' FOR UPDATE' : ''}`,
          [id, accountId],
        )
      : [];
    if (!row) throw ApiError.notFound('Filter not found');
    return row;
  }

  private async unique<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isUniqueViolation(error, NAME_INDEX))
        throw new ApiError(ErrorName.DuplicatedEntity, 'A filter with this name already exists', {
          name: 'is already the name of a filter of the account',
        });
      throw error;
    }
  }
}

export function toFilterDto(row: FilterRow): FilterDto {
  return {
    id: row.id,
    name: row.name,
    conditions: row.conditions,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}
