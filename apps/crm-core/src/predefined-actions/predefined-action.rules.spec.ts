import { ErrorName } from '@crm/contracts';
import { checkGroupable, checkPredefinedAction, groupDissolves, groupMemberIds } from './predefined-action.rules';

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
