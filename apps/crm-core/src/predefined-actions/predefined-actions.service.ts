import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  CreatePredefinedActionGroupRequest,
  CreatePredefinedActionRequest,
  ErrorName,
  ListPredefinedActionGroupsRequest,
  ListPredefinedActionsRequest,
  pageInfo,
  parseContract,
  PredefinedActionGroupIdRequest,
  PredefinedActionIdRequest,
  type Caller,
  type ListPredefinedActionGroupsReply,
  type ListPredefinedActionsReply,
  type PredefinedActionDto,
  type PredefinedActionGroupDto,
  type PredefinedActionGroupReply,
  type PredefinedActionReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import { isUniqueViolation } from '../common/unique-violation';
import { accountTimeWhere } from '../records/time-filters';

interface ActionRow {
  id: string;
  text: string;
  status: PredefinedActionDto['status'];
  days_after: number;
  time: string | null;
  group_id: string | null;
  created_at: Date;
  modified_at: Date;
}

interface GroupRow {
  id: string;
  name: string;
  member_ids: string[];
  created_at: Date;
  modified_at: Date;
}

const ACTION_COLUMNS = 'id, text, status, days_after, time, group_id, created_at, modified_at';
const GROUP_SELECT = `SELECT g.id, g.name, g.created_at, g.modified_at,
  coalesce((SELECT array_agg(a.id ORDER BY a.group_position, a.id) FROM crm.predefined_actions a WHERE a.group_id = g.id), '{}') AS member_ids
  FROM crm.predefined_action_groups g`;

/** Predefined action templates and groups (docs/decisions.md "Predefined actions"). */
@Injectable()
export class PredefinedActionsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListPredefinedActionsReply> {
    const request = parseContract(ListPredefinedActionsRequest, payload);
    const { page, per_page } = request;
    const { where, params } = accountTimeWhere(caller.account_id, request, 'a');
    const [{ total }] = await this.dataSource.query(`SELECT count(*)::int AS total FROM crm.predefined_actions a WHERE ${where}`, params);
    const n = params.length;
    const rows: ActionRow[] = await this.dataSource.query(
      `SELECT ${ACTION_COLUMNS} FROM crm.predefined_actions a WHERE ${where} ORDER BY a.created_at, a.id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, per_page, (page - 1) * per_page],
    );
    return { predefined_actions: rows.map((row) => ({ predefined_action: actionDto(row) })), ...pageInfo(total, page, per_page) };
  }

  async get(caller: Caller, payload: unknown): Promise<PredefinedActionReply> {
    const { predefined_action_id: id } = parseContract(PredefinedActionIdRequest, payload);
    return { predefined_action: actionDto(await this.findAction(this.dataSource.manager, caller.account_id, id)) };
  }

  async create(caller: Caller, payload: unknown): Promise<PredefinedActionReply> {
    assertAdmin(caller);
    const request = parseContract(CreatePredefinedActionRequest, payload);
    if (request.status === 'date_time' && !request.time) throw ApiError.invalid({ time: 'is required for status date_time' });
    if (request.status !== 'date_time' && request.time) throw ApiError.invalid({ time: 'is only allowed with status date_time' });
    if (request.status === 'waiting' && request.days_after !== 0) throw ApiError.invalid({ days_after: 'a waiting action has no date' });
    const id = newId();
    await this.dataSource.query(
      'INSERT INTO crm.predefined_actions (id, account_id, text, status, days_after, time) VALUES ($1, $2, $3, $4, $5, $6)',
      [id, caller.account_id, request.text, request.status, request.days_after, request.time ?? null],
    );
    return { predefined_action: actionDto(await this.findAction(this.dataSource.manager, caller.account_id, id)) };
  }

  /** Deletes a template; a group left with fewer than two members is dissolved, in one transaction. */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller);
    const { predefined_action_id: id } = parseContract(PredefinedActionIdRequest, payload);
    await this.dataSource.transaction(async (m) => {
      const action = await this.findAction(m, caller.account_id, id, true);
      await m.query('DELETE FROM crm.predefined_actions WHERE id = $1', [action.id]);
      if (action.group_id) {
        const [{ n }] = await m.query('SELECT count(*)::int AS n FROM crm.predefined_actions WHERE group_id = $1', [action.group_id]);
        if (n < 2) {
          await m.query('UPDATE crm.predefined_actions SET group_position = NULL, modified_at = now() WHERE group_id = $1', [
            action.group_id,
          ]);
          await m.query('DELETE FROM crm.predefined_action_groups WHERE id = $1', [action.group_id]);
        }
      }
    });
    return {};
  }

  async listGroups(caller: Caller, payload: unknown): Promise<ListPredefinedActionGroupsReply> {
    const request = parseContract(ListPredefinedActionGroupsRequest, payload);
    const { page, per_page } = request;
    const { where, params } = accountTimeWhere(caller.account_id, request, 'g');
    const [{ total }] = await this.dataSource.query(
      `SELECT count(*)::int AS total FROM crm.predefined_action_groups g WHERE ${where}`,
      params,
    );
    const n = params.length;
    const rows: GroupRow[] = await this.dataSource.query(
      `${GROUP_SELECT} WHERE ${where} ORDER BY g.created_at, g.id LIMIT $${n + 1} OFFSET $${n + 2}`,
      [...params, per_page, (page - 1) * per_page],
    );
    return {
      predefined_action_groups: rows.map((row) => ({ predefined_action_group: groupDto(row) })),
      ...pageInfo(total, page, per_page),
    };
  }

  async getGroup(caller: Caller, payload: unknown): Promise<PredefinedActionGroupReply> {
    const { predefined_action_group_id: id } = parseContract(PredefinedActionGroupIdRequest, payload);
    return { predefined_action_group: groupDto(await this.findGroup(this.dataSource.manager, caller.account_id, id)) };
  }

  /** Groups ungrouped templates of the account, in the order given. */
  async createGroup(caller: Caller, payload: unknown): Promise<PredefinedActionGroupReply> {
    assertAdmin(caller);
    const request = parseContract(CreatePredefinedActionGroupRequest, payload);
    const ids = request.predefined_action_ids.map((id) => id.toLowerCase());
    if (new Set(ids).size !== ids.length) throw ApiError.invalid({ predefined_action_ids: 'each predefined action may appear only once' });
    const groupId = newId();
    try {
      await this.dataSource.transaction(async (m) => {
        const rows: Array<{ id: string; group_id: string | null }> = await m.query(
          'SELECT id, group_id FROM crm.predefined_actions WHERE account_id = $1 AND id = ANY($2) FOR UPDATE',
          [caller.account_id, ids.filter(isId)],
        );
        const found = new Map(rows.map((r) => [r.id, r]));
        const missing = ids.filter((id) => !found.has(id));
        if (missing.length > 0) throw ApiError.notFound(`Predefined action not found: ${missing.join(', ')}`);
        const grouped = rows.filter((r) => r.group_id);
        if (grouped.length > 0)
          throw ApiError.invalid({ predefined_action_ids: `already in a group: ${grouped.map((r) => r.id).join(', ')}` });
        await m.query('INSERT INTO crm.predefined_action_groups (id, account_id, name) VALUES ($1, $2, $3)', [
          groupId,
          caller.account_id,
          request.name,
        ]);
        for (const [position, id] of ids.entries())
          await m.query('UPDATE crm.predefined_actions SET group_id = $1, group_position = $2, modified_at = now() WHERE id = $3', [
            groupId,
            position,
            id,
          ]);
      });
    } catch (error) {
      if (isUniqueViolation(error, 'predefined_action_groups_name_uq'))
        throw new ApiError(ErrorName.DuplicatedEntity, 'A predefined action group with this name already exists', {
          name: 'already exists',
        });
      throw error;
    }
    return { predefined_action_group: groupDto(await this.findGroup(this.dataSource.manager, caller.account_id, groupId)) };
  }

  /** Deletes a group; its templates stay, ungrouped (ON DELETE SET NULL). */
  async deleteGroup(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    assertAdmin(caller);
    const { predefined_action_group_id: id } = parseContract(PredefinedActionGroupIdRequest, payload);
    await this.dataSource.transaction(async (m) => {
      const group = await this.findGroup(m, caller.account_id, id);
      await m.query('UPDATE crm.predefined_actions SET group_position = NULL, modified_at = now() WHERE group_id = $1', [group.id]);
      await m.query('DELETE FROM crm.predefined_action_groups WHERE id = $1', [group.id]);
    });
    return {};
  }

  private async findAction(m: EntityManager, accountId: string, id: string, lock = false): Promise<ActionRow> {
    const normalized = id.toLowerCase();
    const rows: ActionRow[] = isId(normalized)
      ? await m.query(
          `SELECT ${ACTION_COLUMNS} FROM crm.predefined_actions WHERE id = $1 AND account_id = $2${lock ? ' FOR UPDATE' : ''}`,
          [normalized, accountId],
        )
      : [];
    if (!rows[0]) throw ApiError.notFound('Predefined action not found');
    return rows[0];
  }

  private async findGroup(m: EntityManager, accountId: string, id: string): Promise<GroupRow> {
    const normalized = id.toLowerCase();
    const rows: GroupRow[] = isId(normalized)
      ? await m.query(`${GROUP_SELECT} WHERE g.id = $1 AND g.account_id = $2`, [normalized, accountId])
      : [];
    if (!rows[0]) throw ApiError.notFound('Predefined action group not found');
    return rows[0];
  }
}

function actionDto(row: ActionRow): PredefinedActionDto {
  return {
    id: row.id,
    text: row.text,
    status: row.status,
    days_after: row.days_after,
    time: row.time,
    predefined_action_group_id: row.group_id,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}

function groupDto(row: GroupRow): PredefinedActionGroupDto {
  return {
    id: row.id,
    name: row.name,
    predefined_action_ids: row.member_ids,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}
