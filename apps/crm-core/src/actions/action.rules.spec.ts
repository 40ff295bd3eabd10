import { ApiError, ErrorName } from '@crm/contracts';
import {
  assertExternalUnchanged,
  assertPromotable,
  assertReplaceable,
  assertSwappable,
  currentSchedule,
  externalKey,
  isDateConflict,
  isNext,
  mergedSchedule,
  promotedStatus,
  queueSlot,
  reopenedSchedule,
  sameSchedule,
  scheduleOf,
  updatedSchedule,
} from './action.rules';

// 2026-11-23T15:00:00Z
const T = 1_763_910_000;
const DAY_OF_T = new Date(T * 1000).toISOString().slice(0, 10);

function failure(fn: () => unknown): { name: ErrorName; fields: string[] } {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return { name: (error as ApiError).errorName, fields: Object.keys((error as ApiError).errors ?? {}) };
  }
  throw new Error('expected an error');
}

describe('action rules', () => {
  it('next actions are asap, date, date_time and waiting; queued and done are not', () => {
    expect(['asap', 'date', 'date_time', 'waiting'].every((s) => isNext(s as never))).toBe(true);
    expect(isNext('queued_with_date')).toBe(false);
    expect(isNext('done')).toBe(false);
  });

  describe('schedules', () => {
    it('the status defaults to date_time with an exact time, date with a date, else waiting', () => {
      expect(scheduleOf(undefined, null, T)).toEqual({ status: 'date_time', date: DAY_OF_T, exact_time: T });
      expect(scheduleOf(undefined, '2026-12-01', null)).toEqual({ status: 'date', date: '2026-12-01', exact_time: null });
      expect(scheduleOf(undefined, null, null)).toEqual({ status: 'waiting', date: null, exact_time: null });
    });

    it('date needs a date and drops a time; date_time needs an exact time (its date defaults to its day)', () => {
      expect(failure(() => scheduleOf('date', null, T))).toEqual({ name: ErrorName.InvalidRequestData, fields: ['date'] });
      expect(scheduleOf('date', '2026-12-01', T)).toEqual({ status: 'date', date: '2026-12-01', exact_time: null });
      expect(failure(() => scheduleOf('date_time', '2026-12-01', null))).toEqual({
        name: ErrorName.InvalidRequestData,
        fields: ['exact_time'],
      });
      expect(scheduleOf('date_time', '2026-12-01', T)).toEqual({ status: 'date_time', date: '2026-12-01', exact_time: T });
    });

    it('queued_with_date needs a date or an exact time (its day); waiting has neither', () => {
      expect(failure(() => scheduleOf('queued_with_date', null, null)).fields).toEqual(['date']);
      expect(scheduleOf('queued_with_date', null, T)).toEqual({ status: 'queued_with_date', date: DAY_OF_T, exact_time: T });
      expect(scheduleOf('waiting', '2026-12-01', T)).toEqual({ status: 'waiting', date: null, exact_time: null });
    });

    it('asap has no date and no time (a date or time sent is dropped)', () => {
      expect(scheduleOf('asap', '2026-12-01', T)).toEqual({ status: 'asap', date: null, exact_time: null });
      expect(mergedSchedule('asap', {}, { date: '2026-12-01', exact_time: T })).toEqual({ status: 'asap', date: null, exact_time: null });
      expect(updatedSchedule({ status: 'asap', date: null, exact_time: null }, { date: '2026-12-05' }, true)).toEqual({
        status: 'asap',
        date: null,
        exact_time: null,
      });
    });

    it('exact_time 0 (what an action without a time answers) is no time', () => {
      expect(scheduleOf(undefined, '2026-12-01', 0)).toEqual({ status: 'date', date: '2026-12-01', exact_time: null });
      expect(scheduleOf('queued_with_date', '2026-12-01', 0)).toEqual({ status: 'queued_with_date', date: '2026-12-01', exact_time: null });
      expect(failure(() => scheduleOf('date_time', '2026-12-01', 0)).fields).toEqual(['exact_time']);
      // Sent back in a partial change: the time is cleared and the date stays.
      expect(mergedSchedule('queued_with_date', { exact_time: 0 }, { date: '2026-12-01', exact_time: T })).toEqual({
        status: 'queued_with_date',
        date: '2026-12-01',
        exact_time: null,
      });
    });

    it('a partial change merges the fields sent over the current ones', () => {
      const current = { date: '2026-12-01', exact_time: T };
      expect(mergedSchedule('date_time', {}, current)).toEqual({ status: 'date_time', date: '2026-12-01', exact_time: T });
      expect(mergedSchedule('date_time', { date: '2026-12-24' }, current).date).toBe('2026-12-24');
      // A new exact time without a date moves the date to that time's day...
      expect(mergedSchedule('date_time', { exact_time: T + 86_400 * 3 }, current).date).toBe(
        new Date((T + 86_400 * 3) * 1000).toISOString().slice(0, 10),
      );
      // ...except for status date, which has no time.
      expect(mergedSchedule('date', { exact_time: T + 86_400 * 3 }, current)).toEqual({
        status: 'date',
        date: '2026-12-01',
        exact_time: null,
      });
    });

    it('compares and reads schedules of stored rows (Date or string dates, numeric text times)', () => {
      const row = { status: 'date_time' as const, date: new Date('2026-12-01T00:00:00Z'), exact_time: String(T) };
      expect(currentSchedule(row)).toEqual({ status: 'date_time', date: '2026-12-01', exact_time: T });
      expect(sameSchedule({ status: 'date_time', date: '2026-12-01', exact_time: T }, row)).toBe(true);
      expect(sameSchedule({ status: 'date', date: '2026-12-01', exact_time: null }, row)).toBe(false);
    });
  });

  describe('PUT /actions/{id} schedule', () => {
    const open = { status: 'date' as const, date: '2026-12-01', exact_time: null };

    it('PATCH without schedule fields keeps the schedule; a completed action always keeps it', () => {
      expect(updatedSchedule(open, {}, true)).toBeNull();
      expect(updatedSchedule({ ...open, status: 'done' }, { status: 'waiting' }, false)).toBeNull();
    });

    it('PUT replaces it from the request (waiting without date or time)', () => {
      expect(updatedSchedule(open, {}, false)).toEqual({ status: 'waiting', date: null, exact_time: null });
      expect(updatedSchedule(open, { date: '2026-12-05' }, false)).toEqual({ status: 'date', date: '2026-12-05', exact_time: null });
    });

    it('PATCH keeps the current status unless one is sent (null: derived from date and time)', () => {
      expect(updatedSchedule(open, { date: '2026-12-09' }, true)).toEqual({ status: 'date', date: '2026-12-09', exact_time: null });
      expect(updatedSchedule(open, { status: null, exact_time: T }, true)).toEqual({ status: 'date_time', date: DAY_OF_T, exact_time: T });
      expect(updatedSchedule(open, { status: 'queued_with_date' }, true)).toMatchObject({ status: 'queued_with_date', date: '2026-12-01' });
    });
  });

  describe('queue', () => {
    it('a queued action goes where asked (clamped to 1..n+1), else where it stayed, else the end', () => {
      expect(queueSlot(null, 3, null)).toBe(4);
      expect(queueSlot(null, 3, 2)).toBe(2);
      expect(queueSlot(2, 3, 3)).toBe(2);
      expect(queueSlot(0, 3, null)).toBe(1);
      expect(queueSlot(99, 3, null)).toBe(4);
      expect(queueSlot(null, 0, null)).toBe(1);
    });

    it('a promoted action becomes date_time with an exact time, else date; an undated queued one asap', () => {
      expect(promotedStatus({ status: 'queued_with_date', exact_time: T })).toBe('date_time');
      expect(promotedStatus({ status: 'queued_with_date', exact_time: null })).toBe('date');
      expect(promotedStatus({ status: 'queued', exact_time: null })).toBe('asap');
    });

    it('queued is a queued action without a date (a date or time sent with it is dropped)', () => {
      expect(scheduleOf('queued', '2026-12-01', T)).toEqual({ status: 'queued', date: null, exact_time: null });
      expect(isNext('queued')).toBe(false);
    });

    it('an externally controlled next action is not replaced (409)', () => {
      expect(() => assertReplaceable({ externally_controlled: false })).not.toThrow();
      expect(failure(() => assertReplaceable({ externally_controlled: true })).name).toBe(ErrorName.Conflict);
    });
  });

  describe('date conflicts and swap', () => {
    const me = 'me';
    const queued = { status: 'queued_with_date' as const, assignee_id: me, date: '2026-12-01', externally_controlled: false };
    const next = { assignee_id: me, date: '2026-12-05', externally_controlled: false };

    it('a queued action dated before the next action is a date conflict', () => {
      expect(isDateConflict(queued, next)).toBe(true);
      expect(isDateConflict({ date: '2026-12-05' }, next)).toBe(false);
      expect(isDateConflict(queued, { date: null })).toBe(false);
    });

    it('swaps the caller own queued action dated before the next action', () => {
      expect(() => assertSwappable(queued, next, me)).not.toThrow();
    });

    it('refuses: not queued 409, another user 403, no next action 409, no conflict 409, externally controlled 409', () => {
      expect(failure(() => assertSwappable({ ...queued, status: 'date' }, next, me)).name).toBe(ErrorName.Conflict);
      expect(failure(() => assertSwappable(queued, next, 'other')).name).toBe(ErrorName.NoPermission);
      expect(failure(() => assertSwappable(queued, { ...next, assignee_id: 'other' }, me)).name).toBe(ErrorName.NoPermission);
      expect(failure(() => assertSwappable(queued, undefined, me)).name).toBe(ErrorName.Conflict);
      expect(failure(() => assertSwappable({ ...queued, date: '2026-12-06' }, next, me)).name).toBe(ErrorName.Conflict);
      expect(failure(() => assertSwappable(queued, { ...next, externally_controlled: true }, me)).name).toBe(ErrorName.Conflict);
    });
  });

  describe('completion', () => {
    it('an undone action gets back the status it had, its date (today if none) and time', () => {
      const today = '2026-11-23';
      expect(reopenedSchedule({ status_before_done: 'date_time', date: '2026-12-01', exact_time: T }, today)).toEqual({
        status: 'date_time',
        date: '2026-12-01',
        exact_time: T,
      });
      expect(reopenedSchedule({ status_before_done: 'queued_with_date', date: '2026-12-01', exact_time: null }, today).status).toBe(
        'queued_with_date',
      );
      expect(reopenedSchedule({ status_before_done: 'waiting', date: '2026-12-01', exact_time: null }, today)).toEqual({
        status: 'waiting',
        date: null,
        exact_time: null,
      });
      expect(reopenedSchedule({ status_before_done: 'asap', date: '2026-12-01', exact_time: null }, today)).toEqual({
        status: 'asap',
        date: null,
        exact_time: null,
      });
      // Without a former status: date when it has a date, else waiting.
      expect(reopenedSchedule({ status_before_done: null, date: '2026-12-01', exact_time: null }, today).status).toBe('date');
      expect(reopenedSchedule({ status_before_done: 'done', date: null, exact_time: null }, today).status).toBe('waiting');
    });
  });

  describe('externally controlled actions', () => {
    const action = {
      externally_controlled: true,
      done: false,
      status: 'date' as const,
      date: '2026-12-01',
      exact_time: null,
      text: 'Call',
    };

    it('refuse changes of text, done and schedule (409); the same values are no change', () => {
      expect(() => assertExternalUnchanged(action, 'Call', null, null)).not.toThrow();
      expect(() => assertExternalUnchanged(action, 'Call', false, { status: 'date', date: '2026-12-01', exact_time: null })).not.toThrow();
      expect(failure(() => assertExternalUnchanged(action, 'Other', undefined, null)).name).toBe(ErrorName.Conflict);
      expect(failure(() => assertExternalUnchanged(action, 'Call', true, null)).name).toBe(ErrorName.Conflict);
      expect(
        failure(() => assertExternalUnchanged(action, 'Call', undefined, { status: 'date', date: '2026-12-02', exact_time: null })).name,
      ).toBe(ErrorName.Conflict);
    });

    it('ordinary actions change freely', () => {
      expect(() => assertExternalUnchanged({ ...action, externally_controlled: false }, 'Other', true, null)).not.toThrow();
    });

    it('the provider and external id are trimmed and must not be empty', () => {
      expect(externalKey(' cal ', ' e1 ')).toEqual({ provider: 'cal', externalId: 'e1' });
      expect(failure(() => externalKey(' ', 'e1')).fields).toEqual(['provider']);
      expect(failure(() => externalKey('cal', '')).fields).toEqual(['external_id']);
    });
  });
});

describe('assertPromotable', () => {
  const queued = { id: 'q', status: 'queued_with_date' as const, assignee_id: 'me' };

  it("promotes the caller's queued action when the caller has no next action", () => {
    expect(() => assertPromotable(queued, undefined, 'me')).not.toThrow();
  });

  it('is a no-op for the next action itself', () => {
    expect(() => assertPromotable({ ...queued, status: 'date' }, { id: 'q' }, 'me')).not.toThrow();
  });

  it("refuses another user's action (403), a next action already there or a completed one (409)", () => {
    expect(() => assertPromotable(queued, undefined, 'you')).toThrow(
      expect.objectContaining({ errorName: 'no_permission_to_complete_action' }),
    );
    expect(() => assertPromotable(queued, { id: 'n' }, 'me')).toThrow(expect.objectContaining({ errorName: 'conflict' }));
    expect(() => assertPromotable({ ...queued, status: 'done' }, undefined, 'me')).toThrow(
      expect.objectContaining({ errorName: 'conflict' }),
    );
  });
});
