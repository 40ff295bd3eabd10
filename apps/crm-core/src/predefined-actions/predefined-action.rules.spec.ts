import { ErrorName } from '@crm/contracts';
import {
  checkGroupable,
  checkPredefinedAction,
  groupDissolves,
  groupMemberIds,
  regroupable,
  updatedTemplate,
} from './predefined-action.rules';

const A = 'a'.repeat(24);
const B = 'b'.repeat(24);

describe('predefined action rules', () => {
  it('a date_time template needs a time, and only it may have one', () => {
    expect(() => checkPredefinedAction({ status: 'date_time', days_after: 1 })).toThrow(
      expect.objectContaining({ errorName: ErrorName.InvalidRequestData, errors: { time: expect.any(String) } }),
    );
    expect(() => checkPredefinedAction({ status: 'date_time', days_after: 1, time: '09:00' })).not.toThrow();
    expect(() => checkPredefinedAction({ status: 'date', days_after: 1, time: '09:00' })).toThrow(
      expect.objectContaining({ errors: { time: expect.any(String) } }),
    );
    expect(() => checkPredefinedAction({ status: 'date', days_after: 3, time: null })).not.toThrow();
  });

  it('a waiting template has no date', () => {
    expect(() => checkPredefinedAction({ status: 'waiting', days_after: 2 })).toThrow(
      expect.objectContaining({ errors: { days_after: expect.any(String) } }),
    );
    expect(() => checkPredefinedAction({ status: 'waiting', days_after: 0 })).not.toThrow();
  });

  it('a group names each template once, in any letter case', () => {
    expect(groupMemberIds([A.toUpperCase(), B])).toEqual([A, B]);
    expect(() => groupMemberIds([A, A.toUpperCase()])).toThrow(
      expect.objectContaining({ errors: { predefined_action_ids: expect.any(String) } }),
    );
  });

  it('groups only ungrouped templates of the account', () => {
    expect(() => checkGroupable([A, B], [{ id: A, group_id: null }])).toThrow(
      expect.objectContaining({ errorName: ErrorName.ResourceNotFound }),
    );
    expect(() =>
      checkGroupable(
        [A, B],
        [
          { id: A, group_id: null },
          { id: B, group_id: 'g' },
        ],
      ),
    ).toThrow(expect.objectContaining({ errorName: ErrorName.InvalidRequestData }));
    expect(() =>
      checkGroupable(
        [A, B],
        [
          { id: A, group_id: null },
          { id: B, group_id: null },
        ],
      ),
    ).not.toThrow();
  });

  it('dissolves a group left with fewer than two members', () => {
    expect(groupDissolves(1)).toBe(true);
    expect(groupDissolves(0)).toBe(true);
    expect(groupDissolves(2)).toBe(false);
  });
});

describe('updatedTemplate', () => {
  const current = { text: 'Call', status: 'date_time' as const, days_after: 2, time: '09:30' };

  it('a PUT replaces: absent status, days_after and time take their create defaults', () => {
    expect(updatedTemplate(current, { text: 'Email' })).toEqual({ text: 'Email', status: 'date', days_after: 0, time: null });
  });

  it('partial=true keeps what is not sent, but drops a time the new status cannot have', () => {
    expect(updatedTemplate(current, { partial: true, text: 'Call back' })).toEqual({ ...current, text: 'Call back' });
    expect(updatedTemplate(current, { partial: true, status: 'waiting', days_after: 0 })).toEqual({
      text: 'Call',
      status: 'waiting',
      days_after: 0,
      time: null,
    });
  });

  it('members of the group being changed count as ungrouped', () => {
    expect(
      regroupable('g', [
        { id: 'a', group_id: 'g' },
        { id: 'b', group_id: 'h' },
        { id: 'c', group_id: null },
      ]),
    ).toEqual([
      { id: 'a', group_id: null },
      { id: 'b', group_id: 'h' },
      { id: 'c', group_id: null },
    ]);
  });
});
