import { recordCalls, type Json } from './record-helpers';
import { setupE2e } from './setup';

/**
 * The rest of OnePageCRM's contact operations and the action streams (issue 13, item 1;
 * decisions.md "Remaining OnePageCRM operations"), over HTTP.
 */
describe('remaining contact operations and action streams (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });
  const { call, ok, contact } = recordCalls(() => services);

  const expectError = async (who: typeof admin, method: string, path: string, body: unknown, status: number, errorName: string) => {
    const res = await call(who)<Json>(method, path, body);
    expect([method, path, res.status, res.body.error_name]).toEqual([method, path, status, errorName]);
    expect(Object.keys(res.body).sort()).toEqual(['error_message', 'error_name', 'errors', 'message', 'status']);
    return res.body;
  };
  const action = async (who: typeof admin, contactId: string, body: Record<string, unknown>) =>
    (await ok(who, 'POST', '/actions', { contact_id: contactId, text: 'Do it', status: 'date', date: '2031-01-01', ...body }, 201))
      .action as Json;

  it('star and unstar set the contact flag and answer the contact wrapper; the starred filter follows', async () => {
    const person = await contact(admin, { last_name: 'Starling' });
    const starred = await ok(admin, 'PUT', `/contacts/${person.id}/star`);
    expect(Object.keys(starred).sort()).toEqual([
      'company',
      'contact',
      'next_action',
      'next_action_conflicts',
      'next_actions',
      'queued_actions',
    ]);
    expect(starred.contact).toMatchObject({ id: person.id, starred: true });
    expect((await ok(admin, 'GET', '/contacts?starred=true&per_page=100')).contacts.map((c: Json) => c.contact.id)).toContain(person.id);
    expect((await ok(admin, 'PUT', `/contacts/${person.id}/star.json`)).contact.starred).toBe(true);
    expect((await ok(admin, 'PUT', `/contacts/${person.id}/unstar`)).contact.starred).toBe(false);
    for (const op of ['star', 'unstar'])
      await expectError(stranger, 'PUT', `/contacts/${person.id}/${op}`, undefined, 404, 'resource_not_found');
  });

  it("a single contact's company lists its first 3 contacts by name with their next actions (OnePageCRM's Company.contacts); list entries' do not", async () => {
    const company = `Mates ${Date.now()}`;
    const dee = await contact(admin, { first_name: 'Dee', last_name: 'Dunn', company_name: company });
    const ann = await contact(member, { first_name: 'Ann', last_name: 'Abel', company_name: company });
    const cal = await contact(admin, { first_name: 'Cal', last_name: 'Cole', company_name: company });
    const bea = await contact(admin, { first_name: 'Bea', last_name: 'Bond', company_name: company });
    const next = await action(admin, bea.id, {});
    const first3 = [ann.id, bea.id, cal.id];

    const wrapper = await ok(admin, 'GET', `/contacts/${dee.id}`);
    expect(wrapper.company).toMatchObject({ id: dee.company_id, contacts_count: 4 });
    const mates = wrapper.company.contacts;
    expect(mates.map((e: Json) => e.contact.id)).toEqual(first3);
    for (const e of mates)
      expect(Object.keys(e).sort()).toEqual(['contact', 'next_action', 'next_action_conflicts', 'next_actions', 'queued_actions']);
    expect(mates[0].contact).toMatchObject({ first_name: 'Ann', last_name: 'Abel', owner_id: member.user.id, company_id: dee.company_id });
    expect(mates[1].next_action).toMatchObject({ id: next.id, contact_id: bea.id });
    expect(mates[1].next_actions.map((a: Json) => a.id)).toEqual([next.id]);
    expect(mates[0].next_action).toBeNull();

    // List entries' companies carry no contacts (a page would nearly fill NATS's 1 MiB); a single read does.
    const listed = await ok(admin, 'GET', `/contacts?company_id=${dee.company_id}&team=true`);
    expect(listed.contacts.length).toBe(4);
    for (const e of listed.contacts) {
      expect(e.company).toMatchObject({ id: dee.company_id, contacts_count: 4 });
      expect(e.company).not.toHaveProperty('contacts');
    }
    expect(
      (await ok(admin, 'PUT', `/contacts/${cal.id}?partial=true`, { job_title: 'Buyer' })).company.contacts.map((m: Json) => m.contact.id),
    ).toEqual(first3);
    // The company's own view keeps all its contacts' wrappers, theirs without the nested list.
    const own = (await ok(admin, 'GET', `/companies/${dee.company_id}`)).company;
    expect(own.contacts.map((e: Json) => e.contact.id)).toEqual([...first3, dee.id]);
    expect(own.contacts[0].company.contacts).toBeUndefined();
    // A contact without a company: company stays null.
    expect((await ok(admin, 'GET', `/contacts/${(await contact(admin, { last_name: 'Alone' })).id}`)).company).toBeNull();
  });

  it('change_owner moves the contact to a user of the account; an unknown or foreign user is 404', async () => {
    const person = await contact(admin);
    const moved = await ok(admin, 'PUT', `/contacts/${person.id}/change_owner/${member.user.id}`);
    expect(moved.contact.owner_id).toBe(member.user.id);
    expect((await ok(member, 'GET', '/contacts?per_page=100')).contacts.map((c: Json) => c.contact.id)).toContain(person.id);
    await expectError(admin, 'PUT', `/contacts/${person.id}/change_owner/${stranger.user.id}`, undefined, 404, 'resource_not_found');
    await expectError(admin, 'PUT', `/contacts/${person.id}/change_owner/nobody`, undefined, 404, 'resource_not_found');
    await expectError(stranger, 'PUT', `/contacts/${person.id}/change_owner/${stranger.user.id}`, undefined, 404, 'resource_not_found');
  });

  it("force_close deletes the caller's open actions and closes the caller's cycle; reopen undoes the closing", async () => {
    const person = await contact(admin);
    const mine = await action(admin, person.id, {});
    const queued = await action(admin, person.id, { status: 'queued_with_date', date: '2031-02-01' });
    const theirs = await action(admin, person.id, { assignee_id: member.user.id });

    const closed = await ok(admin, 'PUT', `/contacts/${person.id}/force_close_sales_cycle`, { comment: 'Not now' });
    expect(closed.contact.sales_closed_for).toEqual([admin.user.id]);
    expect(closed.contact.closed_sales).toEqual([{ user_id: admin.user.id, closed_at: expect.any(Number), comment: 'Not now' }]);
    for (const gone of [mine, queued]) await expectError(admin, 'GET', `/actions/${gone.id}`, undefined, 404, 'resource_not_found');
    expect((await ok(admin, 'GET', `/actions/${theirs.id}`)).action.assignee_id).toBe(member.user.id);
    const bad = await expectError(
      admin,
      'PUT',
      `/contacts/${person.id}/force_close_sales_cycle`,
      { comment: 7 },
      400,
      'invalid_request_data',
    );
    expect(Object.keys(bad.errors)).toEqual(['comment']);

    // The member's cycle is theirs: reopening it changes nothing of the admin's.
    expect((await ok(member, 'PUT', `/contacts/${person.id}/reopen_sales_cycle`)).contact.sales_closed_for).toEqual([admin.user.id]);
    const reopened = await ok(admin, 'PUT', `/contacts/${person.id}/reopen_sales_cycle`);
    expect(reopened.contact).toMatchObject({ sales_closed_for: [], closed_sales: [] });
    for (const op of ['force_close_sales_cycle', 'reopen_sales_cycle'])
      await expectError(stranger, 'PUT', `/contacts/${person.id}/${op}`, {}, 404, 'resource_not_found');
  });

  it('split takes the contact out of its company, into the company named (matched or created) or none', async () => {
    const a = await contact(admin, { last_name: 'Split', company_name: 'Old Co' });
    const b = await contact(admin, { last_name: 'Stay', company_name: 'Old Co' });
    await contact(admin, { last_name: 'There', company_name: 'New Co' });
    const moved = await ok(admin, 'PUT', `/contacts/${a.id}/split`, { company_name: 'new co' });
    expect(moved.contact).toMatchObject({ company_name: 'New Co' });
    expect(moved.contact.company_id).not.toBe(b.company_id);
    expect(moved.company).toMatchObject({ name: 'New Co', contacts_count: 2 });
    expect((await ok(admin, 'GET', `/companies/${b.company_id}`)).company.contacts_count).toBe(1);

    const alone = await ok(admin, 'PUT', `/contacts/${a.id}/split`);
    expect(alone.contact).toMatchObject({ company_id: '', company_name: '' });
    expect(alone.company).toBeNull();
    const fresh = await ok(admin, 'PUT', `/contacts/${a.id}/split`, { company_name: 'Brand New Ltd' });
    expect(fresh.company).toMatchObject({ name: 'Brand New Ltd', contacts_count: 1 });

    await expectError(admin, 'PUT', `/contacts/${a.id}/split`, { company_name: 'x'.repeat(201) }, 400, 'invalid_request_data');
    await expectError(stranger, 'PUT', `/contacts/${a.id}/split`, {}, 404, 'resource_not_found');
  });

  it('google_contacts: 400 while Google Contacts is not connected; another account contact is 404', async () => {
    const person = await contact(admin);
    const body = await expectError(admin, 'POST', `/contacts/${person.id}/google_contacts`, undefined, 400, 'invalid_request_data');
    expect(body.error_message).toMatch(/Google Contacts/);
    await expectError(stranger, 'POST', `/contacts/${person.id}/google_contacts`, undefined, 404, 'resource_not_found');
  });

  it("GET /contacts/filters/{id}: the filter and its contacts of every owner, the caller's stream first", async () => {
    const later = await contact(admin, { first_name: 'Ada', last_name: 'Zfilter' });
    const sooner = await contact(member, { first_name: 'Bea', last_name: 'Zfilter' });
    const none = await contact(admin, { first_name: 'Ann', last_name: 'Zfilter' });
    await contact(admin, { last_name: 'Elsewhere' });
    await action(admin, later.id, { date: '2031-05-01' });
    await action(admin, sooner.id, { date: '2031-04-01' });
    const { filter } = await ok(
      admin,
      'POST',
      '/filters',
      { name: 'Z folk', conditions: [{ field: 'last_name', operator: 'equals', value: 'zfilter' }] },
      201,
    );

    const got = await ok(member, 'GET', `/contacts/filters/${filter.id}`);
    expect(got.filter).toEqual(filter);
    expect(got).toMatchObject({ total_count: 3, page: 1, per_page: 10, max_page: 1 });
    // The member has no actions: by name (Ada, Ann, Bea).
    expect(got.contacts.map((c: Json) => c.contact.id)).toEqual([later.id, none.id, sooner.id]);
    const mine = await ok(admin, 'GET', `/contacts/filters/${filter.id}.json`);
    expect(mine.contacts.map((c: Json) => c.contact.id)).toEqual([sooner.id, later.id, none.id]);
    const second = await ok(admin, 'GET', `/contacts/filters/${filter.id}?per_page=2&page=2`);
    expect(second.contacts.map((c: Json) => c.contact.id)).toEqual([none.id]);

    await expectError(admin, 'GET', `/contacts/filters/${filter.id}?page=0`, undefined, 400, 'invalid_request_data');
    await expectError(stranger, 'GET', `/contacts/filters/${filter.id}`, undefined, 404, 'resource_not_found');
  });

  it("GET /action_stream and /team_stream: contacts by their most urgent next action, the caller's or anyone's", async () => {
    const tag = `stream${Date.now()}`;
    const make = async (last_name: string) => {
      const c = await contact(admin, { last_name, tags: [tag] });
      return c.id as string;
    };
    const [waiting, late, early, theirs, idle] = await Promise.all(['Wait', 'Late', 'Early', 'Theirs', 'Idle'].map(make));
    await action(admin, waiting, { status: 'waiting', date: undefined });
    await action(admin, late, { date: '2031-09-01' });
    await action(admin, early, { date: '2031-01-01' });
    await action(admin, early, { assignee_id: member.user.id, date: '2030-06-01' });
    await action(admin, theirs, { assignee_id: member.user.id, date: '2031-03-01' });
    void idle;

    const ids = (data: Json) => data.contacts.map((c: Json) => c.contact.id);
    const stream = await ok(admin, 'GET', `/action_stream?tag=${tag}`);
    expect(ids(stream)).toEqual([early, late, waiting]);
    expect(stream).toMatchObject({ total_count: 3, page: 1, per_page: 10, max_page: 1 });
    expect(stream.contacts[0].next_action).toMatchObject({ assignee_id: admin.user.id, date: '2031-01-01' });
    // Another user's stream holds the contacts the admin owns where that user has the next action.
    expect(ids(await ok(member, 'GET', `/action_stream?tag=${tag}`))).toEqual([early, theirs]);
    expect(ids(await ok(member, 'GET', `/action_stream?tag=${tag}&team=false`))).toEqual([]);
    expect(ids(await ok(admin, 'GET', `/action_stream?tag=${tag}&sort_by=last_name`))).toEqual([early, late, waiting]);
    expect(ids(await ok(admin, 'GET', `/action_stream?tag=${tag}&per_page=1&page=2`))).toEqual([late]);

    expect(ids(await ok(member, 'GET', `/team_stream?tag=${tag}`))).toEqual([early, theirs, late, waiting]);
    expect(ids(await ok(admin, 'GET', `/team_stream?tag=${tag}&user_id=${member.user.id}`))).toEqual([early, theirs]);
    await expectError(admin, 'GET', `/team_stream?user_id=${stranger.user.id}`, undefined, 404, 'resource_not_found');
    await expectError(admin, 'GET', '/team_stream?user_id=nope', undefined, 400, 'invalid_request_data');
    await expectError(admin, 'GET', '/action_stream?letter=ab', undefined, 400, 'invalid_request_data');
    expect(ids(await ok(stranger, 'GET', '/team_stream'))).toEqual([]);
  });
});
