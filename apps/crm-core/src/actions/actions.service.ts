import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  ErrorName,
  type ActionDto,
  type ActionIdRequest,
  type ActionReply,
  type Caller,
  type CreateActionRequest,
  type DeleteActionRequest,
  type ExternalActionRequest,
  type ListActionsReply,
  type ListActionsRequest,
  type UpdateActionRequest,
  type WritableActionStatus,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { writeEvent } from '../outbox/outbox';
import { normalizeId, todayUtc } from '../records/record-common';
import { findContact, findUser, type ContactRef } from '../records/record-references.repository';
import {
  ACTION_UNDO_DAYS,
  assertExternalUnchanged,
  assertPromotable,
  assertReplaceable,
  assertSwappable,
  conflict,
  currentSchedule,
  externalKey,
  isNext,
  isQueued,
  mergedSchedule,
  promotedStatus,
  queueSlot,
  reopenedSchedule,
  sameSchedule,
  scheduleOf,
  updatedSchedule,
  type Schedule,
} from './action.rules';
import { toActionDto } from './action.view';
import { ActionsRepository, type StoredAction } from './actions.repository';
import { assertIfMatch } from '../common/if-match.repository';

/** A change to announce once the transaction's writes are done: `updated` for actions moved as a side effect. */
type Touched = Map<string, 'created' | 'updated' | 'completed'>;

/**
 * Next and queued actions (decisions.md "Deals and actions"; the rules in action.rules.ts). Every
 * write locks the contact row first, so writes for one contact apply one after the other and the
 * unique index `actions_next_uq` is never raced: a new next action replaces the current one,
 * which moves to the front of the queue.
 */
@Injectable()
export class ActionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly actions: ActionsRepository,
  ) {}

  async list(caller: Caller, request: ListActionsRequest): Promise<ListActionsReply> {
    const { rows, page } = await this.actions.list(this.dataSource.manager, caller.account_id, request);
    return { actions: rows.map((row) => ({ action: toActionDto(row) })), ...page };
  }

  async get(caller: Caller, request: ActionIdRequest): Promise<ActionReply> {
    const id = normalizeId(request.action_id);
    const row = id ? await this.actions.visible(this.dataSource.manager, caller.account_id, id) : undefined;
    if (!row) throw ApiError.notFound('Action not found');
    return { action: toActionDto(row) };
  }

  /** POST /actions: a next action replaces the assignee's current one (queued at the front); a queued one goes to `position` (default: the end). */
  async create(caller: Caller, request: CreateActionRequest): Promise<ActionReply> {
    if (request.text === undefined) throw ApiError.invalid({ text: 'text is required' });
    const text = request.text;
    return this.dataSource.transaction(async (tx) => {
      const contact = await findContact(tx, caller.account_id, request.contact_id, { lock: true });
      const assignee = await this.assignee(tx, caller, request.assignee_id);
      const schedule = scheduleOf(request.status ?? undefined, request.date ?? null, request.exact_time ?? null);
      const id = newId();
      const touched: Touched = new Map([[id, 'created']]);
      await this.actions.insert(tx, {
        id,
        accountId: caller.account_id,
        contactId: contact.id,
        assigneeId: assignee,
        text,
        date: schedule.date ?? todayUtc(),
        exactTime: schedule.exact_time,
      });
      await this.place(tx, { id, contact_id: contact.id, assignee_id: assignee }, schedule, request.position ?? null, null, touched);
      return { action: await this.finish(tx, caller, contact, id, touched) };
    });
  }

  /**
   * PUT /actions/{id} (replace; `partial=true`: only the fields sent). `done` true completes the
   * action, false undoes a completion. A completed action keeps its schedule: only its text and
   * assignee change. Externally controlled actions refuse changes of text, date, exact_time,
   * status and done (409) until unlinked.
   */
  async update(caller: Caller, request: UpdateActionRequest): Promise<ActionReply> {
    const partial = request.partial === true;
    if (!partial && (request.text === undefined || request.text === null)) throw ApiError.invalid({ text: 'text is required' });
    return this.dataSource.transaction(async (tx) => {
      const { contact, action } = await this.lockAction(tx, caller.account_id, request.action_id);
      const touched: Touched = new Map([[action.id, 'updated']]);
      const text = request.text ?? action.text;
      // PUT: an absent assignee takes its create default, the caller.
      const assignee = request.assignee_id || !partial ? await this.assignee(tx, caller, request.assignee_id) : action.assignee_id;
      const schedule = updatedSchedule(action, request, partial);
      assertExternalUnchanged(action, text, request.done, schedule);
      let current = action;
      if (action.status === 'done' && request.done === false) {
        await this.undo(tx, action, touched);
        current = await this.actions.byId(tx, action.id);
      }
      await this.actions.setText(tx, current.id, text);
      if (current.status !== 'done') {
        const target = schedule ?? currentSchedule(current);
        const moved =
          assignee !== current.assignee_id ||
          !sameSchedule(target, current) ||
          (request.position !== undefined && request.position !== null);
        if (moved) {
          await this.actions.setAssignee(tx, current.id, assignee);
          await this.place(
            tx,
            { id: current.id, contact_id: current.contact_id, assignee_id: assignee },
            target,
            request.position ?? null,
            current,
            touched,
          );
        }
        if (request.done === true) await this.complete(tx, await this.actions.byId(tx, current.id), touched);
      } else if (assignee !== current.assignee_id) {
        await this.actions.setAssignee(tx, current.id, assignee);
      }
      return { action: await this.finish(tx, caller, contact, current.id, touched) };
    });
  }

  /**
   * Deletes an action; a deleted next action is followed by the first queued one. With
   * `undo=true`, restores an action deleted within ACTION_UNDO_DAYS (OnePageCRM's "repeat the same
   * request with undo=true").
   */
  async delete(caller: Caller, request: DeleteActionRequest): Promise<Record<string, never>> {
    if (request.undo === true) return this.restore(caller, request.action_id);
    return this.dataSource.transaction(async (tx) => {
      const { contact, action } = await this.lockAction(tx, caller.account_id, request.action_id);
      if (action.externally_controlled) throw conflict('This action is controlled by an external provider; unlink it before deleting it');
      const touched: Touched = new Map();
      await this.actions.delete(tx, action.id, action.contact_id, ACTION_UNDO_DAYS);
      if (isNext(action.status)) await this.promote(tx, action.contact_id, action.assignee_id, touched);
      else await this.actions.renumber(tx, action.contact_id, action.assignee_id);
      await writeEvent(tx, {
        account_id: caller.account_id,
        type: 'action',
        reason: 'deleted',
        record_id: action.id,
        contact_status_id: contact.status_id,
        data: { id: action.id },
      });
      await this.announce(tx, caller, contact, touched);
      return {};
    });
  }

  /**
   * Puts a deleted action back (event `created`, as an undeleted contact's): a completed one as it
   * was; an open one placed by its schedule as a new one would be (a next action takes its place
   * back and the current one queues up front; a queued one returns to its position). Its assignee
   * is the caller when the former one is no longer a user of the account. 404 when there is
   * nothing to restore.
   */
  private async restore(caller: Caller, actionId: string): Promise<Record<string, never>> {
    return this.dataSource.transaction(async (tx) => {
      const id = normalizeId(actionId);
      const contactId = id ? await this.actions.deletedContactOf(tx, caller.account_id, id, ACTION_UNDO_DAYS) : undefined;
      const notFound = () => ApiError.notFound(`No action deleted in the last ${ACTION_UNDO_DAYS} days to restore`);
      if (!id || !contactId) throw notFound();
      const contact = await findContact(tx, caller.account_id, contactId, { lock: true }).catch(() => {
        throw notFound();
      });
      const deleted = await this.actions.restore(tx, id, contact.id, caller.user_id, todayUtc());
      if (!deleted) throw notFound();
      const assignee = await this.formerAssignee(tx, caller, deleted.assignee_id);
      if (assignee !== caller.user_id) await this.actions.setAssignee(tx, id, assignee);
      const touched: Touched = new Map([[id, 'created']]);
      if (deleted.status !== 'done') {
        const restored = { id, contact_id: contact.id, assignee_id: assignee };
        const queued = isQueued(deleted.status);
        await this.placeOrQueue(tx, restored, currentSchedule(deleted), queued ? deleted.position : null, null, touched);
      }
      await this.announce(tx, caller, contact, touched);
      return {};
    });
  }

  /** Completes an action (status done, done true, done_at today); emits `completed`. Completing a completed action changes nothing. */
  async markAsDone(caller: Caller, request: ActionIdRequest): Promise<ActionReply> {
    return this.dataSource.transaction(async (tx) => {
      const { contact, action } = await this.lockAction(tx, caller.account_id, request.action_id);
      if (action.externally_controlled) throw conflict('This action is controlled by an external provider; unlink it before completing it');
      if (action.status === 'done') return { action: toActionDto(action) };
      const touched: Touched = new Map();
      await this.complete(tx, action, touched);
      return { action: await this.finish(tx, caller, contact, action.id, touched) };
    });
  }

  /** Reopens a completed action with the status it had (a next action takes its place back). */
  async undoCompletion(caller: Caller, request: ActionIdRequest): Promise<ActionReply> {
    return this.dataSource.transaction(async (tx) => {
      const { contact, action } = await this.lockAction(tx, caller.account_id, request.action_id);
      if (action.externally_controlled) throw conflict('This action is controlled by an external provider; unlink it first');
      if (action.status !== 'done') throw conflict('The action is not completed');
      const touched: Touched = new Map([[action.id, 'updated']]);
      await this.undo(tx, action, touched);
      return { action: await this.finish(tx, caller, contact, action.id, touched) };
    });
  }

  /**
   * The queued action becomes the next action and the next action takes its place in the queue:
   * both must be the caller's (403) and the queued action dated before the next action (409).
   */
  async swap(caller: Caller, request: ActionIdRequest): Promise<ActionReply> {
    return this.dataSource.transaction(async (tx) => {
      const { contact, action: queued } = await this.lockAction(tx, caller.account_id, request.action_id);
      const next =
        queued.status === 'queued_with_date' ? await this.actions.nextAction(tx, queued.contact_id, queued.assignee_id) : undefined;
      assertSwappable(queued, next, caller.user_id);
      const nextId = (next as StoredAction).id;
      await this.actions.queueAt(tx, nextId, queued.position);
      await this.actions.promote(tx, queued.id, promotedStatus(queued));
      const touched: Touched = new Map([
        [queued.id, 'updated'],
        [nextId, 'updated'],
      ]);
      return { action: await this.finish(tx, caller, contact, queued.id, touched) };
    });
  }

  /**
   * PUT /actions/{id}/unassign: the action leaves its assignee and becomes the caller's (OnePageCRM:
   * a blank assignee is the calling user), placed as PUT with the caller as assignee would place
   * it. Already the caller's: unchanged.
   */
  async unassign(caller: Caller, request: ActionIdRequest): Promise<ActionReply> {
    return this.dataSource.transaction(async (tx) => {
      const { contact, action } = await this.lockAction(tx, caller.account_id, request.action_id);
      if (action.assignee_id === caller.user_id) return { action: toActionDto(action) };
      const touched: Touched = new Map([[action.id, 'updated']]);
      await this.actions.setAssignee(tx, action.id, caller.user_id);
      if (action.status !== 'done')
        await this.place(
          tx,
          { id: action.id, contact_id: action.contact_id, assignee_id: caller.user_id },
          currentSchedule(action),
          null,
          action,
          touched,
        );
      return { action: await this.finish(tx, caller, contact, action.id, touched) };
    });
  }

  /**
   * PUT /actions/{id}/promote: the caller's queued action becomes the next action when the caller
   * has none on the contact (with one, swap is the way: 409). The next action already: unchanged.
   */
  async promoteAction(caller: Caller, request: ActionIdRequest): Promise<ActionReply> {
    return this.dataSource.transaction(async (tx) => {
      const { contact, action } = await this.lockAction(tx, caller.account_id, request.action_id);
      const next = await this.actions.nextAction(tx, action.contact_id, action.assignee_id);
      assertPromotable(action, next, caller.user_id);
      if (next?.id === action.id) return { action: toActionDto(action) };
      await this.actions.promote(tx, action.id, promotedStatus(action));
      await this.actions.renumber(tx, action.contact_id, action.assignee_id);
      return { action: await this.finish(tx, caller, contact, action.id, new Map([[action.id, 'updated']])) };
    });
  }

  /** PUT /actions/{id}/revert_promotion: kept for OnePageCRM's clients; as OnePageCRM documents, it changes nothing. */
  async revertPromotion(caller: Caller, request: ActionIdRequest): Promise<ActionReply> {
    return this.get(caller, request);
  }

  /** Cuts the link to the external provider: the action becomes ordinary (nothing is sent to the provider). */
  async unlink(caller: Caller, request: ActionIdRequest): Promise<ActionReply> {
    return this.dataSource.transaction(async (tx) => {
      const { contact, action } = await this.lockAction(tx, caller.account_id, request.action_id);
      if (!action.externally_controlled) return { action: toActionDto(action) };
      await this.actions.unlink(tx, action.id);
      return { action: await this.finish(tx, caller, contact, action.id, new Map([[action.id, 'updated']])) };
    });
  }

  /**
   * PUT /actions/external/{provider}/{external_id}: creates (201) or updates (200) the action
   * mirroring an external event. An advisory lock on (account, provider, external_id) makes
   * concurrent upserts of one external event create it once.
   */
  async upsertExternal(caller: Caller, request: ExternalActionRequest): Promise<{ data: ActionReply; created: boolean }> {
    const { provider, externalId } = externalKey(request.provider, request.external_id);
    return this.dataSource.transaction(async (tx) => {
      await this.actions.lockExternal(tx, caller.account_id, provider, externalId);
      const contact = await findContact(tx, caller.account_id, request.contact_id, { lock: true });
      const existing = await this.actions.byExternal(tx, caller.account_id, provider, externalId);
      if (existing && existing.contact_id !== contact.id) throw conflict('This external event is mirrored on another contact');
      const assignee = request.assignee_id
        ? await this.assignee(tx, caller, request.assignee_id)
        : (existing?.assignee_id ?? caller.user_id);
      const status = request.status ?? (existing && existing.status !== 'done' ? (existing.status as WritableActionStatus) : undefined);
      const schedule = existing
        ? mergedSchedule(status, request, existing)
        : scheduleOf(status, request.date ?? null, request.exact_time ?? null);
      if (!existing) {
        if (request.text === undefined) throw ApiError.invalid({ text: 'text is required' });
        const id = newId();
        const touched: Touched = new Map([[id, 'created']]);
        await this.actions.insert(tx, {
          id,
          accountId: caller.account_id,
          contactId: contact.id,
          assigneeId: assignee,
          text: request.text,
          date: schedule.date ?? todayUtc(),
          exactTime: schedule.exact_time,
          external: { provider, externalId },
        });
        await this.place(tx, { id, contact_id: contact.id, assignee_id: assignee }, schedule, request.position ?? null, null, touched);
        return { data: { action: await this.finish(tx, caller, contact, id, touched) }, created: true };
      }
      const touched: Touched = new Map([[existing.id, 'updated']]);
      await this.actions.setTextAndAssignee(tx, existing.id, request.text ?? existing.text, assignee);
      if (existing.status !== 'done')
        await this.place(
          tx,
          { id: existing.id, contact_id: contact.id, assignee_id: assignee },
          schedule,
          request.position ?? null,
          existing,
          touched,
        );
      return { data: { action: await this.finish(tx, caller, contact, existing.id, touched) }, created: false };
    });
  }

  // --- internals ---

  private async assignee(db: Db, caller: Caller, assigneeId: string | null | undefined): Promise<string> {
    if (!assigneeId) return caller.user_id;
    return (await findUser(db, caller.account_id, assigneeId, 'assignee_id')).id;
  }

  /** The action and its contact, the contact row locked first (the order every action write takes). */
  private async lockAction(db: Db, accountId: string, actionId: string): Promise<{ contact: ContactRef; action: StoredAction }> {
    const id = normalizeId(actionId);
    const contactId = id ? await this.actions.contactOf(db, accountId, id) : undefined;
    if (!id || !contactId) throw ApiError.notFound('Action not found');
    const contact = await findContact(db, accountId, contactId, { lock: true }).catch(() => {
      throw ApiError.notFound('Action not found');
    });
    const action = await this.actions.lock(db, id, contact.id);
    if (!action) throw ApiError.notFound('Action not found');
    await assertIfMatch(db, 'actions', action.id);
    return { contact, action };
  }

  /**
   * Puts an action (already stored) where its schedule says: as the next action of its contact
   * and assignee (the current next action, if another, moves to the front of the queue), or in the
   * queue at `position` (default: where it was, or the end). Queues stay numbered 1..n.
   * `before` is the action's state before this write (null for a new action).
   */
  private async place(
    db: Db,
    action: { id: string; contact_id: string; assignee_id: string },
    schedule: Schedule,
    position: number | null,
    before: StoredAction | null,
    touched: Touched,
  ): Promise<void> {
    const { contact_id: contactId, assignee_id: assigneeId } = action;
    const wasNext = before !== null && isNext(before.status);
    if (isNext(schedule.status)) {
      const current = await this.actions.nextAction(db, contactId, assigneeId, action.id);
      if (current) {
        assertReplaceable(current);
        // The replaced next action goes to the front of the queue (an undated one, asap or waiting, gets today's date).
        await this.actions.queueFirst(db, current.id, todayUtc());
        if (!touched.has(current.id)) touched.set(current.id, 'updated');
      }
      await this.actions.makeNext(db, action.id, schedule);
      await this.actions.renumber(db, contactId, assigneeId);
    } else {
      const sameQueue = before !== null && isQueued(before.status) && before.assignee_id === assigneeId;
      // Take the action out of its queue, renumber the rest, then open a gap at the wanted place.
      await this.actions.park(db, action.id, schedule);
      await this.actions.renumber(db, contactId, assigneeId, action.id);
      const others = await this.actions.queueLength(db, contactId, assigneeId, action.id);
      await this.actions.insertInQueue(
        db,
        contactId,
        assigneeId,
        action.id,
        queueSlot(position, others, sameQueue ? before.position : null),
      );
      // A next action that became queued leaves its place to the first queued action.
      if (wasNext && before.assignee_id === assigneeId) await this.promote(db, contactId, assigneeId, touched, action.id);
    }
    if (before !== null && before.assignee_id !== assigneeId) {
      if (wasNext) await this.promote(db, contactId, before.assignee_id, touched);
      else await this.actions.renumber(db, contactId, before.assignee_id);
    }
  }

  /** The first queued action (other than `except`) becomes the next action, if there is no next action. */
  private async promote(db: Db, contactId: string, assigneeId: string, touched: Touched, except: string | null = null): Promise<void> {
    if (!(await this.actions.nextAction(db, contactId, assigneeId))) {
      const first = await this.actions.firstQueued(db, contactId, assigneeId, except);
      if (first) {
        await this.actions.promote(db, first.id, promotedStatus(first));
        if (!touched.has(first.id)) touched.set(first.id, 'updated');
      }
    }
    await this.actions.renumber(db, contactId, assigneeId);
  }

  private async complete(db: Db, action: StoredAction, touched: Touched): Promise<void> {
    await this.actions.complete(db, action.id, todayUtc());
    touched.set(action.id, 'completed');
    if (isNext(action.status)) await this.promote(db, action.contact_id, action.assignee_id, touched);
    else await this.actions.renumber(db, action.contact_id, action.assignee_id);
  }

  /** Restores a completed action's former status: as next action (the current one queues up front) or in the queue. */
  private async undo(db: Db, action: StoredAction, touched: Touched): Promise<void> {
    const today = todayUtc();
    const schedule = reopenedSchedule(action, today);
    await this.actions.reopen(db, action.id, today);
    const toNext = isNext(schedule.status);
    const restored: StoredAction = { ...action, status: 'queued_with_date', position: toNext ? 1 : action.position };
    await this.placeOrQueue(db, action, schedule, toNext ? null : action.position, restored, touched);
  }

  /**
   * {@link place}, except that behind an externally controlled next action (which cannot be
   * replaced) an action meant to be the next one waits at the front of the queue instead.
   */
  private async placeOrQueue(...args: Parameters<ActionsService['place']>): Promise<void> {
    try {
      await this.place(...args);
    } catch (error) {
      const [db, action, schedule, , before, touched] = args;
      if (!(error instanceof ApiError) || error.errorName !== ErrorName.Conflict || !isNext(schedule.status)) throw error;
      const queued: Schedule = { status: 'queued_with_date', date: schedule.date ?? todayUtc(), exact_time: schedule.exact_time };
      await this.place(db, action, queued, 1, before, touched);
    }
  }

  /** The assignee a restored action goes back to: its former one while a user of the account, else the caller. */
  private async formerAssignee(db: Db, caller: Caller, assigneeId: string): Promise<string> {
    try {
      return (await findUser(db, caller.account_id, assigneeId, 'assignee_id')).id;
    } catch (error) {
      if (error instanceof ApiError && error.errorName === ErrorName.ResourceNotFound) return caller.user_id;
      throw error;
    }
  }

  /** Writes the events of every action the transaction touched and returns the DTO of `id`. */
  private async finish(db: Db, caller: Caller, contact: ContactRef, id: string, touched: Touched): Promise<ActionDto> {
    const written = await this.announce(db, caller, contact, touched);
    return written.get(id) ?? toActionDto(await this.actions.byId(db, id));
  }

  /** Writes the event of every action the transaction touched; returns their DTOs by id. */
  private async announce(db: Db, caller: Caller, contact: ContactRef, touched: Touched): Promise<Map<string, ActionDto>> {
    const ids = [...touched.keys()];
    const rows = ids.length > 0 ? await this.actions.byIds(db, ids) : [];
    const byId = new Map(rows.map((row) => [row.id, toActionDto(row)]));
    for (const [actionId, reason] of touched) {
      const action = byId.get(actionId);
      if (action)
        await writeEvent(db, {
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
