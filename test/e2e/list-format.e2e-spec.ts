import { CALL_RESULTS, DEFAULT_ACCOUNT_SETTINGS, LIST_FORMAT_HEADER } from '@crm/contracts';
import { calls, setupE2e, type Json } from './setup';

/** The four lists OnePageCRM answers as a bare array, and the key of their paged entries. */
const LISTS = [
  { path: '/users', plural: 'users', entry: 'user' },
  { path: '/statuses', plural: 'statuses', entry: 'status' },
  { path: '/lead_sources', plural: 'lead_sources', entry: 'lead_source' },
  { path: '/call_results', plural: 'call_results', entry: 'call_result' },
] as const;

/**
 * OnePageCRM's list format (docs/decisions.md "Lists: paged by default, OnePageCRM's bare arrays on
 * request"), over HTTP: GET /users, /statuses, /lead_sources and /call_results keep the spec's paged
 * `data` by default; the operator's `list_format: onepagecrm` account setting, or a request's
 * X-List-Format header, makes `data` OnePageCRM's bare array.
 */
describe('list formats (e2e)', () => {
  const { services, admin, stranger } = setupE2e({ stranger: true });
  const { call, ok } = calls(services);

  const operator = async (accountId: string, body: unknown) => {
    const res = await fetch(`${services.operatorUrl}/operator/accounts/${accountId}/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${services.operatorToken}` },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Json };
  };
  const list = async (who: typeof admin, path: string, format?: string) => {
    const res = await call(who)<Json>('GET', path, undefined, format === undefined ? {} : { [LIST_FORMAT_HEADER]: format });
    return { status: res.status, body: res.body };
  };
  const data = async (who: typeof admin, path: string, format?: string) => {
    const res = await list(who, path, format);
    if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${JSON.stringify(res.body)}`);
    return res.body.data;
  };

  /** Call result entries reduced to their id and text (their counts depend on the account's calls). */
  const idsAndTexts = (entries: Json[]) => entries.map(({ call_result: { id, text } }: Json) => ({ call_result: { id, text } }));

  /** Expects the spec's paged object: entries under the plural key, each under its entity key. */
  const expectPaged = (got: Json, { plural, entry }: (typeof LISTS)[number]) => {
    expect(Array.isArray(got)).toBe(false);
    expect(got).toEqual(expect.objectContaining({ total_count: expect.any(Number), page: 1, per_page: 10, max_page: expect.any(Number) }));
    for (const item of got[plural]) expect(Object.keys(item)).toEqual([entry]);
  };

  /** Expects OnePageCRM's shapes: `[{ user }]`, `[{ status }]`, flat lead sources, `[{ call_result }]`. */
  const expectOnePageCrm = async (who: typeof admin, format?: string) => {
    const users = await data(who, '/users', format);
    expect(Array.isArray(users)).toBe(true);
    expect(users.map((u: Json) => u.user.id)).toContain(who.user.id);
    const statuses = await data(who, '/statuses', format);
    expect(Array.isArray(statuses)).toBe(true);
    expect(statuses.find((s: Json) => s.status.status === 'lead')?.status.text).toBe('Lead');
    const leadSources = await data(who, '/lead_sources', format);
    expect(Array.isArray(leadSources)).toBe(true);
    expect(leadSources.length).toBeGreaterThan(0);
    for (const source of leadSources) expect(source).toEqual(expect.objectContaining({ id: expect.any(String), text: expect.any(String) }));
    expect(idsAndTexts(await data(who, '/call_results', format))).toEqual(CALL_RESULTS.map((call_result) => ({ call_result })));
  };

  beforeAll(async () => {
    // More than a default page of lead sources, so the unpaginated array shows it is not one page.
    for (let i = 0; i < 12; i += 1) await ok(admin, 'POST', '/lead_sources', { text: `Source ${String(i).padStart(2, '0')}` }, 201);
    await ok(stranger, 'POST', '/lead_sources', { text: 'Fair' }, 201);
  });

  it('answers the paged object by default, and bootstrap shows list_format paged', async () => {
    expect(DEFAULT_ACCOUNT_SETTINGS.list_format).toBe('paged');
    expect((await ok(admin, 'GET', '/bootstrap')).settings.list_format).toBe('paged');
    for (const shape of LISTS) expectPaged(await data(admin, shape.path), shape);
  });

  it('answers bare arrays once the operator sets list_format onepagecrm, in that account only', async () => {
    const res = await operator(admin.account.id, { settings: { list_format: 'onepagecrm' } });
    expect(res.status).toBe(200);
    expect(res.body.settings.list_format).toBe('onepagecrm');
    expect((await ok(admin, 'GET', '/bootstrap')).settings.list_format).toBe('onepagecrm');

    await expectOnePageCrm(admin);
    // Unpaginated: every lead source, not the first 10, in the list's usual order.
    const all = await data(admin, '/lead_sources');
    const paged = await data(admin, '/lead_sources', 'paged');
    expect(all).toHaveLength(paged.total_count);
    expect(all.slice(0, 10)).toEqual(paged.lead_sources.map((entry: Json) => entry.lead_source));

    for (const shape of LISTS) expectPaged(await data(stranger, shape.path), shape);
  });

  it('pages a OnePageCRM-format list as usual when page or per_page is sent, and validates the query as usual', async () => {
    expect(idsAndTexts(await data(admin, '/call_results?per_page=2&page=2'))).toEqual(
      CALL_RESULTS.slice(2, 4).map((call_result) => ({ call_result })),
    );
    expect(await data(admin, '/lead_sources?per_page=3')).toHaveLength(3);
    const future = Math.floor(Date.now() / 1000) + 86_400;
    expect(await data(admin, `/lead_sources?since=${future}`)).toEqual([]);
    const bad = await list(admin, '/statuses?per_page=0');
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty(['per_page']);
  });

  it('lets the X-List-Format header override the account setting both ways, in any letter case', async () => {
    for (const shape of LISTS) expectPaged(await data(admin, shape.path, 'PAGED'), shape);
    await expectOnePageCrm(stranger, 'OnePageCRM');
    await expectOnePageCrm(admin, 'onepagecrm');
  });

  it('refuses another header value with 400 naming the header, after authentication', async () => {
    for (const { path } of LISTS) {
      const res = await list(admin, path, 'array');
      expect({ path, status: res.status, name: res.body.error_name }).toEqual({ path, status: 400, name: 'invalid_request_data' });
      expect(res.body.errors).toHaveProperty([LIST_FORMAT_HEADER]);
    }
    const anonymous = await fetch(`${services.gatewayUrl}/api/v3/users`, { headers: { [LIST_FORMAT_HEADER]: 'array' } });
    expect(anonymous.status).toBe(401);
    // Other routes do not read it.
    expect((await call(admin)('GET', '/contacts', undefined, { [LIST_FORMAT_HEADER]: 'array' })).status).toBe(200);
  });

  it('refuses an invalid list_format setting with 400 naming settings.list_format, and keeps the setting', async () => {
    for (const value of ['array', 'ONEPAGECRM', 1]) {
      const res = await operator(admin.account.id, { settings: { list_format: value } });
      expect({ value, status: res.status, name: res.body.error_name }).toEqual({ value, status: 400, name: 'invalid_request_data' });
      expect(res.body.errors).toHaveProperty(['settings.list_format']);
    }
    expect((await ok(admin, 'GET', '/bootstrap')).settings.list_format).toBe('onepagecrm');
    expect((await operator(admin.account.id, { settings: { list_format: 'paged' } })).status).toBe(200);
    for (const shape of LISTS) expectPaged(await data(admin, shape.path), shape);
  });
});
