import { Injectable } from '@nestjs/common';
import type { PredefinedActionDto } from '@crm/contracts';
import { accountPage, execute, many, maybeOne, one, sql, type AccountList, type Db, type TimeFilterInput } from '../common/sql';

/** crm.predefined_actions as the service reads it. */
export interface PredefinedActionRow {
  id: string;
  text: string;
  status: PredefinedActionDto['status'];
  days_after: number;
  time: string | null;
  group_id: string | null;
  created_at: Date;
  modified_at: Date;
}

/** crm.predefined_action_groups with its members' ids in group order. */
export interface PredefinedActionGroupRow {
  id: string;
  name: string;
  /** Its place in the account's list of groups, 0 first (appended on creation). */
  position: number;
  member_ids: string[];
  created_at: Date;
  modified_at: Date;
}

const ACTION_COLUMNS = sql.raw('a.id, a.text, a.status, a.days_after, a.time, a.group_id, a.created_at, a.modified_at');
const GROUP_COLUMNS = sql.raw(`g.id, g.name, g.position, g.created_at, g.modified_at,
  coalesce((SELECT array_agg(m.id ORDER BY m.group_position, m.id) FROM crm.predefined_actions m WHERE m.group_id = g.id), '{}') AS member_ids`);

const ACTION_LIST: AccountList = {
  from: sql.raw('crm.predefined_actions a'),
  alias: 'a',
  columns: ACTION_COLUMNS,
  orderBy: sql.raw('a.created_at, a.id'),
};

const GROUP_LIST: AccountList = {
  from: sql.raw('crm.predefined_action_groups g'),
  alias: 'g',
  columns: GROUP_COLUMNS,
  orderBy: sql.raw('g.position, g.id'),
};

@Injectable()
export class PredefinedActionsRepository {
  /** One page of templates by creation. */
  page(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    return accountPage<PredefinedActionRow>(db, ACTION_LIST, accountId, time, page, perPage);
  }

  find(db: Db, accountId: string, id: string, lock = false): Promise<PredefinedActionRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${ACTION_COLUMNS} FROM crm.predefined_actions a WHERE a.id = ${id} AND a.account_id = ${accountId} ${lock ? sql`FOR UPDATE` : sql.empty}`,
    );
  }

  async insert(
    db: Db,
    accountId: string,
    id: string,
    template: { text: string; status: string; days_after: number; time: string | null },
  ): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.predefined_actions (id, account_id, text, status, days_after, time)
          VALUES (${id}, ${accountId}, ${template.text}, ${template.status}, ${template.days_after}, ${template.time})`,
    );
  }

  /** Deletes a template; returns how many members its group keeps. */
  async delete(db: Db, action: PredefinedActionRow): Promise<number> {
    await execute(db, sql`DELETE FROM crm.predefined_actions WHERE id = ${action.id}`);
    if (!action.group_id) return 0;
    const row = await one<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM crm.predefined_actions WHERE group_id = ${action.group_id}`,
    );
    return row.n;
  }

  /** The templates among `ids` of the account, locked while they are grouped. */
  lockForGrouping(db: Db, accountId: string, ids: readonly string[]): Promise<Array<{ id: string; group_id: string | null }>> {
    return many(
      db,
      sql`SELECT id, group_id FROM crm.predefined_actions WHERE account_id = ${accountId} AND id = ANY(${ids}::varchar[]) FOR UPDATE`,
    );
  }

  pageGroups(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    return accountPage<PredefinedActionGroupRow>(db, GROUP_LIST, accountId, time, page, perPage);
  }

  findGroup(db: Db, accountId: string, id: string, lock = false): Promise<PredefinedActionGroupRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${GROUP_COLUMNS} FROM crm.predefined_action_groups g WHERE g.id = ${id} AND g.account_id = ${accountId} ${lock ? sql`FOR UPDATE OF g` : sql.empty}`,
    );
  }

  async update(db: Db, id: string, template: { text: string; status: string; days_after: number; time: string | null }): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.predefined_actions SET text = ${template.text}, status = ${template.status}, days_after = ${template.days_after},
          time = ${template.time}, modified_at = now() WHERE id = ${id}`,
    );
  }

  /** The group's members become exactly `memberIds`, in that order; the others leave it. */
  async setGroupMembers(db: Db, groupId: string, memberIds: readonly string[]): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.predefined_actions SET group_id = NULL, group_position = NULL, modified_at = now()
          WHERE group_id = ${groupId} AND NOT (id = ANY(${memberIds}::varchar[]))`,
    );
    await execute(
      db,
      sql`UPDATE crm.predefined_actions a SET group_id = ${groupId}, group_position = m.position - 1, modified_at = now()
          FROM unnest(${memberIds}::varchar[]) WITH ORDINALITY AS m(id, position) WHERE a.id = m.id`,
    );
  }

  async renameGroup(db: Db, groupId: string, name: string): Promise<void> {
    await execute(db, sql`UPDATE crm.predefined_action_groups SET name = ${name}, modified_at = now() WHERE id = ${groupId}`);
  }

  /** A new group of `memberIds`, in that order. */
  async insertGroup(db: Db, accountId: string, id: string, name: string, memberIds: readonly string[]): Promise<void> {
    // Appended after the account's last group (two created at once may share a position; the id orders them).
    await execute(
      db,
      sql`INSERT INTO crm.predefined_action_groups (id, account_id, name, position)
          SELECT ${id}, ${accountId}, ${name}, coalesce(max(position) + 1, 0) FROM crm.predefined_action_groups WHERE account_id = ${accountId}`,
    );
    await execute(
      db,
      sql`UPDATE crm.predefined_actions a SET group_id = ${id}, group_position = m.position - 1, modified_at = now()
          FROM unnest(${memberIds}::varchar[]) WITH ORDINALITY AS m(id, position) WHERE a.id = m.id`,
    );
  }

  /** Deletes a group; its templates stay, ungrouped. */
  async deleteGroup(db: Db, groupId: string): Promise<void> {
    await execute(db, sql`UPDATE crm.predefined_actions SET group_position = NULL, modified_at = now() WHERE group_id = ${groupId}`);
    await execute(db, sql`DELETE FROM crm.predefined_action_groups WHERE id = ${groupId}`);
  }
}
