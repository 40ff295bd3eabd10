import { api } from '@crm/testing';
import { setupE2e } from './setup';
import { fileDay } from './utc-days';

type ListBody = {
  status: number;
  data: Record<string, unknown> & { total_count: number };
  error_name?: string;
  errors?: Record<string, string>;
};

const day = (offset: number): string => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);

/**
 * The common time filters on the configuration lists (decisions.md "Paging and lists": date_filter
 * created_at/modified_at "for every list"; since/until/modified_since/unmodified_since as
 * YYYY-MM-DD or Unix seconds; date_filter with modified_since/unmodified_since is 400 naming both).
 */
describe('time filters on every list (e2e)', () => {
  const { services, admin } = setupE2e();

  beforeAll(async () => {
    const call = api(services, admin);
    expect((await call('POST', '/custom_fields', { name: 'Filtered', type: 'text' })).status).toBe(201);
    expect((await call('POST', '/lead_sources', { text: 'Filtered source' })).status).toBe(201);
    expect((await call('POST', '/filters', { name: 'Filtered filter' })).status).toBe(201);
  });

  const count = async (path: string): Promise<number> => {
    const res = await api(services, admin)<ListBody>('GET', path);
    expect(res.status).toBe(200);
    return res.body.data.total_count;
  };

  // Every row of the new account was created and modified on the file's day (or the next, past midnight).
  it.each(['/custom_fields', '/statuses', '/pipelines', '/users', '/lead_sources', '/filters'])(
    'GET %s honours since/until/modified_since/unmodified_since',
    async (list) => {
      const all = await count(list);
      expect(all).toBeGreaterThan(0);
      expect(await count(`${list}?since=${fileDay(0)}&until=${day(0)}`)).toBe(all);
      expect(await count(`${list}?date_filter=modified_at&since=${fileDay(0)}`)).toBe(all);
      expect(await count(`${list}?since=${day(1)}`)).toBe(0);
      expect(await count(`${list}?date_filter=CREATED_AT&until=${fileDay(-1)}`)).toBe(0);
      expect(await count(`${list}?modified_since=${fileDay(0)}`)).toBe(all);
      expect(await count(`${list}?unmodified_since=${fileDay(0)}`)).toBe(0);
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      expect(await count(`${list}?since=${hourAgo}`)).toBe(all);
      expect(await count(`${list}?until=${hourAgo}`)).toBe(0);
      expect(await count(`${list}?since=${fileDay(0)}&per_page=1`)).toBe(all);
    },
  );

  it.each(['/custom_fields', '/statuses', '/users', '/relationship_types', '/predefined_actions'])(
    'GET %s refuses malformed time filters and date_filter with modified_since',
    async (list) => {
      const call = api(services, admin);
      for (const [query, fields] of [
        ['since=2026-02-30', ['since']],
        ['until=yesterday', ['until']],
        ['modified_since=bogus', ['modified_since']],
        ['unmodified_since=-5', ['unmodified_since']],
        ['date_filter=date', ['date_filter']],
        [`date_filter=created_at&modified_since=${day(0)}`, ['date_filter', 'modified_since']],
        [`date_filter=modified_at&since=${day(0)}&unmodified_since=${day(0)}`, ['date_filter', 'unmodified_since']],
      ] as const) {
        const res = await call<ListBody>('GET', `${list}?${query}`);
        expect(res.status).toBe(400);
        expect(res.body.error_name).toBe('invalid_request_data');
        expect(Object.keys(res.body.errors ?? {}).sort()).toEqual([...fields].sort());
      }
    },
  );
});
