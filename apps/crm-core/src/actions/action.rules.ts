import {
  ApiError,
  ErrorName,
  NEXT_ACTION_STATUSES,
  QUEUED_ACTION_STATUSES,
  type ActionStatus,
  type WritableActionStatus,
} from '@crm/contracts';
import { plainDateOf } from '../records/record-common';

/**
 * The action queue (decisions.md "Deals and actions"): per contact and assignee at most one next
 * action (`asap`, `date`, `date_time`, `waiting`; position 0) and a queue of `queued` (undated)
 * and `queued_with_date` actions at positions 1..n. These are its rules, without I/O; actions.service.ts applies them.
 */

/** Whether an action of this status is a next action (not queued, not done). */
export function isNext(status: ActionStatus): boolean {
  return NEXT_ACTION_STATUSES.includes(status);
}

/** Whether an action of this status waits in the queue behind the next action. */
export function isQueued(status: ActionStatus): boolean {
  return QUEUED_ACTION_STATUSES.includes(status);
}

/** Statuses without a date: `asap` (the most urgent next action), `waiting` (the least) and `queued`. */
function isUndated(status: WritableActionStatus): boolean {
  return status === 'asap' || status === 'waiting' || status === 'queued';
}

/** An exact time as sent: 0 (what an action without a time answers) means none, so a client can send back what it read. */
export function sentTime(value: number | null | undefined): number | null | undefined {
  return value === 0 ? null : value;
}

/** When an action is due: its status with the date and exact time that status needs. */
export interface Schedule {
  status: WritableActionStatus;
  date: string | null;
  exact_time: number | null;
}

/** What the rules read of a stored action. */
export interface ActionState {
  id: string;
  assignee_id: string;
  status: ActionStatus;
  date: string | Date | null;
  exact_time: string | number | null;
  position: number;
  done: boolean;
  externally_controlled: boolean;
  status_before_done?: ActionStatus | null;
}

/** How long a deleted action can be restored with DELETE /actions/{id}?undo=true; older deletions are purged. */
export const ACTION_UNDO_DAYS = 30;

export function numberOrNull(value: string | number | null): number | null {
  return value === null ? null : Number(value);
}

/** The UTC day of Unix seconds, `YYYY-MM-DD`. */
function dayOfSeconds(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 10);
}

/**
 * The schedule a status needs (the status defaults to date_time with an exact time, date with a
 * date, else waiting): `date` and `queued_with_date` need a date (queued_with_date takes an exact
 * time's day); `date_time` an exact_time (its date defaults to that time's UTC day); `asap`,
 * `waiting` and `queued` have neither. 400 naming the missing field.
 */
export function scheduleOf(status: WritableActionStatus | undefined, date: string | null, sentExactTime: number | null): Schedule {
  const exactTime = sentTime(sentExactTime) ?? null;
  const resolved: WritableActionStatus = status ?? (exactTime !== null ? 'date_time' : date !== null ? 'date' : 'waiting');
  switch (resolved) {
    case 'date':
      if (!date) throw ApiError.invalid({ date: 'date is required for status date' });
      return { status: resolved, date, exact_time: null };
    case 'date_time':
      if (exactTime === null) throw ApiError.invalid({ exact_time: 'exact_time is required for status date_time' });
      return { status: resolved, date: date ?? dayOfSeconds(exactTime), exact_time: exactTime };
    case 'queued_with_date':
      if (!date && exactTime === null) throw ApiError.invalid({ date: 'date is required for status queued_with_date' });
      return { status: resolved, date: date ?? dayOfSeconds(exactTime!), exact_time: exactTime };
    case 'asap':
    case 'queued':
      return { status: resolved, date: null, exact_time: null };
    default:
      return { status: 'waiting', date: null, exact_time: null };
  }
}

/**
 * The schedule after a partial change: the fields sent over the current ones. A new exact_time
 * without a date moves the date to that time's UTC day (except for status `date`, which has no time).
 */
export function mergedSchedule(
  status: WritableActionStatus | undefined,
  sent: { date?: string | null; exact_time?: number | null },
  current: Pick<ActionState, 'date' | 'exact_time'>,
): Schedule {
  const time = sentTime(sent.exact_time);
  const exactTime = time !== undefined ? time : numberOrNull(current.exact_time);
  const movedTime = time !== undefined && time !== null && sent.date === undefined && status !== 'date';
  const date = sent.date !== undefined ? sent.date : movedTime ? null : plainDateOf(current.date);
  return scheduleOf(status, date, exactTime);
}

export function sameSchedule(schedule: Schedule, action: Pick<ActionState, 'status' | 'date' | 'exact_time'>): boolean {
  return (
    schedule.status === action.status &&
    schedule.date === plainDateOf(action.date) &&
    schedule.exact_time === numberOrNull(action.exact_time)
  );
}

/** The schedule an open action has now. */
export function currentSchedule(action: Pick<ActionState, 'status' | 'date' | 'exact_time'>): Schedule {
  return { status: action.status as WritableActionStatus, date: plainDateOf(action.date), exact_time: numberOrNull(action.exact_time) };
}

/**
 * The schedule of PUT /actions/{id} for an open action, or null when it keeps its own: a replace
 * (PUT) sets status, date and exact_time from the request (defaults when absent); a partial change
 * merges the fields sent over the current ones. A completed action keeps its schedule.
 */
export function updatedSchedule(
  action: Pick<ActionState, 'status' | 'date' | 'exact_time'>,
  sent: { status?: WritableActionStatus | null; date?: string | null; exact_time?: number | null },
  partial: boolean,
): Schedule | null {
  const scheduleSent = sent.status !== undefined || sent.date !== undefined || sent.exact_time !== undefined;
  if (action.status === 'done' || (!scheduleSent && partial)) return null;
  const status = sent.status !== undefined ? (sent.status ?? undefined) : partial ? (action.status as WritableActionStatus) : undefined;
  return partial ? mergedSchedule(status, sent, action) : scheduleOf(status, sent.date ?? null, sent.exact_time ?? null);
}

/**
 * The position a queued action takes in a queue of `others` other actions: the one asked
 * (clamped to 1..others+1), else where it was when it stays in the same queue, else the end.
 */
export function queueSlot(wanted: number | null, others: number, stayedAt: number | null): number {
  const position = wanted ?? stayedAt ?? others + 1;
  return Math.max(1, Math.min(position, others + 1));
}

/**
 * Externally controlled actions refuse changes of text, done and schedule (409) until unlinked;
 * the same values sent again are not a change.
 */
export function assertExternalUnchanged(
  action: Pick<ActionState, 'externally_controlled' | 'done' | 'status' | 'date' | 'exact_time'> & { text: string },
  text: string,
  done: boolean | null | undefined,
  schedule: Schedule | null,
): void {
  if (!action.externally_controlled) return;
  const changes =
    text !== action.text ||
    (done !== undefined && done !== null && done !== action.done) ||
    (schedule !== null && !sameSchedule(schedule, action));
  if (changes)
    throw conflict(
      'This action is controlled by an external provider: its text, date, exact_time, status and done cannot change until it is unlinked',
    );
}

/**
 * The schedule a reopened (undone) action gets back: the status it had before completion (a
 * former `done` or none: `date` when it has a date, else `waiting`), its date (today if it had
 * none; `asap` and `waiting` have none) and exact time.
 */
export function reopenedSchedule(action: Pick<ActionState, 'status_before_done' | 'date' | 'exact_time'>, today: string): Schedule {
  const date = plainDateOf(action.date);
  const former: WritableActionStatus =
    action.status_before_done && action.status_before_done !== 'done'
      ? (action.status_before_done as WritableActionStatus)
      : date
        ? 'date'
        : 'waiting';
  return scheduleOf(former, isUndated(former) ? null : (date ?? today), numberOrNull(action.exact_time));
}

/**
 * Swap: the queued action becomes the next action and the next action takes its place. Only a
 * queued action (409); both must be the caller's (403); there must be a next action (409), dated
 * after the queued one (a date conflict, 409 otherwise); neither externally controlled (409).
 */
export function assertSwappable(
  queued: Pick<ActionState, 'status' | 'assignee_id' | 'date' | 'externally_controlled'>,
  next: Pick<ActionState, 'assignee_id' | 'date' | 'externally_controlled'> | undefined,
  userId: string,
): asserts next is Pick<ActionState, 'assignee_id' | 'date' | 'externally_controlled'> {
  if (queued.status !== 'queued_with_date') throw conflict('Only a queued action can be swapped with the next action');
  if (queued.assignee_id !== userId || (next && next.assignee_id !== userId))
    throw new ApiError(ErrorName.NoPermission, 'Only your own actions can be swapped');
  if (!next) throw conflict('There is no next action to swap with');
  if (!isDateConflict(queued, next)) throw conflict('There is no date conflict: the queued action is not dated before the next action');
  if (queued.externally_controlled || next.externally_controlled)
    throw conflict('An externally controlled action cannot be swapped; unlink it first');
}

/**
 * Promote: only the caller's own action (403), a queued one or already the next action (409 for a
 * completed one), and only while the caller has no other next action on the contact (409: swap).
 */
export function assertPromotable(
  action: Pick<ActionState, 'id' | 'status' | 'assignee_id'>,
  next: Pick<ActionState, 'id'> | undefined,
  userId: string,
): void {
  if (action.assignee_id !== userId) throw new ApiError(ErrorName.NoPermission, 'Only your own actions can be promoted');
  if (next?.id === action.id) return;
  if (!isQueued(action.status)) throw conflict('Only a queued action can be promoted to the next action');
  if (next) throw conflict('There is a next action already; swap the queued action with it instead');
}

/** A queued action dated before the next action is a date conflict (`next_action_conflicts`). */
export function isDateConflict(queued: Pick<ActionState, 'date'>, next: Pick<ActionState, 'date'>): boolean {
  const queuedDate = plainDateOf(queued.date);
  const nextDate = plainDateOf(next.date);
  return queuedDate !== null && nextDate !== null && queuedDate < nextDate;
}

/**
 * The status a queued action takes when it becomes the next action: an undated one (`queued`)
 * becomes `asap` (it is next and due now); a dated one date_time with an exact time, else date.
 */
export function promotedStatus(action: Pick<ActionState, 'status' | 'exact_time'>): 'asap' | 'date' | 'date_time' {
  if (action.status === 'queued') return 'asap';
  return action.exact_time === null ? 'date' : 'date_time';
}

/** A next action replaced by a new one moves to the front of the queue unless it is externally controlled (409). */
export function assertReplaceable(current: Pick<ActionState, 'externally_controlled'>): void {
  if (current.externally_controlled)
    throw conflict(
      "The assignee's next action is controlled by an external provider; unlink it, or queue this action (status queued_with_date)",
    );
}

/** The external provider and id of PUT /actions/external/{provider}/{external_id}, trimmed (400 when empty). */
export function externalKey(provider: string, externalId: string): { provider: string; externalId: string } {
  const key = { provider: provider.trim(), externalId: externalId.trim() };
  if (!key.provider) throw ApiError.invalid({ provider: 'provider must not be empty' });
  if (!key.externalId) throw ApiError.invalid({ external_id: 'external_id must not be empty' });
  return key;
}

export function conflict(message: string): ApiError {
  return new ApiError(ErrorName.Conflict, message);
}
