import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ActionIdRequest,
  ApiError,
  CreateActionRequest,
  ErrorName,
  ExternalActionRequest,
  ListActionsRequest,
  UpdateActionRequest,
  type ActionDto,
  type ActionReply,
  type ActionStatus,
  type Caller,
  type ListActionsReply,
  type WritableActionStatus,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { writeEvent } from '../outbox/outbox';
import { findContact, findUsers, normalizeId, parseRecord, plainDateOf, todayUtc, type ContactRef } from '../records/record-common';
import { listPage } from '../records/record-list';
import { ACTION_COLUMNS, toActionDto, type ActionRow } from './action.serializer';

const NEXT_STATUSES: readonly ActionStatus[] = ['date', 'date_time', 'waiting'];
const isNext = (status: ActionStatus) => NEXT_STATUSES.includes(status);
const SELECT = `SELECT ${ACTION_COLUMNS.map((c) => `a.${c}`).join(', ')}, a.status_before_done, a.external_provider, a.external_id FROM crm.actions a`;

interface StoredAction extends ActionRow {
  status_before_done: ActionStatus | null;
  external_provider: string | null;
  external_id: string | null;
}

/** When an action is due: its status with the date and exact time that status needs. */
interface Schedule {
  status: WritableActionStatus;
  date: string | null;
  exact_time: number | null;
}

/** A change to announce once the transaction's writes are done: `updated` for actions moved as a side effect. */
type Touched = Map<string, 'created' | 'updated' | 'completed'>;

/**
 * Next and queued actions (decisions.md "Deals and actions"). Per contact and assignee there is
 * at most one next action (`date`, `date_time`, `waiting`; position 0) and a queue of
 * `queued_with_date` actions at positions 1..n. Every write locks the contact row first, so
 * writes for one contact apply one after the other and the unique index `actions_next_uq` is
 * never raced: a new next action replaces the current one, which moves to the front of the queue.
 */
@Injectable()
export class ActionsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListActionsReply> {
    const request = parseRecord(ListActionsRequest, payload);
    const { rows, page } = await listPage<ActionRow>(this.dataSource.manager, caller.account_id, request, {
      select: `${SELECT} JOIN crm.contacts c ON c.id = a.contact_id`,
      table: 'crm.actions',
      alias: 'a',
      defaultOrder: "(a.status = 'done'), a.date NULLS LAST, a.exact_time NULLS LAST, a.position, a.created_at, a.id",
      dateColumns: new Set(['date']),
      extra: (params) => {
        const out: string[] = [];
        if (request.assignee_id) {
          params.push(request.assignee_id.trim().toLowerCase());
          out.push(`a.assignee_id = $${params.length}`);
        }
        if (request.status) {
          params.push(request.status);
          out.push(`a.status = $${params.length}`);
        }
        if (request.done !== undefined) {
          params.push(request.done);
          out.push(`a.done = $${params.length}`);
        }
        return out;
      },
    });
    return {
      actions: rows.map((row) => ({ action: toActionDto(row) })),
      ...page,
    };
  }

  async get(caller: Caller, payload: unknown): Promise<ActionReply> {
    const { action_id } = parseRecord(ActionIdRequest, payload);
    const id = normalizeId(action_id);
    const [row]: StoredAction[] = id
      ? await this.dataSource.query(
          `${SELECT} JOIN crm.contacts c ON c.id = a.contact_id WHERE a.id = $1 AND a.account_id = $2 AND c.deleted_at IS NULL`,
          [id, caller.account_id],
        )
      : [];
    if (!row) throw ApiError.notFound('Action not found');
    return { action: toActionDto(row) };
  }

  /** POST /actions: a next action replaces the assignee's current one (queued at the front); a queued one goes to `position` (default: the end). */
  async create(caller: Caller, payload: unknown): Promise<ActionReply> {
    const request = parseRecord(CreateActionRequest, payload);
    if (request.text === undefined) throw ApiError.invalid({ text: 'text is required' });
    const text = request.text;
    return this.dataSource.transaction(async (m) => {
      const contact = await findContact(m, caller.account_id, request.contact_id, { lock: true });
      const assignee = await this.assignee(m, caller, request.assignee_id);
      const schedule = scheduleOf(request.status ?? undefined, request.date ?? null, request.exact_time ?? null);
      const id = newId();
      const touched: Touched = new Map([[id, 'created']]);
      await m.query(
        'INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, exact_time, position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
        [
          id,
          caller.account_id,
          contact.id,
          assignee,
          text,
          // Inserted as queued at the end, then placed (a next action takes its slot in place()).
          'queued_with_date',
          schedule.date ?? todayUtc(),
          schedule.exact_time,
          1_000_000,
        ],
      );
      await this.place(m, { id, contact_id: contact.id, assignee_id: assignee }, schedule, request.position ?? null, null, touched);
      return { action: await this.finish(m, caller, contact, id, touched) };
    });
  }

  /**
   * PUT /actions/{id} (replace; `partial=true`: only the fields sent). `done` true completes the
   * action, false undoes a completion. A completed action keeps its schedule: only its text and
   * assignee change. Externally controlled actions refuse changes of text, date, exact_time,
   * status and done (409) until unlinked.
   */
  async update(caller: Caller, payload: unknown): Promise<ActionReply> {
    const request = parseRecord(UpdateActionRequest, payload);
    const partial = request.partial === true;
    if (!partial && (request.text === undefined || request.text === null)) throw ApiError.invalid({ text: 'text is required' });
    return this.dataSource.transaction(async (m) => {
      const { contact, action } = await this.lockAction(m, caller.account_id, request.action_id);
      const touched: Touched = new Map([[action.id, 'updated']]);
      const text = request.text ?? action.text;
      // PUT: an absent assignee takes its create default, the caller.
      const assignee = request.assignee_id || !partial ? await this.assignee(m, caller, request.assignee_id) : action.assignee_id;
      const scheduleSent = request.status !== undefined || request.date !== undefined || request.exact_time !== undefined;
      let schedule: Schedule | null = null;
      if (action.status !== 'done' && (scheduleSent || !partial)) {
        const status =
          request.status !== undefined ? (request.status ?? undefined) : partial ? (action.status as WritableActionStatus) : undefined;
        schedule = partial ? mergedSchedule(status, request, action) : scheduleOf(status, request.date ?? null, request.exact_time ?? null);
      }
      if (action.externally_controlled) {
        const changes =
          text !== action.text ||
          (request.done !== undefined && request.done !== null && request.done !== action.done) ||
          (schedule !== null && !sameSchedule(schedule, action));
        if (changes)
          throw conflict(
            'This action is controlled by an external provider: its text, date, exact_time, status and done cannot change until it is unlinked',
          );
      }
      if (action.status === 'done' && request.done === false) {
        await this.undo(m, action, touched);
        const restored = await this.reload(m, action.id);
        Object.assign(action, restored);
      }
      await m.query('UPDATE crm.actions SET text = $2, modified_at = now() WHERE id = $1', [action.id, text]);
      if (action.status !== 'done') {
        const target = schedule ?? {
          status: action.status as WritableActionStatus,
          date: plainDateOf(action.date),
          exact_time: numberOrNull(action.exact_time),
        };
        const moved =
          assignee !== action.assignee_id || !sameSchedule(target, action) || (request.position !== undefined && request.position !== null);
        if (moved) {
          await m.query('UPDATE crm.actions SET assignee_id = $2 WHERE id = $1', [action.id, assignee]);
          await this.place(
            m,
            {
              id: action.id,
              contact_id: action.contact_id,
              assignee_id: assignee,
            },
            target,
            request.position ?? null,
            action,
            touched,
          );
        }
        if (request.done === true) await this.complete(m, await this.reload(m, action.id), touched);
      } else if (assignee !== action.assignee_id) {
        await m.query('UPDATE crm.actions SET assignee_id = $2 WHERE id = $1', [action.id, assignee]);
      }
      return {
        action: await this.finish(m, caller, contact, action.id, touched),
      };
    });
  }

  /** Deletes an action; a deleted next action is followed by the first queued one. */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    const { action_id } = parseRecord(ActionIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const { contact, action } = await this.lockAction(m, caller.account_id, action_id);
      if (action.externally_controlled) throw conflict('This action is controlled by an external provider; unlink it before deleting it');
      const touched: Touched = new Map();
      await m.query('DELETE FROM crm.actions WHERE id = $1', [action.id]);
      if (isNext(action.status)) await this.promote(m, action.contact_id, action.assignee_id, touched);
      else await renumber(m, action.contact_id, action.assignee_id);
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'action',
        reason: 'deleted',
        record_id: action.id,
        contact_status_id: contact.status_id,
        data: { id: action.id },
      });
      await this.announce(m, caller, contact, touched);
      return {};
    });
  }

  /** Completes an action (status done, done true, done_at today); emits `completed`. Completing a completed action changes nothing. */
  async markAsDone(caller: Caller, payload: unknown): Promise<ActionReply> {
    const { action_id } = parseRecord(ActionIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const { contact, action } = await this.lockAction(m, caller.account_id, action_id);
      if (action.externally_controlled) throw conflict('This action is controlled by an external provider; unlink it before completing it');
      if (action.status === 'done') return { action: toActionDto(action) };
      const touched: Touched = new Map();
      await this.complete(m, action, touched);
      return {
        action: await this.finish(m, caller, contact, action.id, touched),
      };
    });
  }

  /** Reopens a completed action with the status it had (a next action takes its place back). */
  async undoCompletion(caller: Caller, payload: unknown): Promise<ActionReply> {
    const { action_id } = parseRecord(ActionIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const { contact, action } = await this.lockAction(m, caller.account_id, action_id);
      if (action.externally_controlled) throw conflict('This action is controlled by an external provider; unlink it first');
      if (action.status !== 'done') throw conflict('The action is not completed');
      const touched: Touched = new Map([[action.id, 'updated']]);
      await this.undo(m, action, touched);
      return {
        action: await this.finish(m, caller, contact, action.id, touched),
      };
    });
  }

  /**
   * The queued action becomes the next action and the next action takes its place in the queue:
   * both must be the caller's (403) and the queued action dated before the next action (409).
   */
  async swap(caller: Caller, payload: unknown): Promise<ActionReply> {
    const { action_id } = parseRecord(ActionIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const { contact, action: queued } = await this.lockAction(m, caller.account_id, action_id);
      if (queued.status !== 'queued_with_date') throw conflict('Only a queued action can be swapped with the next action');
      const [next]: StoredAction[] = await m.query(
        `${SELECT} WHERE a.contact_id = $1 AND a.assignee_id = $2 AND a.status IN ('date', 'date_time', 'waiting')`,
        [queued.contact_id, queued.assignee_id],
      );
      if (queued.assignee_id !== caller.user_id || (next && next.assignee_id !== caller.user_id))
        throw new ApiError(ErrorName.NoPermission, 'Only your own actions can be swapped');
      if (!next) throw conflict('There is no next action to swap with');
      const queuedDate = plainDateOf(queued.date);
      const nextDate = plainDateOf(next.date);
      if (!queuedDate || !nextDate || !(queuedDate < nextDate))
        throw conflict('There is no date conflict: the queued action is not dated before the next action');
      if (queued.externally_controlled || next.externally_controlled)
        throw conflict('An externally controlled action cannot be swapped; unlink it first');
      await m.query("UPDATE crm.actions SET status = 'queued_with_date', position = $2, modified_at = now() WHERE id = $1", [
        next.id,
        queued.position,
      ]);
      await m.query('UPDATE crm.actions SET status = $2, position = 0, modified_at = now() WHERE id = $1', [
        queued.id,
        queued.exact_time === null ? 'date' : 'date_time',
      ]);
      const touched: Touched = new Map([
        [queued.id, 'updated'],
        [next.id, 'updated'],
      ]);
      return {
        action: await this.finish(m, caller, contact, queued.id, touched),
      };
    });
  }

  /** Cuts the link to the external provider: the action becomes ordinary (nothing is sent to the provider). */
  async unlink(caller: Caller, payload: unknown): Promise<ActionReply> {
    const { action_id } = parseRecord(ActionIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const { contact, action } = await this.lockAction(m, caller.account_id, action_id);
      if (!action.externally_controlled) return { action: toActionDto(action) };
      await m.query(
        'UPDATE crm.actions SET externally_controlled = false, external_provider = NULL, external_id = NULL, modified_at = now() WHERE id = $1',
        [action.id],
      );
      return {
        action: await this.finish(m, caller, contact, action.id, new Map([[action.id, 'updated']])),
      };
    });
  }

  /**
   * PUT /actions/external/{provider}/{external_id}: creates (201) or updates (200) the action
   * mirroring an external event. An advisory lock on (account, provider, external_id) makes
   * concurrent upserts of one external event create it once.
   */
  async upsertExternal(caller: Caller, payload: unknown): Promise<{ data: ActionReply; created: boolean }> {
    const request = parseRecord(ExternalActionRequest, payload);
    const provider = request.provider.trim();
    const externalId = request.external_id.trim();
    if (!provider) throw ApiError.invalid({ provider: 'provider must not be empty' });
    if (!externalId) throw ApiError.invalid({ external_id: 'external_id must not be empty' });
    return this.dataSource.transaction(async (m) => {
      await m.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
        `action-external:${caller.account_id}:${provider}:${externalId}`,
      ]);
      const contact = await findContact(m, caller.account_id, request.contact_id, { lock: true });
      const [existing]: StoredAction[] = await m.query(
        `${SELECT} WHERE a.account_id = $1 AND a.external_provider = $2 AND a.external_id = $3`,
        [caller.account_id, provider, externalId],
      );
      if (existing && existing.contact_id !== contact.id) throw conflict('This external event is mirrored on another contact');
      const assignee = request.assignee_id
        ? await this.assignee(m, caller, request.assignee_id)
        : (existing?.assignee_id ?? caller.user_id);
      const status = request.status ?? (existing && existing.status !== 'done' ? (existing.status as WritableActionStatus) : undefined);
      const schedule = existing
        ? mergedSchedule(status, request, existing)
        : scheduleOf(status, request.date ?? null, request.exact_time ?? null);
      if (!existing) {
        if (request.text === undefined) throw ApiError.invalid({ text: 'text is required' });
        const id = newId();
        const touched: Touched = new Map([[id, 'created']]);
        await m.query(
          "INSERT INTO crm.actions (id, account_id, contact_id, assignee_id, text, status, date, exact_time, position, externally_controlled, external_provider, external_id) VALUES ($1, $2, $3, $4, $5, 'queued_with_date', $6, $7, 1000000, true, $8, $9)",
          [
            id,
            caller.account_id,
            contact.id,
            assignee,
            request.text,
            schedule.date ?? todayUtc(),
            schedule.exact_time,
            provider,
            externalId,
          ],
        );
        await this.place(m, { id, contact_id: contact.id, assignee_id: assignee }, schedule, request.position ?? null, null, touched);
        return {
          data: { action: await this.finish(m, caller, contact, id, touched) },
          created: true,
        };
      }
      const touched: Touched = new Map([[existing.id, 'updated']]);
      await m.query('UPDATE crm.actions SET text = $2, assignee_id = $3, modified_at = now() WHERE id = $1', [
        existing.id,
        request.text ?? existing.text,
        assignee,
      ]);
      if (existing.status !== 'done')
        await this.place(
          m,
          { id: existing.id, contact_id: contact.id, assignee_id: assignee },
          schedule,
          request.position ?? null,
          existing,
          touched,
        );
      return {
        data: {
          action: await this.finish(m, caller, contact, existing.id, touched),
        },
        created: false,
      };
    });
  }

  // --- internals ---

  private async assignee(m: EntityManager, caller: Caller, assigneeId: string | null | undefined): Promise<string> {
    if (!assigneeId) return caller.user_id;
    return [...(await findUsers(m, caller.account_id, [assigneeId], 'assignee_id')).keys()][0];
  }

  /** The action and its contact, the contact row locked first (the order every action write takes). */
  private async lockAction(m: EntityManager, accountId: string, actionId: string): Promise<{ contact: ContactRef; action: StoredAction }> {
    const id = normalizeId(actionId);
    const [ref]: Array<{ contact_id: string }> = id
      ? await m.query('SELECT contact_id FROM crm.actions WHERE id = $1 AND account_id = $2', [id, accountId])
      : [];
    if (!ref) throw ApiError.notFound('Action not found');
    const contact = await findContact(m, accountId, ref.contact_id, {
      lock: true,
    }).catch(() => {
      throw ApiError.notFound('Action not found');
    });
    const [action]: StoredAction[] = await m.query(`${SELECT} WHERE a.id = $1 AND a.contact_id = $2 FOR UPDATE`, [id, contact.id]);
    if (!action) throw ApiError.notFound('Action not found');
    return { contact, action };
  }

  private async reload(m: EntityManager, id: string): Promise<StoredAction> {
    const [row]: StoredAction[] = await m.query(`${SELECT} WHERE a.id = $1`, [id]);
    return row;
  }

  /**
   * Puts an action (already stored) where its schedule says: as the next action of its contact
   * and assignee (the current next action, if another, moves to the front of the queue), or in the
   * queue at `position` (default: where it was, or the end). Queues stay numbered 1..n.
   * `before` is the action's state before this write (null for a new action).
   */
  private async place(
    m: EntityManager,
    action: { id: string; contact_id: string; assignee_id: string },
    schedule: Schedule,
    position: number | null,
    before: StoredAction | null,
    touched: Touched,
  ): Promise<void> {
    const { contact_id: contactId, assignee_id: assigneeId } = action;
    const wasNext = before !== null && isNext(before.status);
    if (isNext(schedule.status)) {
      const [current]: StoredAction[] = await m.query(
        `${SELECT} WHERE a.contact_id = $1 AND a.assignee_id = $2 AND a.status IN ('date', 'date_time', 'waiting') AND a.id <> $3`,
        [contactId, assigneeId, action.id],
      );
      if (current) {
        if (current.externally_controlled)
          throw conflict(
            "The assignee's next action is controlled by an external provider; unlink it, or queue this action (status queued_with_date)",
          );
        // The replaced next action goes to the front of the queue (a waiting one gets today's date).
        await m.query(
          "UPDATE crm.actions SET status = 'queued_with_date', date = coalesce(date, $2::date), position = 0, modified_at = now() WHERE id = $1",
          [current.id, todayUtc()],
        );
        if (!touched.has(current.id)) touched.set(current.id, 'updated');
      }
      await m.query('UPDATE crm.actions SET status = $2, date = $3, exact_time = $4, position = 0, modified_at = now() WHERE id = $1', [
        action.id,
        schedule.status,
        schedule.date,
        schedule.exact_time,
      ]);
      await renumber(m, contactId, assigneeId);
    } else {
      const sameQueue = before !== null && before.status === 'queued_with_date' && before.assignee_id === assigneeId;
      // Take the action out of its queue, renumber the rest, then open a gap at the wanted place.
      await m.query(
        "UPDATE crm.actions SET status = 'queued_with_date', date = $2, exact_time = $3, position = 1000000, modified_at = now() WHERE id = $1",
        [action.id, schedule.date, schedule.exact_time],
      );
      await renumber(m, contactId, assigneeId, action.id);
      const [{ n }] = await m.query(
        "SELECT count(*)::int AS n FROM crm.actions WHERE contact_id = $1 AND assignee_id = $2 AND status = 'queued_with_date' AND id <> $3",
        [contactId, assigneeId, action.id],
      );
      const wanted = position ?? (sameQueue ? before.position : n + 1);
      const at = Math.max(1, Math.min(wanted, n + 1));
      await m.query(
        "UPDATE crm.actions SET position = position + 1 WHERE contact_id = $1 AND assignee_id = $2 AND status = 'queued_with_date' AND id <> $3 AND position >= $4",
        [contactId, assigneeId, action.id, at],
      );
      await m.query('UPDATE crm.actions SET position = $2 WHERE id = $1', [action.id, at]);
      // A next action that became queued leaves its place to the first queued action.
      if (wasNext && before.assignee_id === assigneeId) await this.promote(m, contactId, assigneeId, touched, action.id);
    }
    if (before !== null && before.assignee_id !== assigneeId) {
      if (wasNext) await this.promote(m, contactId, before.assignee_id, touched);
      else await renumber(m, contactId, before.assignee_id);
    }
  }

  /** The first queued action (other than `except`) becomes the next action, if there is no next action. */
  private async promote(
    m: EntityManager,
    contactId: string,
    assigneeId: string,
    touched: Touched,
    except: string | null = null,
  ): Promise<void> {
    const [next] = await m.query(
      "SELECT id FROM crm.actions WHERE contact_id = $1 AND assignee_id = $2 AND status IN ('date', 'date_time', 'waiting')",
      [contactId, assigneeId],
    );
    if (!next) {
      const [first] = await m.query(
        "SELECT id FROM crm.actions WHERE contact_id = $1 AND assignee_id = $2 AND status = 'queued_with_date' AND id <> coalesce($3, '') ORDER BY position, created_at, id LIMIT 1",
        [contactId, assigneeId, except],
      );
      if (first) {
        await m.query(
          "UPDATE crm.actions SET status = CASE WHEN exact_time IS NULL THEN 'date' ELSE 'date_time' END, position = 0, modified_at = now() WHERE id = $1",
          [first.id],
        );
        if (!touched.has(first.id)) touched.set(first.id, 'updated');
      }
    }
    await renumber(m, contactId, assigneeId);
  }

  private async complete(m: EntityManager, action: StoredAction, touched: Touched): Promise<void> {
    await m.query(
      "UPDATE crm.actions SET status_before_done = status, status = 'done', done = true, done_at = $2::date, modified_at = now() WHERE id = $1",
      [action.id, todayUtc()],
    );
    touched.set(action.id, 'completed');
    if (isNext(action.status)) await this.promote(m, action.contact_id, action.assignee_id, touched);
    else await renumber(m, action.contact_id, action.assignee_id);
  }

  /** Restores a completed action's former status: as next action (the current one queues up front) or in the queue. */
  private async undo(m: EntityManager, action: StoredAction, touched: Touched): Promise<void> {
    const date = plainDateOf(action.date);
    const former =
      action.status_before_done && action.status_before_done !== 'done' ? action.status_before_done : date ? 'date' : 'waiting';
    await m.query(
      "UPDATE crm.actions SET status = 'queued_with_date', date = coalesce(date, $2::date), done = false, done_at = NULL, status_before_done = NULL, position = 1000000, modified_at = now() WHERE id = $1",
      [action.id, todayUtc()],
    );
    const schedule = scheduleOf(
      former as WritableActionStatus,
      former === 'waiting' ? null : (date ?? todayUtc()),
      numberOrNull(action.exact_time),
    );
    const restored = {
      ...action,
      status: 'queued_with_date' as ActionStatus,
      position: isNext(former) ? 1 : action.position,
    };
    try {
      await this.place(m, action, schedule, isNext(former) ? null : action.position, restored, touched);
    } catch (error) {
      // Behind an externally controlled next action, the reopened next action waits at the front of the queue.
      if (!(error instanceof ApiError) || error.errorName !== ErrorName.Conflict) throw error;
      await this.place(
        m,
        action,
        {
          status: 'queued_with_date',
          date: date ?? todayUtc(),
          exact_time: numberOrNull(action.exact_time),
        },
        1,
        restored,
        touched,
      );
    }
  }

  /** Writes the events of every action the transaction touched and returns the DTO of `id`. */
  private async finish(m: EntityManager, caller: Caller, contact: ContactRef, id: string, touched: Touched): Promise<ActionDto> {
    const written = await this.announce(m, caller, contact, touched);
    return written.get(id) ?? toActionDto(await this.reload(m, id));
  }

  /** Writes the event of every action the transaction touched; returns their DTOs by id. */
  private async announce(m: EntityManager, caller: Caller, contact: ContactRef, touched: Touched): Promise<Map<string, ActionDto>> {
    const ids = [...touched.keys()];
    const rows: StoredAction[] = ids.length > 0 ? await m.query(`${SELECT} WHERE a.id = ANY($1::varchar[])`, [ids]) : [];
    const byId = new Map(rows.map((row) => [row.id, toActionDto(row)]));
    for (const [actionId, reason] of touched) {
      const action = byId.get(actionId);
      if (action)
        await writeEvent(m, {
          account_id: caller.account_id,
          type: 'action',
          reason,
          record_id: actionId,
          contact_status_id: contact.status_id,
          data: { action },
        });
    }
    return byId;
  }
}

/** Numbers a queue 1..n in its order (leaving `except` out). */
async function renumber(m: EntityManager, contactId: string, assigneeId: string, except: string | null = null): Promise<void> {
  await m.query(
    `UPDATE crm.actions a SET position = r.n FROM (
       SELECT id, row_number() OVER (ORDER BY position, created_at, id)::int AS n FROM crm.actions
       WHERE contact_id = $1 AND assignee_id = $2 AND status = 'queued_with_date' AND id <> coalesce($3, '')) r
     WHERE a.id = r.id AND a.position <> r.n`,
    [contactId, assigneeId, except],
  );
}

/**
 * The schedule a status needs (the status defaults to date_time with an exact time, date with a
 * date, else waiting): `date` and `queued_with_date` need a date; `date_time` an exact_time (its
 * date defaults to that time's UTC day); `waiting` has neither.
 */
function scheduleOf(status: WritableActionStatus | undefined, date: string | null, exactTime: number | null): Schedule {
  const resolved: WritableActionStatus = status ?? (exactTime !== null ? 'date_time' : date !== null ? 'date' : 'waiting');
  switch (resolved) {
    case 'date':
      if (!date) throw ApiError.invalid({ date: 'date is required for status date' });
      return { status: resolved, date, exact_time: null };
    case 'date_time':
      if (exactTime === null)
        throw ApiError.invalid({
          exact_time: 'exact_time is required for status date_time',
        });
      return {
        status: resolved,
        date: date ?? new Date(exactTime * 1000).toISOString().slice(0, 10),
        exact_time: exactTime,
      };
    case 'queued_with_date':
      if (!date && exactTime === null)
        throw ApiError.invalid({
          date: 'date is required for status queued_with_date',
        });
      return {
        status: resolved,
        date: date ?? new Date(exactTime! * 1000).toISOString().slice(0, 10),
        exact_time: exactTime,
      };
    default:
      return { status: 'waiting', date: null, exact_time: null };
  }
}

/**
 * The schedule after a partial change: the fields sent over the current ones. A new exact_time
 * without a date moves the date to that time's UTC day (except for status `date`, which has no time).
 */
function mergedSchedule(
  status: WritableActionStatus | undefined,
  sent: { date?: string | null; exact_time?: number | null },
  current: ActionRow,
): Schedule {
  const exactTime = sent.exact_time !== undefined ? sent.exact_time : numberOrNull(current.exact_time);
  const movedTime = sent.exact_time !== undefined && sent.exact_time !== null && sent.date === undefined && status !== 'date';
  const date = sent.date !== undefined ? sent.date : movedTime ? null : plainDateOf(current.date);
  return scheduleOf(status, date, exactTime);
}

function sameSchedule(schedule: Schedule, action: ActionRow): boolean {
  return (
    schedule.status === action.status &&
    schedule.date === plainDateOf(action.date) &&
    schedule.exact_time === numberOrNull(action.exact_time)
  );
}

function numberOrNull(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

function conflict(message: string): ApiError {
  return new ApiError(ErrorName.Conflict, message);
}
