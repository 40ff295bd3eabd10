import { emptyLetterCounts } from '@crm/contracts';
import { accountCountsOf, countFields, letterOf, streamCountsOf, tagCountsOf, teamCounts, teamLetterCounts } from './counts';
import type { ContactGroupRow } from './summary.repository';

const row = (over: Partial<ContactGroupRow>): ContactGroupRow => ({
  g_status: 1,
  g_source: 1,
  status_id: null,
  lead_source_id: null,
  owner_id: 'u1',
  letter: 'a',
  n: 0,
  n_stream: 0,
  n_starred: 0,
  n_starred_stream: 0,
  n_pending: 0,
  n_pending_stream: 0,
  ...over,
});

describe('summary counts', () => {
  it('counts any letter but a to z under 1', () => {
    expect(letterOf('B')).toBe('b');
    expect(letterOf('é')).toBe('1');
    expect(letterOf(null)).toBe('1');
  });

  it('folds the grouping sets into per-status, per-source and overall counts with the system tags', () => {
    const counts = accountCountsOf([
      row({ g_status: 0, status_id: 's1', n: 2, n_stream: 1 }),
      row({ g_status: 0, status_id: 's1', owner_id: 'u2', letter: 'b', n: 1 }),
      row({ g_source: 0, lead_source_id: 'l1', n: 2 }),
      row({ g_source: 0, lead_source_id: null, letter: 'b', n: 1 }),
      row({ n: 2, n_stream: 1, n_starred: 1, n_starred_stream: 1 }),
      row({ owner_id: 'u2', letter: 'b', n: 1, n_pending: 1 }),
    ]);
    const s1 = counts.byStatus.get('s1')!;
    expect(s1.counts).toMatchObject({ a: 2, b: 1, total_count: 3 });
    expect(s1.stream).toBe(1);
    expect(s1.team.get('u2')).toMatchObject({ b: 1, total_count: 1 });
    expect([...counts.byLeadSource.keys()]).toEqual(['l1']);
    expect(counts.all.counts.total_count).toBe(3);
    expect(counts.starred.counts).toMatchObject({ a: 1, total_count: 1 });
    expect(counts.starred.stream).toBe(1);
    expect(counts.pendingDeal.team.get('u2')).toMatchObject({ b: 1 });
  });

  it('counts tags and the action streams', () => {
    expect(tagCountsOf([{ tag_id: 't', letter: 'c', n: 3, n_stream: 2 }]).get('t')).toMatchObject({
      stream: 2,
      counts: { c: 3, total_count: 3 },
    });
    const streams = streamCountsOf([
      { g_user: 1, assignee_id: null, letter: 'a', n: 2 },
      { g_user: 0, assignee_id: 'u1', letter: 'a', n: 1 },
    ]);
    expect(streams.all).toMatchObject({ a: 2, total_count: 2 });
    expect(streams.byUser.get('u1')).toMatchObject({ a: 1, total_count: 1 });
  });

  it('lists every user of the account in team counts, zeros included: letter counts, and integers as OnePageCRM has them', () => {
    const team = new Map([['u2', { ...emptyLetterCounts(), b: 1, total_count: 1 }]]);
    expect(teamLetterCounts(['u1', 'u2'], team)).toEqual([
      { user_id: 'u1', counts: emptyLetterCounts() },
      { user_id: 'u2', counts: { ...emptyLetterCounts(), b: 1, total_count: 1 } },
    ]);
    expect(teamCounts(['u1', 'u2'], team)).toEqual([
      { user_id: 'u1', counts: 0 },
      { user_id: 'u2', counts: 1 },
    ]);
    expect(countFields(undefined, ['u1'], 'u1')).toEqual({
      counts: 0,
      total_count: 0,
      action_stream_count: 0,
      team_counts: [{ user_id: 'u1', counts: 0 }],
    });
    // counts: the caller's own contacts; total_count: the account's.
    const group = accountCountsOf([
      { g_status: 0, g_source: 1, status_id: 's', lead_source_id: null, owner_id: 'u1', letter: 'a', n: 2, n_stream: 1 },
      { g_status: 0, g_source: 1, status_id: 's', lead_source_id: null, owner_id: 'u2', letter: 'b', n: 3, n_stream: 0 },
    ] as never).byStatus.get('s');
    expect(countFields(group, ['u1', 'u2'], 'u2')).toEqual({
      counts: 3,
      total_count: 5,
      action_stream_count: 1,
      team_counts: [
        { user_id: 'u1', counts: 2 },
        { user_id: 'u2', counts: 3 },
      ],
    });
  });
});
