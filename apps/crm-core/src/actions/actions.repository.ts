import { Injectable } from '@nestjs/common';
import { NEXT_ACTION_STATUSES, QUEUED_ACTION_STATUSES, type ActionStatus, type ListActionsRequest, type PageInfo } from '@crm/contracts';
import { execute, many, maybeOne, one, sql, type Db, type SqlFragment } from '../common/sql';
import { plainDateOf } from '../records/record-common';
import { listPage } from '../records/record-list.repository';
import type { Schedule } from './action.rules';

/** Columns of crm.actions that toActionDto reads (prefix with the table alias). */
export const ACTION_COLUMNS = [
  'id',
  'assignee_id',
  'contact_id',
  'text',
  'status',
  'date',
  'exact_time',
  'position',
  'done',
  'done_at',
  'externally_controlled',
  'created_at',
  'modified_at',
] as const;

/** A crm.actions row as the API shows it. */
export interface ActionRow {
  id: string;
  assignee_id: string;
  contact_id: string;
  text: string;
  status: ActionStatus;
  /** `date` columns come back from pg as 'YYYY-MM-DD' strings (the pool sets the type parser) or Date. */
  date: string | Date | null;
  exact_time: string | number | null;
  position: number;
  done: boolean;
  done_at: string | Date | null;
  externally_controlled: boolean;
  created_at: Date | string;
  modified_at: Date | string;
}

/** A crm.actions row with the columns only writes read. */
export interface StoredAction extends ActionRow {
  status_before_done: ActionStatus | null;
  external_provider: string | null;
  external_id: string | null;
}

/** A new action: inserted queued at the end, then placed where its schedule says. */
export interface NewAction {
  id: string;
  accountId: string;
  contactId: string;
  assigneeId: string;
  text: string;
  date: string;
  exactTime: number | null;
  external?: { provider: string; externalId: string };
}

const SELECT = sql.raw(
  `SELECT ${ACTION_COLUMNS.map((c) => `a.${c}`).join(', ')}, a.status_before_done, a.external_provider, a.external_id FROM crm.actions a`,
);
/**
 * The statuses of a next action as an SQL list of literals (not parameters), so the planner matches
 * the partial unique index `actions_next_uq` (migration 1764800100000: the same four statuses).
 */
export const NEXT_STATUSES_SQL = sql.raw(`(${NEXT_ACTION_STATUSES.map((status) => `'${status}'`).join(', ')})`);

/** The queued statuses as an SQL list (`queued`, `queued_with_date`). */
const QUEUED_STATUSES_SQL = sql.raw(`(${QUEUED_ACTION_STATUSES.map((status) => `'${status}'`).join(', ')})`);

/**
 * The urgency of a next action of `alias`, for ORDER BY (smaller first): `asap` first, then dated
 * actions (by date and exact time, which the caller orders), then `waiting`, then undated queued
 * ones (`queued`).
 */
export function urgencyRank(alias: string): SqlFragment {
  return sql.raw(`CASE ${alias}.status WHEN 'asap' THEN 0 WHEN 'waiting' THEN 2 WHEN 'queued' THEN 3 ELSE 1 END`);
}
/** Where a queued action waits while it is placed (after every other). */
const PARKED = 1_000_000;

/** The queue of one contact and assignee. */
function queueOf(contactId: string, assigneeId: string): SqlFragment {
  return sql`contact_id = ${contactId} AND assignee_id = ${assigneeId}`;
}

/**
 * GET /actions' default order: done actions last, then by urgency (asap, dated by date and time,
 * waiting) and queue position. Migration 1764800900000 indexes it expression for expression after
 * `account_id`, so a page reads its rows in order; keep the two alike.
 */
const ACTION_LIST_ORDER = sql`(a.status = 'done'), (a.status <> 'asap'), a.date NULLS LAST, a.exact_time NULLS LAST, a.position, a.created_at, a.id`;

/** Every statement on crm.actions: rows, the next action, and the queue positions. */
@Injectable()
export class ActionsRepository {
  /** GET /actions: one page; done actions last, then by urgency (asap, dated by date and time, waiting) and queue position. */
  list(db: Db, accountId: string, request: ListActionsRequest): Promise<{ rows: StoredAction[]; page: PageInfo }> {
    const extra: SqlFragment[] = [];
    if (request.assignee_id) extra.push(sql`a.assignee_id = ${request.assignee_id.trim().toLowerCase()}`);
    if (request.status) extra.push(sql`a.status = ${request.status}`);
    if (request.done !== undefined) extra.push(sql`a.done = ${request.done}`);
    return listPage<StoredAction>(db, accountId, request, {
      select: sql`${SELECT} JOIN crm.contacts c ON c.id = a.contact_id`,
      from: sql`crm.actions a`,
      alias: 'a',
      defaultOrder: ACTION_LIST_ORDER,
      dateColumns: new Set(['date', 'done_at']),
      dateFilterColumns: { close_date: 'done_at' },
      extra,
    });
  }

  /** The action of the account whose contact is not deleted. */
  visible(db: Db, accountId: string, id: string): Promise<StoredAction | undefined> {
    return maybeOne<StoredAction>(
      db,
      sql`${SELECT} JOIN crm.contacts c ON c.id = a.contact_id WHERE a.id = ${id} AND a.account_id = ${accountId} AND c.deleted_at IS NULL`,
    );
  }

  byId(db: Db, id: string): Promise<StoredAction> {
    return one<StoredAction>(db, sql`${SELECT} WHERE a.id = ${id}`);
  }

  byIds(db: Db, ids: readonly string[]): Promise<StoredAction[]> {
    return many<StoredAction>(db, sql`${SELECT} WHERE a.id = ANY(${[...ids]}::varchar[])`);
  }

  /** The contact of the account's action `id` (to lock the contact first). */
  async contactOf(db: Db, accountId: string, id: string): Promise<string | undefined> {
    const row = await maybeOne<{ contact_id: string }>(
      db,
      sql`SELECT contact_id FROM crm.actions WHERE id = ${id} AND account_id = ${accountId}`,
    );
    return row?.contact_id;
  }

  /** The action, row-locked for this transaction, if it still belongs to `contactId`. */
  lock(db: Db, id: string, contactId: string): Promise<StoredAction | undefined> {
    return maybeOne<StoredAction>(db, sql`${SELECT} WHERE a.id = ${id} AND a.contact_id = ${contactId} FOR UPDATE`);
  }

  /** The action mirroring an external event. */
  byExternal(db: Db, accountId: string, provider: string, externalId: string): Promise<StoredAction | undefined> {
    return maybeOne<StoredAction>(
      db,
      sql`${SELECT} WHERE a.account_id = ${accountId} AND a.external_provider = ${provider} AND a.external_id = ${externalId}`,
    );
  }

  /** A transaction lock on one external event, so concurrent upserts of it create it once. */
  async lockExternal(db: Db, accountId: string, provider: string, externalId: string): Promise<void> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(hashtextextended(${`action-external:${accountId}:${provider}:${externalId}`}, 0))`);
  }

  /** Inserts an action queued after every other (the caller then places it). */
  async insert(db: Db, a: NewAction): Promise<void> {
    const external = a.external !== undefined;
    await execute(
      db,
      sql`INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, exact_time, position, externally_controlled,
            external_provider, external_id)
          VALUES (${a.id}, ${a.accountId}, ${a.contactId}, ${a.assigneeId}, ${a.text}, 'queued_with_date', ${a.date}, ${a.exactTime}, ${PARKED},
            ${external}, ${a.external?.provider ?? null}, ${a.external?.externalId ?? null})`,
    );
  }

  async setText(db: Db, id: string, text: string): Promise<void> {
    await execute(db, sql`UPDATE crm.actions SET text = ${text}, modified_at = now() WHERE id = ${id}`);
  }

  async setAssignee(db: Db, id: string, assigneeId: string): Promise<void> {
    await execute(db, sql`UPDATE crm.actions SET assignee_id = ${assigneeId}, modified_at = now() WHERE id = ${id}`);
  }

  async setTextAndAssignee(db: Db, id: string, text: string, assigneeId: string): Promise<void> {
    await execute(db, sql`UPDATE crm.actions SET text = ${text}, assignee_id = ${assigneeId}, modified_at = now() WHERE id = ${id}`);
  }

  /**
   * Deletes an action, keeping its row in crm.deleted_actions for `undoDays` (DELETE …?undo=true);
   * the contact's deletions older than that go for good in the same call.
   */
  async delete(db: Db, id: string, contactId: string, undoDays: number): Promise<void> {
    await execute(
      db,
      sql`WITH moved AS (DELETE FROM crm.actions a WHERE a.id = ${id} RETURNING a.*)
          INSERT INTO crm.deleted_actions (id, account_id, contact_id, action)
          SELECT m.id, m.account_id, m.contact_id, to_jsonb(m) FROM moved m
          ON CONFLICT (id) DO UPDATE SET action = EXCLUDED.action, deleted_at = now()`,
    );
    await execute(
      db,
      sql`DELETE FROM crm.deleted_actions WHERE contact_id = ${contactId} AND deleted_at < now() - make_interval(days => ${undoDays}::int)`,
    );
  }

  /** The contact of an action of the account deleted within `undoDays`; undefined otherwise. */
  async deletedContactOf(db: Db, accountId: string, id: string, undoDays: number): Promise<string | undefined> {
    const row = await maybeOne<{ contact_id: string }>(
      db,
      sql`SELECT contact_id FROM crm.deleted_actions
          WHERE id = ${id} AND account_id = ${accountId} AND deleted_at >= now() - make_interval(days => ${undoDays}::int)`,
    );
    return row?.contact_id;
  }

  /**
   * Puts a deleted action back as it was, except: an open one comes back parked (queued at the
   * end, dated today when it had no date) for its placement, and `assigneeId` is its assignee.
   * Returns the row as it was deleted; undefined when nothing is left to restore (row-locked first).
   */
  async restore(db: Db, id: string, contactId: string, assigneeId: string, today: string): Promise<StoredAction | undefined> {
    const deleted = await maybeOne<{ action: StoredAction }>(
      db,
      sql`DELETE FROM crm.deleted_actions WHERE id = ${id} AND contact_id = ${contactId} RETURNING action`,
    );
    if (!deleted) return undefined;
    const open = deleted.action.status !== 'done';
    const changes = open
      ? { assignee_id: assigneeId, status: 'queued_with_date', position: PARKED, date: plainDateOf(deleted.action.date) ?? today }
      : { assignee_id: assigneeId };
    await execute(
      db,
      sql`INSERT INTO crm.actions
          SELECT (jsonb_populate_record(NULL::crm.actions, ${JSON.stringify(deleted.action)}::jsonb || ${JSON.stringify(changes)}::jsonb
            || jsonb_build_object('modified_at', now()))).*`,
    );
    return deleted.action;
  }

  /** The next action of a contact and assignee (other than `except`). */
  nextAction(db: Db, contactId: string, assigneeId: string, except: string | null = null): Promise<StoredAction | undefined> {
    return maybeOne<StoredAction>(
      db,
      sql`${SELECT} WHERE a.contact_id = ${contactId} AND a.assignee_id = ${assigneeId} AND a.status IN ${NEXT_STATUSES_SQL} AND a.id <> coalesce(${except}::varchar, '')`,
    );
  }

  /** The first queued action of a contact and assignee (other than `except`), by position. */
  firstQueued(db: Db, contactId: string, assigneeId: string, except: string | null): Promise<StoredAction | undefined> {
    return maybeOne<StoredAction>(
      db,
      sql`${SELECT} WHERE ${queueOf(contactId, assigneeId)} AND a.status IN ${QUEUED_STATUSES_SQL} AND a.id <> coalesce(${except}::varchar, '')
          ORDER BY a.position, a.created_at, a.id LIMIT 1`,
    );
  }

  /** The action becomes the next action with `schedule` (position 0). */
  async makeNext(db: Db, id: string, schedule: Schedule): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.actions SET status = ${schedule.status}, date = ${schedule.date}, exact_time = ${schedule.exact_time}, position = 0,
            modified_at = now()
          WHERE id = ${id}`,
    );
  }

  /** A queued action becomes the next action, keeping its date and time (asap when undated, date_time with a time, else date). */
  async promote(db: Db, id: string, status: 'asap' | 'date' | 'date_time'): Promise<void> {
    await execute(db, sql`UPDATE crm.actions SET status = ${status}, position = 0, modified_at = now() WHERE id = ${id}`);
  }

  /** A replaced next action moves to the front of the queue (position 0, renumbered after); an undated one (asap, waiting) gets `today`. */
  async queueFirst(db: Db, id: string, today: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.actions SET status = 'queued_with_date', date = coalesce(date, ${today}::date), position = 0, modified_at = now() WHERE id = ${id}`,
    );
  }

  /** The action becomes queued at `position` (swap: the next action takes the queued one's place). */
  async queueAt(db: Db, id: string, position: number): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.actions SET status = 'queued_with_date', position = ${position}, modified_at = now() WHERE id = ${id}`,
    );
  }

  /** The action leaves its place: queued with `schedule`'s status (queued_with_date unless `queued`), date and time, after every other. */
  async park(db: Db, id: string, schedule: Pick<Schedule, 'date' | 'exact_time'> & { status?: Schedule['status'] }): Promise<void> {
    const status = schedule.status === 'queued' ? 'queued' : 'queued_with_date';
    await execute(
      db,
      sql`UPDATE crm.actions SET status = ${status}, date = ${schedule.date}, exact_time = ${schedule.exact_time}, position = ${PARKED},
            modified_at = now()
          WHERE id = ${id}`,
    );
  }

  /** How many queued actions a contact and assignee have, `except` left out. */
  async queueLength(db: Db, contactId: string, assigneeId: string, except: string): Promise<number> {
    const row = await one<{ n: number }>(
      db,
      sql`SELECT count(*)::int AS n FROM crm.actions WHERE ${queueOf(contactId, assigneeId)} AND status IN ${QUEUED_STATUSES_SQL} AND id <> ${except}`,
    );
    return row.n;
  }

  /** Puts the queued action `id` at `position`, moving the others from there one place down. */
  async insertInQueue(db: Db, contactId: string, assigneeId: string, id: string, position: number): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.actions SET position = position + 1
          WHERE ${queueOf(contactId, assigneeId)} AND status IN ${QUEUED_STATUSES_SQL} AND id <> ${id} AND position >= ${position}`,
    );
    await execute(db, sql`UPDATE crm.actions SET position = ${position} WHERE id = ${id}`);
  }

  /** Numbers a queue 1..n in its order (leaving `except` out). */
  async renumber(db: Db, contactId: string, assigneeId: string, except: string | null = null): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.actions a SET position = r.n FROM (
            SELECT id, row_number() OVER (ORDER BY position, created_at, id)::int AS n FROM crm.actions
            WHERE ${queueOf(contactId, assigneeId)} AND status IN ${QUEUED_STATUSES_SQL} AND id <> coalesce(${except}::varchar, '')) r
          WHERE a.id = r.id AND a.position <> r.n`,
    );
  }

  /** Completes the action: status done (the former one kept), done true, done_at `today`. */
  async complete(db: Db, id: string, today: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.actions SET status_before_done = status, status = 'done', done = true, done_at = ${today}::date, modified_at = now()
          WHERE id = ${id}`,
    );
  }

  /** Undoes a completion: the action is open again, queued after every other (an undated one dated `today`) until placed. */
  async reopen(db: Db, id: string, today: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.actions SET status = 'queued_with_date', date = coalesce(date, ${today}::date), done = false, done_at = NULL,
            status_before_done = NULL, position = ${PARKED}, modified_at = now()
          WHERE id = ${id}`,
    );
  }

  /** Cuts the link to the external provider. */
  async unlink(db: Db, id: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.actions SET externally_controlled = false, external_provider = NULL, external_id = NULL, modified_at = now() WHERE id = ${id}`,
    );
  }
}
