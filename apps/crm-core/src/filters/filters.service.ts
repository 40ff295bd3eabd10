import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  ErrorName,
  pageInfo,
  type Caller,
  type CreateFilterRequest,
  type FieldErrors,
  type FilterConditionDto,
  type FilterDto,
  type FilterIdRequest,
  type FilterReply,
  type ListFiltersReply,
  type ListFiltersRequest,
  type PatchFilterRequest,
  type UpdateFilterRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import type { Db } from '../common/sql';
import { foundOr404, uniqueName } from '../common/unique-violation';
import { customFieldIdsOf, parseConditions, type FilterReferences } from './filter.rules';
import { toFilterDto } from './filter.view';
import { FiltersRepository, type FilterRow } from './filters.repository';
import { assertIfMatch } from '../common/if-match.repository';

const NAME_INDEX = 'filters_name_uq';

/** What a condition's id names, for the 404 message. */
const REFERENCE_LABELS: Record<keyof FilterReferences, string> = {
  status_id: 'status',
  owner_id: 'user',
  lead_source_id: 'lead source',
  company_id: 'company',
};

/**
 * Saved filters: named condition lists over contacts (the language is in filter.rules.ts),
 * usable as `filter_id` on GET /contacts and GET /deals. Shared by the account; writes are admin only.
 */
@Injectable()
export class FiltersService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly filters: FiltersRepository,
  ) {}

  async list(caller: Caller, request: ListFiltersRequest): Promise<ListFiltersReply> {
    const { page, per_page } = request;
    const db = this.dataSource.manager;
    const { total, rows } = await this.filters.page(db, caller.account_id, request, page, per_page);
    return { filters: rows.map((row) => ({ filter: toFilterDto(row) })), ...pageInfo(total, page, per_page) };
  }

  /** Every filter of the account by name (bootstrap). */
  async all(db: Db, accountId: string): Promise<FilterDto[]> {
    return (await this.filters.all(db, accountId)).map(toFilterDto);
  }

  async get(caller: Caller, { filter_id }: FilterIdRequest): Promise<FilterReply> {
    return { filter: toFilterDto(await this.find(this.dataSource.manager, caller.account_id, filter_id)) };
  }

  async create(caller: Caller, request: CreateFilterRequest): Promise<FilterReply> {
    assertAdmin(caller);
    const id = newId();
    return this.unique(() =>
      this.dataSource.transaction(async (tx) => {
        const conditions = await this.checkConditions(tx, caller.account_id, request.conditions);
        await this.filters.insert(tx, caller.account_id, id, request.name, conditions);
        return { filter: toFilterDto(await this.find(tx, caller.account_id, id)) };
      }),
    );
  }

  /** PUT: name required, absent conditions = none; with partial=true only what is sent changes. */
  async update(caller: Caller, request: UpdateFilterRequest): Promise<FilterReply> {
    assertAdmin(caller);
    return this.change(caller, request.filter_id, request.name, request.partial ? request.conditions : (request.conditions ?? []));
  }

  async patch(caller: Caller, request: PatchFilterRequest): Promise<FilterReply> {
    assertAdmin(caller);
    return this.change(caller, request.filter_id, request.name, request.conditions);
  }

  async delete(caller: Caller, { filter_id }: FilterIdRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    const id = filter_id.toLowerCase();
    if (!isId(id) || !(await this.filters.delete(this.dataSource.manager, caller.account_id, id)))
      throw ApiError.notFound('Filter not found');
    return {};
  }

  private change(caller: Caller, filterId: string, name: string | undefined, rawConditions: unknown[] | undefined): Promise<FilterReply> {
    return this.unique(() =>
      this.dataSource.transaction(async (tx) => {
        const current = await this.find(tx, caller.account_id, filterId, true);
        await assertIfMatch(tx, 'filters', current.id);
        const nextName = name ?? current.name;
        const conditions =
          rawConditions === undefined ? current.conditions : await this.checkConditions(tx, caller.account_id, rawConditions);
        if (nextName !== current.name || JSON.stringify(conditions) !== JSON.stringify(current.conditions))
          await this.filters.update(tx, current.id, nextName, conditions);
        return { filter: toFilterDto(await this.find(tx, caller.account_id, current.id)) };
      }),
    );
  }

  /** Validates and normalizes conditions; ids they name must be the account's (404 otherwise). */
  private async checkConditions(db: Db, accountId: string, raw: unknown[] | undefined): Promise<FilterConditionDto[]> {
    const input = raw ?? [];
    const fields = await this.filters.customFields(db, accountId, customFieldIdsOf(input));
    const { conditions, references } = parseConditions(input, fields);
    const missing: FieldErrors = {};
    for (const [kind, refs] of Object.entries(references) as Array<[keyof FilterReferences, Array<{ id: string; key: string }>]>) {
      if (refs.length === 0) continue;
      const known = await this.filters.existingIds(
        db,
        accountId,
        kind,
        refs.map((r) => r.id),
      );
      for (const ref of refs)
        if (!known.has(ref.id) && !missing[ref.key]) missing[ref.key] = `${ref.id} names no ${REFERENCE_LABELS[kind]} of this account`;
    }
    if (Object.keys(missing).length > 0)
      throw new ApiError(ErrorName.ResourceNotFound, 'A condition names a record that does not exist', missing);
    return conditions;
  }

  private find(db: Db, accountId: string, filterId: string, lock = false): Promise<FilterRow> {
    return foundOr404(filterId, (id) => this.filters.find(db, accountId, id, lock), 'Filter not found');
  }

  private unique<T>(fn: () => Promise<T>): Promise<T> {
    return uniqueName(NAME_INDEX, 'a filter', 'name', fn);
  }
}
