import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  ApiError,
  ErrorName,
  pageInfo,
  type Caller,
  type CreatePredefinedActionGroupRequest,
  type CreatePredefinedActionRequest,
  type ListPredefinedActionGroupsReply,
  type ListPredefinedActionGroupsRequest,
  type ListPredefinedActionsReply,
  type ListPredefinedActionsRequest,
  type PredefinedActionGroupIdRequest,
  type PredefinedActionGroupReply,
  type PredefinedActionIdRequest,
  type PredefinedActionReply,
  type UpdatePredefinedActionGroupRequest,
  type UpdatePredefinedActionRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import type { Db } from '../common/sql';
import { foundOr404, isUniqueViolation } from '../common/unique-violation';
import {
  checkGroupable,
  checkPredefinedAction,
  groupDissolves,
  groupMemberIds,
  regroupable,
  updatedTemplate,
} from './predefined-action.rules';
import { toPredefinedActionDto, toPredefinedActionGroupDto } from './predefined-action.view';
import { PredefinedActionsRepository, type PredefinedActionGroupRow, type PredefinedActionRow } from './predefined-actions.repository';
import { assertIfMatch } from '../common/if-match.repository';

const GROUP_NAME_INDEX = 'predefined_action_groups_name_uq';

/** Predefined action templates and groups (docs/decisions.md "Predefined actions"). */
@Injectable()
export class PredefinedActionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly actions: PredefinedActionsRepository,
  ) {}

  async list(caller: Caller, request: ListPredefinedActionsRequest): Promise<ListPredefinedActionsReply> {
    const { page, per_page } = request;
    const db = this.dataSource.manager;
    const { total, rows } = await this.actions.page(db, caller.account_id, request, page, per_page);
    return {
      predefined_actions: rows.map((row) => ({ predefined_action: toPredefinedActionDto(row) })),
      ...pageInfo(total, page, per_page),
    };
  }

  async get(caller: Caller, { predefined_action_id }: PredefinedActionIdRequest): Promise<PredefinedActionReply> {
    return {
      predefined_action: toPredefinedActionDto(await this.findAction(this.dataSource.manager, caller.account_id, predefined_action_id)),
    };
  }

  async create(caller: Caller, request: CreatePredefinedActionRequest): Promise<PredefinedActionReply> {
    assertAdmin(caller);
    const { days, ...fields } = request;
    const template = { ...fields, days_after: days ?? fields.days_after, time: fields.time ?? null };
    checkPredefinedAction(template);
    const id = newId();
    const db = this.dataSource.manager;
    await this.actions.insert(db, caller.account_id, id, template);
    return { predefined_action: toPredefinedActionDto(await this.findAction(db, caller.account_id, id)) };
  }

  /** PUT: replaces the template (partial=true: merges); its group membership stays. */
  async update(caller: Caller, request: UpdatePredefinedActionRequest): Promise<PredefinedActionReply> {
    assertAdmin(caller);
    return this.dataSource.transaction(async (tx) => {
      const current = await this.findAction(tx, caller.account_id, request.predefined_action_id, true);
      await assertIfMatch(tx, 'predefined_actions', current.id);
      const next = updatedTemplate(current, request);
      checkPredefinedAction(next);
      await this.actions.update(tx, current.id, next);
      return { predefined_action: toPredefinedActionDto(await this.findAction(tx, caller.account_id, current.id)) };
    });
  }

  /** Deletes a template; a group left with fewer than two members is dissolved, in one transaction. */
  async delete(caller: Caller, { predefined_action_id }: PredefinedActionIdRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    await this.dataSource.transaction(async (tx) => {
      const action = await this.findAction(tx, caller.account_id, predefined_action_id, true);
      await assertIfMatch(tx, 'predefined_actions', action.id);
      const remaining = await this.actions.delete(tx, action);
      if (action.group_id && groupDissolves(remaining)) await this.actions.deleteGroup(tx, action.group_id);
    });
    return {};
  }

  async listGroups(caller: Caller, request: ListPredefinedActionGroupsRequest): Promise<ListPredefinedActionGroupsReply> {
    const { page, per_page } = request;
    const db = this.dataSource.manager;
    const { total, rows } = await this.actions.pageGroups(db, caller.account_id, request, page, per_page);
    return {
      predefined_action_groups: rows.map((row) => ({ predefined_action_group: toPredefinedActionGroupDto(row) })),
      ...pageInfo(total, page, per_page),
    };
  }

  async getGroup(caller: Caller, { predefined_action_group_id }: PredefinedActionGroupIdRequest): Promise<PredefinedActionGroupReply> {
    return {
      predefined_action_group: toPredefinedActionGroupDto(
        await this.findGroup(this.dataSource.manager, caller.account_id, predefined_action_group_id),
      ),
    };
  }

  /** Groups ungrouped templates of the account, in the order given. */
  async createGroup(caller: Caller, request: CreatePredefinedActionGroupRequest): Promise<PredefinedActionGroupReply> {
    assertAdmin(caller);
    const ids = groupMemberIds(request.action_ids ?? request.predefined_action_ids);
    const name = request.text ?? request.name;
    const groupId = newId();
    try {
      await this.dataSource.transaction(async (tx) => {
        checkGroupable(ids, await this.actions.lockForGrouping(tx, caller.account_id, ids.filter(isId)));
        await this.actions.insertGroup(tx, caller.account_id, groupId, name, ids);
      });
    } catch (error) {
      if (isUniqueViolation(error, GROUP_NAME_INDEX))
        throw new ApiError(ErrorName.DuplicatedEntity, 'A predefined action group with this name already exists', {
          name: 'already exists',
        });
      throw error;
    }
    return {
      predefined_action_group: toPredefinedActionGroupDto(await this.findGroup(this.dataSource.manager, caller.account_id, groupId)),
    };
  }

  /**
   * PUT: a new name and the complete, ordered membership; members left out become ungrouped, new
   * ones must be ungrouped templates of the account (as on create).
   */
  async updateGroup(caller: Caller, request: UpdatePredefinedActionGroupRequest): Promise<PredefinedActionGroupReply> {
    assertAdmin(caller);
    try {
      return await this.dataSource.transaction(async (tx) => {
        const group = await this.findGroup(tx, caller.account_id, request.predefined_action_group_id, true);
        await assertIfMatch(tx, 'predefined_action_groups', group.id);
        const memberIds = request.action_ids ?? request.predefined_action_ids;
        if (memberIds !== undefined) {
          const ids = groupMemberIds(memberIds);
          checkGroupable(ids, regroupable(group.id, await this.actions.lockForGrouping(tx, caller.account_id, ids.filter(isId))));
          await this.actions.setGroupMembers(tx, group.id, ids);
        }
        await this.actions.renameGroup(tx, group.id, request.text ?? request.name ?? group.name);
        return { predefined_action_group: toPredefinedActionGroupDto(await this.findGroup(tx, caller.account_id, group.id)) };
      });
    } catch (error) {
      if (isUniqueViolation(error, GROUP_NAME_INDEX))
        throw new ApiError(ErrorName.DuplicatedEntity, 'A predefined action group with this name already exists', {
          name: 'already exists',
        });
      throw error;
    }
  }

  /** Deletes a group; its templates stay, ungrouped. */
  async deleteGroup(caller: Caller, { predefined_action_group_id }: PredefinedActionGroupIdRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    await this.dataSource.transaction(async (tx) => {
      const group = await this.findGroup(tx, caller.account_id, predefined_action_group_id);
      await assertIfMatch(tx, 'predefined_action_groups', group.id);
      await this.actions.deleteGroup(tx, group.id);
    });
    return {};
  }

  private findAction(db: Db, accountId: string, rawId: string, lock = false): Promise<PredefinedActionRow> {
    return foundOr404(rawId, (id) => this.actions.find(db, accountId, id, lock), 'Predefined action not found');
  }

  private findGroup(db: Db, accountId: string, rawId: string, lock = false): Promise<PredefinedActionGroupRow> {
    return foundOr404(rawId, (id) => this.actions.findGroup(db, accountId, id, lock), 'Predefined action group not found');
  }
}
