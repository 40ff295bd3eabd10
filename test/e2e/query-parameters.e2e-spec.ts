import { recordCalls, type Json } from './record-helpers';
import { setupE2e } from './setup';

/**
 * OnePageCRM's documented query parameters (issue 13, item 5; decisions.md "Query parameters
 * (issue 13, item 5)") over HTTP: each filters or sorts as documented, and a misspelt one is 400
 * naming it, for reads and writes alike, before anything changes.
 */
describe('query parameters (e2e)', () => {
  const { services, admin, stranger } = setupE2e({ stranger: true });
  const { call, ok, contact } = recordCalls(() => services);

  /** The 400 answer's field errors: exactly `fields` are named. */
  const refused = async (method: string, path: string, fields: string[], body?: unknown) => {
    const res = await call(admin)<Json>(method, path, body);
    expect([method, path, res.status, res.body.error_name]).toEqual([method, path, 400, 'invalid_request_data']);
    expect(Object.keys(res.body.errors).sort()).toEqual([...fields].sort());
    return res.body;
  };

  it('GET /companies filters by letter, exact name and phone digits', async () => {
    const made: Record<string, string> = {};
    for (const name of ['Qa Alpha', 'qb beta', 'Quartz', '9 Lives', 'Zeta'])
      made[name] = (await contact(admin, { company_name: name })).company_id;
    await ok(admin, 'PATCH', `/companies/${made['Quartz']}`, { phone: '+1 (555) 010-2000' });
    await contact(stranger, { company_name: 'Quasar' });
    const names = async (query: string) => (await ok(admin, 'GET', `/companies${query}`)).companies.map((e: Json) => e.company.name);

    expect(await names('?letter=Q&per_page=100')).toEqual(['Qa Alpha', 'qb beta', 'Quartz']);
    expect(await names('?letter=q&sort_by=name&order=desc&per_page=2')).toEqual(['Quartz', 'qb beta']);
    expect(await names('?letter=1')).toEqual(['9 Lives']);
    expect(await names('?name=QUARTZ')).toEqual(['Quartz']);
    expect(await names('?name=Quart')).toEqual([]);
    expect(await names('?phone=15550102000')).toEqual(['Quartz']);
    expect(await names('?phone=%2B1%20555-010-2000')).toEqual(['Quartz']);
    expect(await names('?phone=5550102')).toEqual([]);
    expect((await ok(admin, 'GET', '/companies?letter=q')).total_count).toBe(3);
    expect(await names('?letter=q&name=qb%20beta')).toEqual(['qb beta']);

    await refused('GET', '/companies?letter=qa', ['letter']);
    await refused('GET', '/companies?lettr=q', ['lettr']);
  });

  it('GET /companies/{id}/linked_contacts sorts by sort_by and order', async () => {
    const hub = (await contact(admin, { company_name: 'Linked Hub' })).company_id;
    const zed = await contact(admin, { first_name: 'Al', last_name: 'Zed', company_name: 'Zed Co' });
    const abe = await contact(admin, { first_name: 'Zoe', last_name: 'Abe' });
    for (const guest of [zed, abe]) await ok(admin, 'POST', `/companies/${hub}/linked_contacts`, { contact_id: guest.id }, 201);
    const order = async (query: string) =>
      (await ok(admin, 'GET', `/companies/${hub}/linked_contacts${query}`)).linked_contacts.map((e: Json) => e.linked_contact.contact.id);

    expect(await order('')).toEqual([abe.id, zed.id]);
    expect(await order('?order=desc&sort_by=name')).toEqual([zed.id, abe.id]);
    expect(await order('?sort_by=first_name')).toEqual([zed.id, abe.id]);
    expect(await order('?sort_by=first_name&order=DESC')).toEqual([abe.id, zed.id]);
    expect(await order('?sort_by=company_name&order=desc')).toEqual([zed.id, abe.id]);
    // GET /contacts?not_linked_with=<company>: neither its own contacts nor those linked to it.
    const notLinked = (await ok(admin, 'GET', `/contacts?not_linked_with=${hub}&per_page=100&team=true`)).contacts.map(
      (e: Json) => e.contact.id,
    );
    expect(notLinked).not.toContain(zed.id);
    expect(notLinked).not.toContain(abe.id);
    const loner = await contact(admin, { last_name: 'Loner' });
    expect((await ok(admin, 'GET', `/contacts?not_linked_with=${hub}&search=loner`)).contacts.map((e: Json) => e.contact.id)).toEqual([
      loner.id,
    ]);
    await refused('GET', `/companies/${hub}/linked_contacts?sort_by=size`, ['sort_by']);
    await refused('GET', `/companies/${hub}/linked_contacts?sortby=name`, ['sortby']);
  });

  it('GET /relationship_types searches variant names, filters symmetrical types, sorts', async () => {
    const type = async (...names: string[]) =>
      (await ok(admin, 'POST', '/relationship_types', { variants: names.map((name) => ({ name })) }, 201)).relationship_type as Json;
    const partner = await type('Partner');
    const mentor = await type('Mentor', 'Mentee');
    const ids = async (query: string) =>
      (await ok(admin, 'GET', `/relationship_types${query}`)).relationship_types.map((e: Json) => e.relationship_type.id);

    expect(await ids('?search=MENTE')).toEqual([mentor.id]);
    expect(await ids('?search=partn')).toEqual([partner.id]);
    expect(await ids('?search=nobody')).toEqual([]);
    expect(await ids('?symmetrical=true&search=e')).toEqual([partner.id]);
    expect(await ids('?symmetrical=false&search=e')).toEqual([mentor.id]);
    const all = await ids('?per_page=100');
    expect(await ids('?sort_by=created_at&order=desc&per_page=100')).toEqual([...all].reverse());
    await ok(admin, 'PUT', `/relationship_types/${partner.id}`, {
      variants: [{ id: partner.relationship_variants[0].id, name: 'Partners' }],
    });
    expect((await ids('?sort_by=modified_at&order=desc&per_page=1'))[0]).toBe(partner.id);
    // OnePageCRM's name for the same column.
    expect((await ids('?sort_by=updated_at&order=desc&per_page=1'))[0]).toBe(partner.id);
    expect(await ids('?date_filter=updated_at&since=2000-01-01&search=partn')).toEqual([partner.id]);
    expect(await ids(`?search=partn&since=2000-01-01`)).toEqual([partner.id]);

    await refused('GET', '/relationship_types?symmetrical=maybe', ['symmetrical']);
    await refused('GET', '/relationship_types?sort_by=name', ['sort_by']);
    await refused('GET', '/relationship_types?serch=x', ['serch']);
  });

  it("GET /contacts/{id}/relationships narrows the contact's relationships; DELETE …?undo=true restores one", async () => {
    const variants = async (...names: string[]) =>
      (await ok(admin, 'POST', '/relationship_types', { variants: names.map((name) => ({ name })) }, 201)).relationship_type as Json;
    const spouse = await variants('Spouse');
    const coach = await variants('Coach', 'Trainee');
    const [coachVariant, traineeVariant] = coach.relationship_variants;
    const me = await contact(admin, { first_name: 'Pat', last_name: 'Hub' });
    const wife = await contact(admin, { first_name: 'Quinn', last_name: 'Wedded' });
    const trainer = await contact(admin, { first_name: 'Rory', last_name: 'Trainer' });
    const married = (
      await ok(admin, 'POST', `/contacts/${me.id}/relationships`, { relationship_type_id: spouse.id, related_contact_id: wife.id }, 201)
    ).relationship;
    const coached = (
      await ok(
        admin,
        'POST',
        `/contacts/${me.id}/relationships`,
        { relationship_type_id: coach.id, related_contact_id: trainer.id, variant_id: coachVariant.id },
        201,
      )
    ).relationship;
    const ids = async (query: string) =>
      (await ok(admin, 'GET', `/contacts/${me.id}/relationships${query}`)).relationships.map((e: Json) => e.relationship.id);

    expect(await ids('')).toEqual([married.id, coached.id]);
    expect(await ids('?sort_by=created_at&order=desc')).toEqual([coached.id, married.id]);
    expect(await ids(`?relationship_type_id=${spouse.id}`)).toEqual([married.id]);
    expect(await ids(`?contact_id_filter=${trainer.id}`)).toEqual([coached.id]);
    expect(await ids(`?variant_id_filter=${traineeVariant.id}`)).toEqual([coached.id]);
    expect(await ids('?symmetrical=true')).toEqual([married.id]);
    expect(await ids('?symmetrical=false')).toEqual([coached.id]);
    expect(await ids('?search=wedded')).toEqual([married.id]);
    expect(await ids('?search=COACH')).toEqual([coached.id]);
    expect(await ids('?since=2000-01-01&until=2000-12-31')).toEqual([]);
    expect(await ids('?modified_since=2000-01-01')).toEqual([married.id, coached.id]);
    await refused('GET', `/contacts/${me.id}/relationships?symmetrical=perhaps`, ['symmetrical']);
    await refused('GET', `/contacts/${me.id}/relationships?contact_id=${trainer.id}&relationship_typ_id=x`, ['relationship_typ_id']);

    // A misspelt undo deletes nothing; the delete, then the undo, then a second undo (nothing deleted: 404).
    await refused('DELETE', `/contacts/${me.id}/relationships/${married.id}?undoo=true`, ['undoo']);
    expect(await ids('')).toEqual([married.id, coached.id]);
    await ok(admin, 'DELETE', `/contacts/${me.id}/relationships/${married.id}`);
    expect(await ids('')).toEqual([coached.id]);
    await ok(admin, 'DELETE', `/contacts/${wife.id}/relationships/${married.id}?undo=true`);
    expect(await ids('')).toEqual([married.id, coached.id]);
    // Restored as it was; its modified_at records the delete and the undo.
    const restored = (await ok(admin, 'GET', `/contacts/${me.id}/relationships/${married.id}`)).relationship;
    expect(restored).toEqual({ ...married, modified_at: restored.modified_at });
    expect(Date.parse(restored.modified_at)).toBeGreaterThan(Date.parse(married.modified_at));
    expect((await call(admin)<Json>('DELETE', `/contacts/${me.id}/relationships/${married.id}?undo=true`)).status).toBe(404);
    expect((await call(stranger)<Json>('DELETE', `/contacts/${me.id}/relationships/${married.id}?undo=true`)).status).toBe(404);

    // A pair that has a relationship of that type again cannot get the deleted one back.
    await ok(admin, 'DELETE', `/contacts/${me.id}/relationships/${married.id}`);
    await ok(admin, 'POST', `/contacts/${me.id}/relationships`, { relationship_type_id: spouse.id, related_contact_id: wife.id }, 201);
    const again = await call(admin)<Json>('DELETE', `/contacts/${me.id}/relationships/${married.id}?undo=true`);
    expect([again.status, again.body.error_name]).toEqual([400, 'duplicated_entity']);
  });

  it('GET /deals/{id}?include_history=true carries previous_pipeline_stages', async () => {
    const person = await contact(admin);
    const { deal } = await ok(admin, 'POST', `/contacts/${person.id}/deals`, { name: 'History' }, 201);
    expect((await ok(admin, 'GET', `/deals/${deal.id}?include_history=true`)).deal.previous_pipeline_stages).toEqual({});
    expect((await ok(admin, 'GET', `/deals/${deal.id}?include_history=1`)).deal.previous_pipeline_stages).toEqual({});
    expect((await ok(admin, 'GET', `/deals/${deal.id}`)).deal).not.toHaveProperty('previous_pipeline_stages');
    expect((await ok(admin, 'GET', `/deals/${deal.id}?include_history=false`)).deal).not.toHaveProperty('previous_pipeline_stages');
    await refused('GET', `/deals/${deal.id}?include_history=maybe`, ['include_history']);
    await refused('GET', `/deals/${deal.id}?include_histry=true`, ['include_histry']);
  });

  it('PUT /actions/{id}?done= completes or reopens; DELETE …?undo= is a flag (400 naming it otherwise), true restores a deleted action', async () => {
    const person = await contact(admin);
    const { action } = await ok(
      admin,
      'POST',
      '/actions',
      { contact_id: person.id, text: 'Call back', status: 'date', date: '2031-01-01' },
      201,
    );
    const done = (await ok(admin, 'PUT', `/actions/${action.id}?done=true`, { text: 'Call back' })).action;
    expect(done).toMatchObject({ id: action.id, done: true, status: 'done' });
    const reopened = (await ok(admin, 'PUT', `/actions/${action.id}?done=false&partial=true`, {})).action;
    expect(reopened).toMatchObject({ id: action.id, done: false });
    // A body value wins over the query string.
    expect((await ok(admin, 'PUT', `/actions/${action.id}?done=true`, { text: 'Call back', done: false })).action.done).toBe(false);
    await refused('PUT', `/actions/${action.id}?done=yes`, ['done'], { text: 'Call back' });
    await refused('PUT', `/actions/${action.id}?dne=true`, ['dne'], { text: 'Call back' });

    await refused('DELETE', `/actions/${action.id}?undo=maybe`, ['undo']);
    await refused('DELETE', `/actions/${action.id}?undoo=false`, ['undoo']);
    // Nothing deleted to restore: 404, and the action stays.
    expect((await call(admin)<Json>('DELETE', `/actions/${action.id}?undo=true`)).status).toBe(404);
    expect((await ok(admin, 'GET', `/actions/${action.id}`)).action.id).toBe(action.id);
    await ok(admin, 'DELETE', `/actions/${action.id}?undo=false`);
    expect((await call(admin)<Json>('GET', `/actions/${action.id}`)).status).toBe(404);
    await ok(admin, 'DELETE', `/actions/${action.id}?undo=1`);
    expect((await ok(admin, 'GET', `/actions/${action.id}`)).action).toMatchObject({ id: action.id, text: 'Call back', done: false });
  });

  it("date_filter takes the record's own date as OnePageCRM names it: notes' date, calls' call_time, meetings' meeting_time, actions' close_date", async () => {
    const person = await contact(admin, { last_name: 'Dated' });
    const mine = (path: string, key: string) => async (query: string) =>
      (await ok(admin, 'GET', `/contacts/${person.id}/${path}?${query}`))[path].map((e: Json) => e[key].id);
    const note = (await ok(admin, 'POST', '/notes', { contact_id: person.id, text: 'Old note', date: '2024-02-10' }, 201)).note;
    await ok(admin, 'POST', '/notes', { contact_id: person.id, text: 'New note', date: '2030-01-01' }, 201);
    const notes = mine('notes', 'note');
    expect(await notes('date_filter=date&since=2024-02-10&until=2024-02-10')).toEqual([note.id]);
    expect(await notes('date_filter=date&until=2024-02-09')).toEqual([]);
    // 2024-03-01T00:00:00Z = 1709251200: the day's start is in, the second before it is not.
    const call = (await ok(admin, 'POST', '/calls', { contact_id: person.id, text: 'Rang', call_time_int: 1_709_251_200 }, 201)).call;
    await ok(admin, 'POST', '/calls', { contact_id: person.id, text: 'Later', call_time_int: 1_900_000_000 }, 201);
    const calls = mine('calls', 'call');
    expect(await calls('date_filter=call_time&since=2024-03-01&until=2024-03-01')).toEqual([call.id]);
    expect(await calls('date_filter=call_time&since=1709251200&until=1709251200')).toEqual([call.id]);
    expect(await calls('date_filter=call_time&until=2024-02-29')).toEqual([]);
    const meeting = (await ok(admin, 'POST', '/meetings', { contact_id: person.id, text: 'Met', meeting_time_int: 1_709_251_199 }, 201))
      .meeting;
    const meetings = mine('meetings', 'meeting');
    expect(await meetings('date_filter=MEETING_TIME&until=2024-02-29')).toEqual([meeting.id]);
    expect(await meetings('date_filter=meeting_time&since=2024-03-01')).toEqual([]);
    const { action } = await ok(
      admin,
      'POST',
      '/actions',
      { contact_id: person.id, text: 'Close me', status: 'date', date: '2031-01-01' },
      201,
    );
    await ok(admin, 'POST', '/actions', { contact_id: person.id, text: 'Open', status: 'queued_with_date', date: '2031-02-01' }, 201);
    await ok(admin, 'PUT', `/actions/${action.id}/mark_as_done`);
    const today = new Date().toISOString().slice(0, 10);
    expect(await mine('actions', 'action')(`date_filter=close_date&since=${today}`)).toEqual([action.id]);
    await refused('GET', '/notes?date_filter=call_time', ['date_filter']);
    await refused('GET', '/calls?date_filter=date', ['date_filter']);
  });

  it('DELETE /contacts/{id}?undo=true restores the deleted contact; a misspelt parameter deletes nothing', async () => {
    const person = await contact(admin, { last_name: 'Undone' });
    await refused('DELETE', `/contacts/${person.id}?und=true`, ['und']);
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).contact.id).toBe(person.id);
    await ok(admin, 'DELETE', `/contacts/${person.id}`);
    expect((await call(admin)<Json>('GET', `/contacts/${person.id}`)).status).toBe(404);
    await ok(admin, 'DELETE', `/contacts/${person.id}?undo=true`);
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).contact).toMatchObject({ id: person.id, last_name: 'Undone' });
    // Nothing to undo now (the contact is live), nor for another account.
    expect((await call(admin)<Json>('DELETE', `/contacts/${person.id}?undo=true`)).status).toBe(404);
    expect((await call(stranger)<Json>('DELETE', `/contacts/${person.id}?undo=true`)).status).toBe(404);
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).contact.id).toBe(person.id);
  });
});
