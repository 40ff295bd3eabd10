import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  CreateFieldRequest,
  ErrorName,
  FIELD_REQUESTS,
  FIELD_SET_INFO,
  ListFieldsRequest,
  hasChoices,
  pageInfo,
  parseContract,
  type Caller,
  type DeleteFieldReply,
  type FieldDto,
  type FieldReply,
  type FieldSet,
  type FieldType,
  type ListFieldsReply,
} from '@crm/contracts';
import { assertAdmin } from '../common/assert-admin';
import { FieldEntity } from './entities/field.entity';
import { checkChoices, checkTypeUnchanged } from './field-rules';
import { FIELD_NAME_UNIQUE_INDEX, FieldsRepository, isUniqueViolation } from './fields.repository';

/** Changes to a stored field: undefined leaves a property as it is. */
interface FieldChanges {
  name?: string;
  type?: FieldType;
  position?: number;
  /** null: none (only valid for types without choices). */
  choices?: string[] | null;
}

/**
 * Contact custom fields, company fields and deal fields: three sets with the same rules, told
 * apart by `set`. Reads are open to every user of the account; writes are admin only.
 */
@Injectable()
export class FieldsService {
  constructor(private readonly fields: FieldsRepository) {}

  async list<S extends FieldSet>(set: S, caller: Caller, payload: unknown): Promise<ListFieldsReply<S>> {
    const request = parseContract(ListFieldsRequest, payload);
    const [rows, total] = await this.fields.page(caller.account_id, set, {
      type: request.type,
      sortBy: request.sort_by ?? 'position',
      order: request.order ?? 'asc',
      page: request.page,
      perPage: request.per_page,
      time: request,
    });
    const item = FIELD_SET_INFO[set].item;
    return {
      [set]: rows.map((row) => ({ [item]: toFieldDto(row) })),
      ...pageInfo(total, request.page, request.per_page),
    } as ListFieldsReply<S>;
  }

  async get<S extends FieldSet>(set: S, caller: Caller, payload: unknown): Promise<FieldReply<S>> {
    const field = await this.find(set, caller, this.idOf(set, parseContract(FIELD_REQUESTS[set].id, payload)));
    return this.reply(set, field);
  }

  /** All field definitions of a set in display order (for contacts, companies and deals). */
  async all(set: FieldSet, accountId: string): Promise<FieldEntity[]> {
    const rows: FieldEntity[] = [];
    for (let page = 1; ; page += 1) {
      const [batch, total] = await this.fields.page(accountId, set, { sortBy: 'position', order: 'asc', page, perPage: 500 });
      rows.push(...batch);
      if (rows.length >= total || batch.length === 0) return rows;
    }
  }

  async create<S extends FieldSet>(set: S, caller: Caller, payload: unknown): Promise<FieldReply<S>> {
    assertAdmin(caller);
    const request = parseContract(CreateFieldRequest, payload);
    const choices = checkChoices(request.type, request.choices);
    const position = request.position ?? (await this.fields.nextPosition(caller.account_id, set));
    const now = new Date();
    const field = Object.assign(new FieldEntity(), {
      id: newId(now),
      accountId: caller.account_id,
      fieldSet: set,
      name: request.name,
      type: request.type,
      position,
      choices,
      createdAt: now,
      modifiedAt: now,
    });
    await this.write(set, field, () => this.fields.insert(field));
    return this.reply(set, field);
  }

  /** PUT: replace name, position (kept when absent) and choices (none when absent); partial=true: PATCH. */
  async update<S extends FieldSet>(set: S, caller: Caller, payload: unknown): Promise<FieldReply<S>> {
    assertAdmin(caller);
    const request = parseContract(FIELD_REQUESTS[set].update, payload);
    const field = await this.find(set, caller, this.idOf(set, request));
    const changes: FieldChanges = request.partial
      ? sentChanges(request)
      : { name: request.name, type: request.type, position: request.position ?? field.position, choices: request.choices ?? null };
    return this.reply(set, await this.apply(set, field, changes));
  }

  /** PATCH: only the fields sent change. */
  async patch<S extends FieldSet>(set: S, caller: Caller, payload: unknown): Promise<FieldReply<S>> {
    assertAdmin(caller);
    const request = parseContract(FIELD_REQUESTS[set].patch, payload);
    const field = await this.find(set, caller, this.idOf(set, request));
    return this.reply(set, await this.apply(set, field, sentChanges(request)));
  }

  async delete(set: FieldSet, caller: Caller, payload: unknown): Promise<DeleteFieldReply> {
    assertAdmin(caller);
    const id = this.idOf(set, parseContract(FIELD_REQUESTS[set].id, payload)).toLowerCase();
    if (!isId(id) || !(await this.fields.delete(caller.account_id, set, id))) throw this.notFound(set);
    return {};
  }

  private async apply(set: FieldSet, field: FieldEntity, changes: FieldChanges): Promise<FieldEntity> {
    checkTypeUnchanged(field.type, changes.type);
    const next = Object.assign(new FieldEntity(), field);
    if (changes.name !== undefined) next.name = changes.name;
    if (changes.position !== undefined) next.position = changes.position;
    if (changes.choices !== undefined) next.choices = checkChoices(field.type, changes.choices);
    const unchanged =
      next.name === field.name && next.position === field.position && JSON.stringify(next.choices) === JSON.stringify(field.choices);
    if (unchanged) return field;
    next.modifiedAt = new Date();
    await this.write(set, next, async () => {
      if (!(await this.fields.update(next))) throw this.notFound(set);
    });
    return next;
  }

  /** Runs an insert or update; a name already used in the set (any letter case) is duplicated_entity. */
  private async write(set: FieldSet, field: FieldEntity, run: () => Promise<void>): Promise<void> {
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

  private async find(set: FieldSet, caller: Caller, rawId: string): Promise<FieldEntity> {
    const id = rawId.toLowerCase();
    const field = isId(id) ? await this.fields.findInSet(caller.account_id, set, id) : null;
    if (!field) throw this.notFound(set);
    return field;
  }

  private idOf(set: FieldSet, request: object): string {
    return String((request as Record<string, unknown>)[FIELD_SET_INFO[set].idParam]);
  }

  private notFound(set: FieldSet): ApiError {
    const label = FIELD_SET_INFO[set].label;
    return ApiError.notFound(`${label[0].toUpperCase()}${label.slice(1)} not found`);
  }

  private reply<S extends FieldSet>(set: S, field: FieldEntity): FieldReply<S> {
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

/** The API's field: `choices` only for select_box and multiple_choice; timestamps ISO 8601 UTC. */
export function toFieldDto(field: FieldEntity): FieldDto {
  return {
    id: field.id,
    name: field.name,
    type: field.type,
    position: field.position,
    ...(hasChoices(field.type) ? { choices: field.choices ?? [] } : {}),
    created_at: field.createdAt.toISOString(),
    modified_at: field.modifiedAt.toISOString(),
  };
}
