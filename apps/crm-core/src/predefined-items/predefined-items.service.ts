import { Injectable } from '@nestjs/common';
import { isId, newId } from '@crm/common';
import {
  pageInfo,
  type Caller,
  type CreatePredefinedItemGroupRequest,
  type CreatePredefinedItemRequest,
  type ListPredefinedItemGroupsReply,
  type ListPredefinedItemGroupsRequest,
  type ListPredefinedItemsReply,
  type ListPredefinedItemsRequest,
  type PredefinedItemGroupIdRequest,
  type PredefinedItemGroupReply,
  type PredefinedItemIdRequest,
  type PredefinedItemReply,
  type UpdatePredefinedItemRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { assertAdmin } from '../common/assert-admin';
import type { Db } from '../common/sql';
import { foundOr404, uniqueName } from '../common/unique-violation';
import { assertRoomForItem, checkItemsGroupable, groupItemIds, itemFields } from './predefined-item.rules';
import { toPredefinedItemDto, toPredefinedItemGroupDto } from './predefined-item.view';
import { PredefinedItemsRepository, type PredefinedItemGroupRow, type PredefinedItemRow } from './predefined-items.repository';

const ITEM_NAME_INDEX = 'predefined_items_name_uq';
const GROUP_NAME_INDEX = 'predefined_item_groups_name_uq';

/**
 * Predefined items, the templates of deal line items, and their groups (decisions.md "Remaining
 * OnePageCRM operations"). Deals copy an item's fields onto their own line items, so changing or
 * deleting an item never changes a deal.
 */
@Injectable()
export class PredefinedItemsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly items: PredefinedItemsRepository,
  ) {}

  async list(caller: Caller, request: ListPredefinedItemsRequest): Promise<ListPredefinedItemsReply> {
    const { page, per_page } = request;
    const { total, rows } = await this.items.page(this.dataSource.manager, caller.account_id, request, request.search, page, per_page);
    return { predefined_items: rows.map((row) => ({ predefined_item: toPredefinedItemDto(row) })), ...pageInfo(total, page, per_page) };
  }

  async get(caller: Caller, request: PredefinedItemIdRequest): Promise<PredefinedItemReply> {
    return {
      predefined_item: toPredefinedItemDto(await this.findItem(this.dataSource.manager, caller.account_id, request.predefined_item_id)),
    };
  }

  /** A new item, last in the account's order; names are unique regardless of case (400 duplicated_entity). */
  async create(caller: Caller, request: CreatePredefinedItemRequest): Promise<PredefinedItemReply> {
    assertAdmin(caller);
    const id = newId();
    return uniqueName(ITEM_NAME_INDEX, 'a predefined item', 'name', () =>
      this.dataSource.transaction(async (tx) => {
        await this.items.lockAccount(tx, caller.account_id, 'items');
        assertRoomForItem(await this.items.countItems(tx, caller.account_id));
        await this.items.insert(tx, caller.account_id, id, itemFields(null, request));
        return { predefined_item: toPredefinedItemDto(await this.findItem(tx, caller.account_id, id)) };
      }),
    );
  }

  /** PUT: replaces name, description, cost and price (partial=true: only those sent). */
  async update(caller: Caller, request: UpdatePredefinedItemRequest): Promise<PredefinedItemReply> {
    assertAdmin(caller);
    return uniqueName(ITEM_NAME_INDEX, 'a predefined item', 'name', () =>
      this.dataSource.transaction(async (tx) => {
        const current = await this.findItem(tx, caller.account_id, request.predefined_item_id, true);
        const fields = itemFields({ ...current, cost: Number(current.cost), price: Number(current.price) }, request);
        await this.items.update(tx, current.id, fields);
        return { predefined_item: toPredefinedItemDto(await this.findItem(tx, caller.account_id, current.id)) };
      }),
    );
  }

  /** Deletes an item (it leaves its group); deals' line items keep their copy. */
  async delete(caller: Caller, request: PredefinedItemIdRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    await this.dataSource.transaction(async (tx) => {
      const item = await this.findItem(tx, caller.account_id, request.predefined_item_id, true);
      await this.items.delete(tx, item.id);
    });
    return {};
  }

  async listGroups(caller: Caller, request: ListPredefinedItemGroupsRequest): Promise<ListPredefinedItemGroupsReply> {
    const { page, per_page } = request;
    const db = this.dataSource.manager;
    const { total, rows } = await this.items.pageGroups(db, caller.account_id, request, page, per_page);
    const members = request.include_items ? await this.membersOf(db, rows) : undefined;
    return {
      predefined_item_groups: rows.map((row) => ({
        predefined_item_group: toPredefinedItemGroupDto(row, members?.get(row.id) ?? (members && [])),
      })),
      ...pageInfo(total, page, per_page),
    };
  }

  /** One group with its items. */
  async getGroup(caller: Caller, request: PredefinedItemGroupIdRequest): Promise<PredefinedItemGroupReply> {
    return this.groupReply(this.dataSource.manager, caller.account_id, request.predefined_item_group_id);
  }

  /** Bundles ungrouped items of the account, in the order given; last in the account's order. */
  async createGroup(caller: Caller, request: CreatePredefinedItemGroupRequest): Promise<PredefinedItemGroupReply> {
    assertAdmin(caller);
    const ids = groupItemIds(request);
    const groupId = newId();
    return uniqueName(GROUP_NAME_INDEX, 'a predefined item group', 'name', () =>
      this.dataSource.transaction(async (tx) => {
        await this.items.lockAccount(tx, caller.account_id, 'groups');
        checkItemsGroupable(ids, await this.items.lockForGrouping(tx, caller.account_id, ids.filter(isId)));
        await this.items.insertGroup(tx, caller.account_id, groupId, request.name, ids);
        return this.groupReply(tx, caller.account_id, groupId);
      }),
    );
  }

  /** Deletes a group; its items stay, ungrouped. */
  async deleteGroup(caller: Caller, request: PredefinedItemGroupIdRequest): Promise<Record<string, never>> {
    assertAdmin(caller);
    await this.dataSource.transaction(async (tx) => {
      const group = await this.findGroup(tx, caller.account_id, request.predefined_item_group_id);
      await this.items.deleteGroup(tx, group.id);
    });
    return {};
  }

  private async groupReply(db: Db, accountId: string, rawId: string): Promise<PredefinedItemGroupReply> {
    const group = await this.findGroup(db, accountId, rawId);
    const members = await this.membersOf(db, [group]);
    return { predefined_item_group: toPredefinedItemGroupDto(group, members.get(group.id) ?? []) };
  }

  private async membersOf(db: Db, groups: readonly PredefinedItemGroupRow[]): Promise<Map<string, PredefinedItemRow[]>> {
    const byGroup = new Map<string, PredefinedItemRow[]>();
    for (const row of await this.items.members(
      db,
      groups.map((g) => g.id),
    )) {
      if (!row.group_id) continue;
      const list = byGroup.get(row.group_id) ?? [];
      list.push(row);
      byGroup.set(row.group_id, list);
    }
    return byGroup;
  }

  private findItem(db: Db, accountId: string, rawId: string, lock = false): Promise<PredefinedItemRow> {
    return foundOr404(rawId, (id) => this.items.find(db, accountId, id, lock), 'Predefined item not found');
  }

  private findGroup(db: Db, accountId: string, rawId: string): Promise<PredefinedItemGroupRow> {
    return foundOr404(rawId, (id) => this.items.findGroup(db, accountId, id), 'Predefined item group not found');
  }
}
