import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  ErrorName,
  pageInfo,
  type Caller,
  type CreateRelationshipTypeRequest,
  type ListRelationshipTypesReply,
  type ListRelationshipTypesRequest,
  type RelationshipTypeIdRequest,
  type RelationshipTypeReply,
  type UpdateRelationshipTypeRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import type { Db } from '../common/sql';
import { isUniqueViolation } from '../common/unique-violation';
import { checkNewVariants, checkVariantRenames } from './relationship-type.rules';
import { toRelationshipTypeDto } from './relationship-type.view';
import { RelationshipTypesRepository, type RelationshipTypeRow } from './relationship-types.repository';
import { assertIfMatch } from '../common/if-match.repository';

const VARIANT_NAME_INDEX = 'relationship_variants_name_uq';

/** Relationship types of an account (decisions.md "Configuration and users"). */
@Injectable()
export class RelationshipTypesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly types: RelationshipTypesRepository,
  ) {}

  async list(caller: Caller, request: ListRelationshipTypesRequest): Promise<ListRelationshipTypesReply> {
    const { page, per_page } = request;
    const db = this.dataSource.manager;
    const { total, rows } = await this.types.page(db, caller.account_id, request, page, per_page);
    return {
      relationship_types: rows.map((row) => ({ relationship_type: toRelationshipTypeDto(row) })),
      ...pageInfo(total, page, per_page),
    };
  }

  async get(caller: Caller, { relationship_type_id }: RelationshipTypeIdRequest): Promise<RelationshipTypeReply> {
    return { relationship_type: toRelationshipTypeDto(await this.find(this.dataSource.manager, caller.account_id, relationship_type_id)) };
  }

  async create(caller: Caller, { variants }: CreateRelationshipTypeRequest): Promise<RelationshipTypeReply> {
    assertAdmin(caller);
    checkNewVariants(variants);
    const id = newId();
    await this.unique(() =>
      this.dataSource.transaction((tx) =>
        this.types.insert(
          tx,
          caller.account_id,
          id,
          variants.map((v) => v.name),
        ),
      ),
    );
    return { relationship_type: toRelationshipTypeDto(await this.find(this.dataSource.manager, caller.account_id, id)) };
  }

  /** Renames the complete variant set; adding, removing or switching kinds is refused. */
  async update(caller: Caller, request: UpdateRelationshipTypeRequest): Promise<RelationshipTypeReply> {
    assertAdmin(caller);
    return this.unique(() =>
      this.dataSource.transaction(async (tx) => {
        const current = await this.find(tx, caller.account_id, request.relationship_type_id, true);
        await assertIfMatch(tx, 'relationship_types', current.id);
        const { variants, changed } = checkVariantRenames(current, request.variants);
        if (changed) await this.types.renameVariants(tx, current.id, variants);
        return { relationship_type: toRelationshipTypeDto(await this.find(tx, caller.account_id, current.id)) };
      }),
    );
  }

  /** Deletes the type and, through the foreign keys, every relationship using it, permanently. */
  async delete(caller: Caller, { relationship_type_id }: RelationshipTypeIdRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    const id = relationship_type_id.toLowerCase();
    if (!isId(id) || !(await this.types.delete(this.dataSource.manager, caller.account_id, id)))
      throw ApiError.notFound('Relationship type not found');
    return {};
  }

  private async find(db: Db, accountId: string, id: string, lock = false): Promise<RelationshipTypeRow> {
    const normalized = id.toLowerCase();
    const row = isId(normalized) ? await this.types.find(db, accountId, normalized, lock) : undefined;
    if (!row) throw ApiError.notFound('Relationship type not found');
    return row;
  }

  private async unique<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (isUniqueViolation(error, VARIANT_NAME_INDEX))
        throw new ApiError(ErrorName.DuplicatedEntity, 'A relationship type with this label already exists', {
          variants: 'a label is already used by a relationship type of the account',
        });
      throw error;
    }
  }
}
