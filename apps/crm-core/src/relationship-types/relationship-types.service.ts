import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  CreateRelationshipTypeRequest,
  ErrorName,
  ListRelationshipTypesRequest,
  pageInfo,
  parseContract,
  RelationshipTypeIdRequest,
  UpdateRelationshipTypeRequest,
  type Caller,
  type ListRelationshipTypesReply,
  type RelationshipTypeDto,
  type RelationshipTypeReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import { isUniqueViolation } from '../common/unique-violation';
import { accountTimeWhere } from '../records/time-filters';

const VARIANT_NAME_INDEX = 'relationship_variants_name_uq';

interface TypeRow {
  id: string;
  symmetrical: boolean;
  created_at: Date;
  modified_at: Date;
  variants: Array<{ id: string; name: string }>;
}

/** Relationship types of an account (decisions.md "Configuration and users"). */
@Injectable()
export class RelationshipTypesService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListRelationshipTypesReply> {
    const request = parseContract(ListRelationshipTypesRequest, payload);
    const { page, per_page } = request;
    const { where, params } = accountTimeWhere(caller.account_id, request, 't');
    const [{ total }] = await this.dataSource.query(`SELECT count(*)::int AS total FROM crm.relationship_types t WHERE ${where}`, params);
    const n = params.length;
    const rows = await this.select(this.dataSource.manager, `WHERE ${where} ORDER BY t.created_at, t.id LIMIT $${n + 1} OFFSET $${n + 2}`, [
      ...params,
      per_page,
      (page - 1) * per_page,
    ]);
    return { relationship_types: rows.map((row) => ({ relationship_type: toDto(row) })), ...pageInfo(total, page, per_page) };
  }

  async get(caller: Caller, payload: unknown): Promise<RelationshipTypeReply> {
    const { relationship_type_id: id } = parseContract(RelationshipTypeIdRequest, payload);
    return { relationship_type: toDto(await this.find(this.dataSource.manager, caller.account_id, id)) };
  }

  async create(caller: Caller, payload: unknown): Promise<RelationshipTypeReply> {
    assertAdmin(caller);
    const { variants } = parseContract(CreateRelationshipTypeRequest, payload);
    if (variants.length === 2 && variants[0].name.toLowerCase() === variants[1].name.toLowerCase()) {
      throw ApiError.invalid({ variants: 'a directional type needs two different labels; use one variant for a symmetrical type' });
    }
    const id = newId();
    await this.unique(() =>
      this.dataSource.transaction(async (m) => {
        await m.query('INSERT INTO crm.relationship_types (id, account_id, symmetrical) VALUES ($1, $2, $3)', [
          id,
          caller.account_id,
          variants.length === 1,
        ]);
        for (const [position, variant] of variants.entries()) {
          await m.query(
            'INSERT INTO crm.relationship_variants (id, account_id, relationship_type_id, position, name) VALUES ($1, $2, $3, $4, $5)',
            [newId(), caller.account_id, id, position, variant.name],
          );
        }
      }),
    );
    return { relationship_type: toDto(await this.find(this.dataSource.manager, caller.account_id, id)) };
  }

  /** Renames the complete variant set; adding, removing or switching kinds is refused. */
  async update(caller: Caller, payload: unknown): Promise<RelationshipTypeReply> {
    assertAdmin(caller);
    const request = parseContract(UpdateRelationshipTypeRequest, payload);
    return this.unique(() =>
      this.dataSource.transaction(async (m) => {
        const current = await this.find(m, caller.account_id, request.relationship_type_id, true);
        const existing = new Set(current.variants.map((v) => v.id));
        const sent = request.variants.map((v) => v.id.toLowerCase());
        if (new Set(sent).size !== sent.length) throw ApiError.invalid({ variants: 'each variant id may appear only once' });
        const unknown = sent.filter((id) => !existing.has(id));
        if (unknown.length > 0) throw ApiError.invalid({ variants: `unknown variant id(s) of this type: ${unknown.join(', ')}` });
        if (sent.length !== existing.size) {
          throw ApiError.invalid({
            variants: current.symmetrical
              ? 'a symmetrical type has exactly one variant; it cannot become directional'
              : 'a directional type has exactly two variants; list both, none can be removed',
          });
        }
        if (sent.length === 2 && request.variants[0].name.toLowerCase() === request.variants[1].name.toLowerCase()) {
          throw ApiError.invalid({ variants: 'the two labels of a directional type must differ' });
        }
        const changed = request.variants.filter((v) => current.variants.find((c) => c.id === v.id.toLowerCase())?.name !== v.name);
        if (changed.length > 0) {
          // Free the old names first, so two variants can swap labels.
          await m.query('UPDATE crm.relationship_variants SET name = id WHERE relationship_type_id = $1', [current.id]);
          for (const variant of request.variants) {
            await m.query('UPDATE crm.relationship_variants SET name = $1 WHERE id = $2 AND relationship_type_id = $3', [
              variant.name,
              variant.id.toLowerCase(),
              current.id,
            ]);
          }
          await m.query('UPDATE crm.relationship_types SET modified_at = now() WHERE id = $1', [current.id]);
        }
        return { relationship_type: toDto(await this.find(m, caller.account_id, current.id)) };
      }),
    );
  }

  /** Deletes the type and, through the foreign keys, every relationship using it, permanently. */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller);
    const { relationship_type_id: id } = parseContract(RelationshipTypeIdRequest, payload);
    const normalized = id.toLowerCase();
    // A CTE, so the driver returns the deleted rows (a bare DELETE ... RETURNING answers [rows, count]).
    const result: unknown[] = isId(normalized)
      ? await this.dataSource.query(
          'WITH gone AS (DELETE FROM crm.relationship_types WHERE id = $1 AND account_id = $2 RETURNING id) SELECT id FROM gone',
          [normalized, caller.account_id],
        )
      : [];
    if (result.length === 0) throw ApiError.notFound('Relationship type not found');
    return {};
  }

  private async find(m: EntityManager, accountId: string, id: string, lock = false): Promise<TypeRow> {
    const normalized = id.toLowerCase();
    if (!isId(normalized)) throw ApiError.notFound('Relationship type not found');
    if (lock) await m.query('SELECT 1 FROM crm.relationship_types WHERE id = $1 AND account_id = $2 FOR UPDATE', [normalized, accountId]);
    const [row] = await this.select(m, 'WHERE t.id = $1 AND t.account_id = $2', [normalized, accountId]);
    if (!row) throw ApiError.notFound('Relationship type not found');
    return row;
  }

  private select(m: EntityManager, where: string, params: unknown[]): Promise<TypeRow[]> {
    return m.query(
      `SELECT t.id, t.symmetrical, t.created_at, t.modified_at,
              coalesce((SELECT json_agg(json_build_object('id', v.id, 'name', v.name) ORDER BY v.position)
                        FROM crm.relationship_variants v WHERE v.relationship_type_id = t.id), '[]'::json) AS variants
       FROM crm.relationship_types t ${where}`,
      params,
    );
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

function toDto(row: TypeRow): RelationshipTypeDto {
  return {
    id: row.id,
    symmetrical: row.symmetrical,
    relationship_variants: row.variants,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}
