import { setupE2e } from './setup';
import { recordCalls, type Json } from './record-helpers';

/** The version part (base36 ms) of one of our ETags. */
const versionOf = (etag: string | null) => etag?.slice(1, etag.indexOf('.'));

/** ETags and conditional requests over HTTP (docs/decisions.md "ETags and conditional requests"). */
describe('conditional requests (e2e)', () => {
  const { services, admin } = setupE2e();
  const { call, ok, contact } = recordCalls(() => services);

  const get = (path: string, headers: Record<string, string> = {}) => call(admin)<Json>('GET', path, undefined, headers);
  const etagOf = async (path: string) => {
    const res = await get(path);
    expect(res.status).toBe(200);
    return res.headers.get('etag')!;
  };

  it('gives a GET a strong ETag of its data that holds across seconds and changes with the record', async () => {
    const person = await contact(admin);
    const first = await get(`/contacts/${person.id}`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[0-9a-z]+\.[A-Za-z0-9_-]{16}"$/);
    expect(versionOf(etag)).toBe(Date.parse(first.body.data.contact.modified_at).toString(36));
    // Until the envelope's timestamp has moved on: the ETag must not follow it.
    let again = await get(`/contacts/${person.id}`);
    while (again.body.timestamp === first.body.timestamp) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      again = await get(`/contacts/${person.id}`);
    }
    expect(again.headers.get('etag')).toBe(etag);

    await ok(admin, 'PATCH', `/contacts/${person.id}`, { job_title: 'Buyer' });
    const changed = await etagOf(`/contacts/${person.id}`);
    expect(changed).not.toBe(etag);
    expect(versionOf(changed)).not.toBe(versionOf(etag));
  });

  it('answers If-None-Match with 304 and no body while unchanged, 200 once stale; HEAD likewise', async () => {
    const person = await contact(admin);
    const etag = await etagOf(`/contacts/${person.id}`);

    const fresh = await get(`/contacts/${person.id}`, { 'If-None-Match': etag });
    expect(fresh.status).toBe(304);
    expect(fresh.text).toBe('');
    expect(fresh.headers.get('etag')).toBe(etag);
    expect((await get(`/contacts/${person.id}`, { 'If-None-Match': `"nope", W/${etag}` })).status).toBe(304);
    expect((await get(`/contacts/${person.id}`, { 'If-None-Match': '*' })).status).toBe(304);
    expect((await call(admin)('HEAD', `/contacts/${person.id}`, undefined, { 'If-None-Match': etag })).status).toBe(304);

    await ok(admin, 'PATCH', `/contacts/${person.id}`, { job_title: 'Owner' });
    const stale = await get(`/contacts/${person.id}`, { 'If-None-Match': etag });
    expect(stale.status).toBe(200);
    expect(stale.body.data.contact.job_title).toBe('Owner');
    expect(stale.headers.get('etag')).not.toBe(etag);

    const malformed = await get(`/contacts/${person.id}`, { 'If-None-Match': 'not-quoted' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error_name).toBe('invalid_request_data');
    expect(malformed.headers.get('etag')).toBeNull();
  });

  it('gives a list an ETag that changes when a record in it changes', async () => {
    const person = await contact(admin, { last_name: 'Listed' });
    const etag = await etagOf('/contacts?search=Listed');
    expect(etag.startsWith('"0.')).toBe(true);
    expect(await etagOf('/contacts?search=Listed')).toBe(etag);
    expect((await get('/contacts?search=Listed', { 'If-None-Match': etag })).status).toBe(304);
    await ok(admin, 'PATCH', `/contacts/${person.id}`, { job_title: 'Listed buyer' });
    expect(await etagOf('/contacts?search=Listed')).not.toBe(etag);
  });

  it('writes with the current If-Match (or *) and answers a new ETag; a stale one is 409 and changes nothing', async () => {
    const person = await contact(admin);
    const etag = await etagOf(`/contacts/${person.id}`);

    const put = await call(admin)<Json>('PUT', `/contacts/${person.id}`, { last_name: 'Lee', job_title: 'CEO' }, { 'If-Match': etag });
    expect(put.status).toBe(200);
    const putTag = put.headers.get('etag');
    expect(putTag).toMatch(/^"[0-9a-z]+\./);
    expect(putTag).not.toBe(etag);
    expect(versionOf(putTag)).toBe(versionOf(await etagOf(`/contacts/${person.id}`)));

    const stale = await call(admin)<Json>('PUT', `/contacts/${person.id}`, { last_name: 'Lee', job_title: 'Intern' }, { 'If-Match': etag });
    expect(stale.status).toBe(409);
    expect(stale.body.error_name).toBe('conflict');
    expect(stale.headers.get('etag')).toBeNull();
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).contact.job_title).toBe('CEO');

    // Any listed tag with the current version passes; a weak one too.
    const current = (await etagOf(`/contacts/${person.id}`))!;
    const listed = await call(admin)('PATCH', `/contacts/${person.id}`, { job_title: 'CTO' }, { 'If-Match': `${etag}, W/${current}` });
    expect(listed.status).toBe(200);

    const star = await call(admin)('PUT', `/contacts/${person.id}/star`, undefined, { 'If-Match': '*' });
    expect(star.status).toBe(200);
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).contact.starred).toBe(true);
  });

  it('refuses DELETE with a stale If-Match (409, the record stays) and deletes with the current one', async () => {
    const person = await contact(admin);
    const stale = await etagOf(`/contacts/${person.id}`);
    await ok(admin, 'PATCH', `/contacts/${person.id}`, { job_title: 'Moved on' });

    const refused = await call(admin)<Json>('DELETE', `/contacts/${person.id}`, undefined, { 'If-Match': stale });
    expect(refused.status).toBe(409);
    expect(refused.body.error_name).toBe('conflict');
    expect((await get(`/contacts/${person.id}`)).status).toBe(200);

    const current = await etagOf(`/contacts/${person.id}`);
    expect((await call(admin)('DELETE', `/contacts/${person.id}`, undefined, { 'If-Match': current })).status).toBe(200);
    expect((await get(`/contacts/${person.id}`)).status).toBe(404);
  });

  it('lets exactly one of two concurrent writes with the same If-Match through', async () => {
    const person = await contact(admin);
    const etag = await etagOf(`/contacts/${person.id}`);
    const results = await Promise.all(
      ['First', 'Second'].map((title) => call(admin)<Json>('PATCH', `/contacts/${person.id}`, { job_title: title }, { 'If-Match': etag })),
    );
    expect(results.map((res) => res.status).sort()).toEqual([200, 409]);
    const winner = results.find((res) => res.status === 200)!;
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).contact.job_title).toBe(winner.body.data.contact.job_title);
  });

  it('checks If-Match on deals, notes, calls, meetings, actions, companies, predefined actions and filters', async () => {
    const person = await contact(admin, { company_name: 'Conditional Ltd' });
    const deal = (await ok(admin, 'POST', `/contacts/${person.id}/deals`, { name: 'Renewal' }, 201)).deal;
    const note = (await ok(admin, 'POST', `/contacts/${person.id}/notes`, { text: 'Hello' }, 201)).note;
    const logged = (await ok(admin, 'POST', `/contacts/${person.id}/calls`, { text: 'Rang', call_result: 'left_message' }, 201)).call;
    const meeting = (await ok(admin, 'POST', `/contacts/${person.id}/meetings`, { text: 'Met', meeting_time_int: 1_900_000_000 }, 201))
      .meeting;
    const action = (
      await ok(admin, 'POST', `/contacts/${person.id}/actions`, { text: 'Call back', status: 'date_time', exact_time: 1_900_000_000 }, 201)
    ).action;
    const template = (await ok(admin, 'POST', '/predefined_actions', { text: 'Follow up' }, 201)).predefined_action;
    const filter = (
      await ok(
        admin,
        'POST',
        '/filters',
        { name: 'Conditional', conditions: [{ field: 'last_name', operator: 'equals', value: 'x' }] },
        201,
      )
    ).filter;
    const cases: Array<[string, string, Record<string, unknown>]> = [
      [`/filters/${filter.id}`, 'PATCH', { name: 'Conditional 2' }],
      [`/predefined_actions/${template.id}`, 'PUT', { text: 'Follow up again' }],
      [`/deals/${deal.id}`, 'PATCH', { name: 'Renewal 2' }],
      [`/notes/${note.id}`, 'PUT', { text: 'Hello again' }],
      [`/calls/${logged.id}`, 'PUT', { text: 'Rang again' }],
      [`/meetings/${meeting.id}`, 'PUT', { text: 'Met again' }],
      [`/actions/${action.id}`, 'PUT', { text: 'Call back later' }],
      [`/companies/${person.company_id}`, 'PATCH', { phone: '555' }],
    ];
    for (const [path, method, body] of cases) {
      const etag = await etagOf(path);
      const write = await call(admin)<Json>(method, path, body, { 'If-Match': etag });
      expect(`${method} ${path} ${write.status}`).toBe(`${method} ${path} 200`);
      const newTag = write.headers.get('etag');
      expect(versionOf(newTag)).not.toBe(versionOf(etag));
      const stale = await call(admin)<Json>(method, path, body, { 'If-Match': etag });
      expect(`${method} ${path} ${stale.status} ${stale.body.error_name}`).toBe(`${method} ${path} 409 conflict`);
    }
    const staleDelete = await call(admin)<Json>('DELETE', `/deals/${deal.id}`, undefined, { 'If-Match': '"1.x"' });
    expect(staleDelete.status).toBe(409);
    expect((await get(`/deals/${deal.id}`)).status).toBe(200);
  });

  it('refuses If-Match on a write that does not check it, and a malformed one, with 400', async () => {
    const created = await call(admin)<Json>('POST', '/contacts', { last_name: 'Nope' }, { 'If-Match': '*' });
    expect(created.status).toBe(400);
    expect(created.body.errors).toHaveProperty('If-Match');
    const person = await contact(admin);
    const malformed = await call(admin)<Json>('PATCH', `/contacts/${person.id}`, { job_title: 'x' }, { 'If-Match': 'unquoted' });
    expect(malformed.status).toBe(400);
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).contact.job_title).not.toBe('x');
  });
});
