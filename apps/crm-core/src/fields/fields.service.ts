import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  ErrorName,
  FIELD_SET_INFO,
  pageInfo,
  type Caller,
  type CreateFieldRequest,
  type DeleteFieldReply,
  type FieldReply,
  type FieldSet,
  type FieldType,
  type ListFieldsReply,
  type ListFieldsRequest,
  type PatchFieldRequest,
  type UpdateFieldRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import { isUniqueViolation } from '../common/unique-violation';
import { checkChoices, checkTypeUnchanged } from './field-rules';
import { toFieldDto } from './field.view';
import { FIELD_NAME_UNIQUE_INDEX, FieldsRepository, type FieldRow } from './fields.repository';

/** Changes to a stored field: undefined leaves a property as it is. */
interface FieldChanges {
  name?: string;
  type?: FieldType;
  position?: number;
  /** null: none (only valid for types without choices). */
  choices?: string[] | null;
}

/** The id request of a set (custom_field_id, company_field_id or deal_field_id). */
type FieldIdRequest = object;

/**
 * Contact custom fields, company fields and deal fields: three sets with the same rules, told
 * apart by `set`. Reads are open to every user of the account; writes are admin only.
 */
@Injectable()
export class FieldsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly fields: FieldsRepository,
  ) {}

  async list<S extends FieldSet>(set: S, caller: Caller, request: ListFieldsRequest): Promise<ListFieldsReply<S>> {
    const db = this.dataSource.manager;
    const query = { type: request.type, time: request };
    const { total, rows } = await this.fields.page(db, caller.account_id, set, {
      ...query,
      sortBy: request.sort_by ?? 'position',
      order: request.order ?? 'asc',
      page: request.page,
      perPage: request.per_page,
    });
    const item = FIELD_SET_INFO[set].item;
    return {
      [set]: rows.map((row) => ({ [item]: toFieldDto(row) })),
      ...pageInfo(total, request.page, request.per_page),
    } as ListFieldsReply<S>;
  }

  async get<S extends FieldSet>(set: S, caller: Caller, request: FieldIdRequest): Promise<FieldReply<S>> {
    return this.reply(set, await this.find(set, caller, this.idOf(set, request)));
  }

  /** All field definitions of a set in display order (bootstrap). */
  async all(set: FieldSet, accountId: string): Promise<FieldRow[]> {
    const rows: FieldRow[] = [];
    for (let page = 1; ; page += 1) {
      const batch = await this.fields.rows(this.dataSource.manager, accountId, set, {
        sortBy: 'position',
        order: 'asc',
        page,
        perPage: 500,
      });
      rows.push(...batch);
      if (batch.length < 500) return rows;
    }
  }

  async create<S extends FieldSet>(set: S, caller: Caller, request: CreateFieldRequest): Promise<FieldReply<S>> {
    assertAdmin(caller);
    const choices = checkChoices(request.type, request.choices);
    const db = this.dataSource.manager;
    const position = request.position ?? (await this.fields.nextPosition(db, caller.account_id, set));
    const now = new Date();
    const field: FieldRow = {
      id: newId(now),
      account_id: caller.account_id,
      field_set: set,
      name: request.name,
      type: request.type,
      position,
      choices,
      created_at: now,
      modified_at: now,
    };
    await this.write(set, field, () => this.fields.insert(db, field));
    return this.reply(set, field);
  }

  /** PUT: replace name, position (kept when absent) and choices (none when absent); partial=true: PATCH. */
  async update<S extends FieldSet>(set: S, caller: Caller, request: UpdateFieldRequest): Promise<FieldReply<S>> {
    assertAdmin(caller);
    const field = await this.find(set, caller, this.idOf(set, request));
    const changes: FieldChanges = request.partial
      ? sentChanges(request)
      : { name: request.name, type: request.type, position: request.position ?? field.position, choices: request.choices ?? null };
    return this.reply(set, await this.apply(set, field, changes));
  }

  /** PATCH: only the fields sent change. */
  async patch<S extends FieldSet>(set: S, caller: Caller, request: PatchFieldRequest): Promise<FieldReply<S>> {
    assertAdmin(caller);
    const field = await this.find(set, caller, this.idOf(set, request));
    return this.reply(set, await this.apply(set, field, sentChanges(request)));
  }

  async delete(set: FieldSet, caller: Caller, request: FieldIdRequest): Promise<DeleteFieldReply> {
    assertAdmin(caller);
    const id = this.idOf(set, request).toLowerCase();
    if (!isId(id) || !(await this.fields.delete(this.dataSource.manager, caller.account_id, set, id))) throw this.notFound(set);
    return {};
  }

  private async apply(set: FieldSet, field: FieldRow, changes: FieldChanges): Promise<FieldRow> {
    checkTypeUnchanged(field.type, changes.type);
    const next: FieldRow = { ...field };
    if (changes.name !== undefined) next.name = changes.name;
    if (changes.position !== undefined) next.position = changes.position;
    if (changes.choices !== undefined) next.choices = checkChoices(field.type, changes.choices);
    const unchanged =
      next.name === field.name && next.position === field.position && JSON.stringify(next.choices) === JSON.stringify(field.choices);
    if (unchanged) return field;
    next.modified_at = new Date();
    await this.write(set, next, async () => {
      if (!(await this.fields.update(this.dataSource.manager, next))) throw this.notFound(set);
    });
    return next;
  }

  /** Runs an insert or update; a name already used in the set (any letter case) is duplicated_entity. */
  private async write(set: FieldSet, field: FieldRow, run: () => Promise<void>): Promise<void> {
    try {
      await run();
    } catch (error) {
      if (isUniqueViolation(error, FIELD_NAME_UNIQUE_INDEX)) {
        throw new ApiError(ErrorName.DuplicatedEntity, `A ${FIELD_SET_INFO[set].label} named "${field.name}" already exists`, {
          name: 'already exists',
        });
      }
      throw error;
    }
  }

  private async find(set: FieldSet, caller: Caller, rawId: string): Promise<FieldRow> {
    const id = rawId.toLowerCase();
    const field = isId(id) ? await this.fields.find(this.dataSource.manager, caller.account_id, set, id) : undefined;
    if (!field) throw this.notFound(set);
    return field;
  }

  private idOf(set: FieldSet, request: FieldIdRequest): string {
    return String((request as Record<string, unknown>)[FIELD_SET_INFO[set].idParam]);
  }

  private notFound(set: FieldSet): ApiError {
    const label = FIELD_SET_INFO[set].label;
    return ApiError.notFound(`${label[0].toUpperCase()}${label.slice(1)} not found`);
  }

  private reply<S extends FieldSet>(set: S, field: FieldRow): FieldReply<S> {
    return { [FIELD_SET_INFO[set].item]: toFieldDto(field) } as FieldReply<S>;
  }
}

function sentChanges(request: { name?: string; type?: FieldType; position?: number | null; choices?: string[] | null }): FieldChanges {
  return {
    name: request.name,
    type: request.type,
    position: request.position ?? undefined,
    choices: request.choices,
  };
}
