import { createAccount, DEFAULT_TEST_PASSWORD, type CreatedAccount } from '@crm/testing';
import { createHash, randomBytes } from 'node:crypto';
import { setupE2e } from './setup';
import { aToday } from './utc-days';
import { recordCalls, type Json } from './record-helpers';

const ACTION_KEYS = [
  'assignee_id',
  'contact_id',
  'created_at',
  'date',
  'done',
  'done_at',
  'exact_time',
  'externally_controlled',
  'id',
  'modified_at',
  'position',
  'status',
  'text',
];
const FOREIGN_ID = 'f'.repeat(24);

/** Actions over HTTP (spec "Action", "States and transitions"; decisions.md "Deals and actions"). */
describe('actions (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });

  const { call, ok, contact } = recordCalls(() => services);
  const action = async (who: CreatedAccount, contactId: string, body: Record<string, unknown>) =>
    (await ok(who, 'POST', '/actions', { contact_id: contactId, text: 'Follow up', ...body }, 201)).action as Json;
  const open = async (who: CreatedAccount, contactId: string) =>
    (await ok(who, 'GET', `/contacts/${contactId}/actions?done=false&sort_by=position&per_page=100`)).actions.map(
      (e: Json) => e.action,
    ) as Json[];

  it('creates next and queued actions; a new next action queues the former one in front', async () => {
    const person = await contact(admin);
    const res = await call(admin)<Json>('POST', '/actions.json', {
      contact_id: person.id,
      text: 'Call [b]back[/b]',
      date: '2030-01-10',
    });
    expect(res.status).toBe(201);
    const first = res.body.data.action;
    expect(Object.keys(first).sort()).toEqual(ACTION_KEYS);
    expect(first).toMatchObject({
      assignee_id: admin.user.id,
      contact_id: person.id,
      text: 'Call [b]back[/b]',
      status: 'date',
      date: '2030-01-10',
      exact_time: 0,
      position: 0,
      done: false,
      done_at: '',
      externally_controlled: false,
    });
    const timed = (
      await ok(admin, 'POST', `/contacts/${person.id}/actions`, { text: 'Meet', status: 'date_time', exact_time: 1_900_000_000 }, 201)
    ).action;
    expect(timed).toMatchObject({
      status: 'date_time',
      date: '2030-03-17',
      exact_time: 1_900_000_000,
      position: 0,
    });
    const queued = await action(admin, person.id, {
      status: 'queued_with_date',
      date: '2030-01-05',
    });
    expect((await open(admin, person.id)).map((a) => [a.id, a.status, a.position])).toEqual([
      [timed.id, 'date_time', 0],
      [first.id, 'queued_with_date', 1],
      [queued.id, 'queued_with_date', 2],
    ]);
    const wrapper = await ok(admin, 'GET', `/contacts/${person.id}`);
    expect(wrapper.next_action.id).toBe(timed.id);
    expect(wrapper.queued_actions.map((a: Json) => a.id)).toEqual([first.id, queued.id]);
    expect(wrapper.next_action_conflicts.map((a: Json) => a.id).sort()).toEqual([first.id, queued.id].sort());
    // Another assignee keeps a next action of their own on the same contact.
    const theirs = await action(admin, person.id, {
      assignee_id: member.user.id,
      status: 'waiting',
    });
    expect(theirs).toMatchObject({
      status: 'waiting',
      date: '',
      assignee_id: member.user.id,
      position: 0,
    });
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).next_actions).toHaveLength(2);
    // The contact is in the assignee's action stream.
    const stream = await ok(member, 'GET', '/contacts?action_stream=true&team=true');
    expect(stream.contacts.map((w: Json) => w.contact.id)).toContain(person.id);
  });

  it("puts a contact with a next action in the assignee's action stream and the team_stream counts", async () => {
    const who = await createAccount(services, { name: 'Stream' });
    const person = await contact(who, { last_name: 'Streamer' });
    await contact(who, { last_name: 'Quiet' });
    const summary = async () => (await call(who)<Json>('PUT', `/contacts/${person.id}/assign_tag/probe`)).body.team_stream;
    const streamIds = async () => (await ok(who, 'GET', '/contacts?action_stream=true')).contacts.map((w: Json) => w.contact.id);
    expect((await summary()).all).toBe(0);
    expect(await streamIds()).toEqual([]);
    const next = await action(who, person.id, { status: 'waiting' });
    await action(who, person.id, {
      status: 'queued_with_date',
      date: '2030-01-01',
    });
    const stream = await summary();
    expect(stream.all).toBe(1);
    expect(stream.users.find((u: Json) => u.user_id === who.user.id).counts).toBe(1);
    expect(await streamIds()).toEqual([person.id]);
    // Completing the next action promotes the queued one: still in the stream; completing that one too empties it.
    const promoted = (await ok(who, 'PUT', `/actions/${next.id}/mark_as_done`)).action;
    expect(promoted.status).toBe('done');
    expect(await streamIds()).toEqual([person.id]);
    const [left] = await open(who, person.id);
    await ok(who, 'PUT', `/actions/${left.id}/mark_as_done`);
    expect(await streamIds()).toEqual([]);
    expect((await summary()).all).toBe(0);
  });

  it('swaps a queued action dated before the next action (403 for others, 409 without a conflict)', async () => {
    const person = await contact(admin);
    const next = await action(admin, person.id, { date: '2030-05-10' });
    const early = await action(admin, person.id, {
      status: 'queued_with_date',
      date: '2030-05-01',
    });
    const late = await action(admin, person.id, {
      status: 'queued_with_date',
      date: '2030-06-01',
    });
    const conflicted = await ok(admin, 'GET', `/contacts/${person.id}`);
    expect(conflicted.next_action_conflicts.map((a: Json) => a.id)).toEqual([early.id]);

    const notLater = await call(admin)<Json>('PUT', `/actions/${late.id}/swap`);
    expect([notLater.status, notLater.body.error_name]).toEqual([409, 'conflict']);
    const notYours = await call(member)<Json>('PUT', `/actions/${early.id}/swap`);
    expect([notYours.status, notYours.body.error_name]).toEqual([403, 'no_permission_to_complete_action']);
    expect((await call(stranger)('PUT', `/actions/${early.id}/swap`)).status).toBe(404);
    const swapped = await ok(admin, 'PUT', `/actions/${early.id}/swap`);
    expect(swapped.action).toMatchObject({
      id: early.id,
      status: 'date',
      position: 0,
    });
    expect((await open(admin, person.id)).map((a) => [a.id, a.position])).toEqual([
      [early.id, 0],
      [next.id, 1],
      [late.id, 2],
    ]);
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).next_action_conflicts).toEqual([]);
  });

  it('completes an action (no date key) and undoes it; the first queued action follows a completed next action', async () => {
    const person = await contact(admin);
    const next = await action(admin, person.id, { date: '2030-02-01' });
    const queued = await action(admin, person.id, {
      status: 'queued_with_date',
      date: '2030-03-01',
    });
    const res = await call(admin)<Json>('PUT', `/actions/${next.id}/mark_as_done`);
    expect(res.status).toBe(200);
    expect(res.body.data.action).toMatchObject({
      id: next.id,
      status: 'done',
      done: true,
      done_at: aToday(),
    });
    expect(res.body.data.action).not.toHaveProperty('date');
    expect((await ok(admin, 'GET', `/actions/${next.id}`)).action).not.toHaveProperty('date');
    expect((await open(admin, person.id)).map((a) => [a.id, a.status])).toEqual([[queued.id, 'date']]);
    expect((await ok(admin, 'GET', `/actions?contact_id=${person.id}&status=done`)).actions.map((e: Json) => e.action.id)).toEqual([
      next.id,
    ]);
    const undone = (await ok(admin, 'PUT', `/actions/${next.id}/undo_completion`)).action;
    expect(undone).toMatchObject({
      status: 'date',
      done: false,
      done_at: '',
      date: '2030-02-01',
      position: 0,
    });
    expect((await open(admin, person.id)).map((a) => [a.id, a.status, a.position])).toEqual([
      [next.id, 'date', 0],
      [queued.id, 'queued_with_date', 1],
    ]);
    expect((await call(admin)<Json>('PUT', `/actions/${next.id}/undo_completion`)).body.error_name).toBe('conflict');
    // PUT done true completes, like mark_as_done.
    expect(
      (
        await ok(admin, 'PUT', `/actions/${queued.id}?partial=true`, {
          done: true,
        })
      ).action,
    ).toMatchObject({ status: 'done', done: true });
  });

  it('takes asap as the most urgent next action: create, replace, queue, complete, undo, PUT and partial PUT', async () => {
    const person = await contact(admin);
    const dated = await action(admin, person.id, { date: '2030-01-10' });
    // asap has no date and no time: a date sent is dropped; exact_time answers 0 (no time).
    const first = (await ok(admin, 'POST', `/contacts/${person.id}/actions`, { text: 'Call now', status: 'ASAP', date: '2030-02-01' }, 201))
      .action;
    expect(Object.keys(first).sort()).toEqual(ACTION_KEYS);
    expect(first).toMatchObject({ status: 'asap', date: '', exact_time: 0, position: 0, done: false, assignee_id: admin.user.id });
    // It replaced the dated next action, which waits at the front of the queue.
    expect((await open(admin, person.id)).map((a) => [a.id, a.status, a.position])).toEqual([
      [first.id, 'asap', 0],
      [dated.id, 'queued_with_date', 1],
    ]);
    // A second asap replaces the first: one next action per assignee; the former asap queues first, dated today.
    const second = await action(admin, person.id, { status: 'asap', text: 'Call again' });
    const queue = await open(admin, person.id);
    expect(queue.map((a) => [a.id, a.status, a.position])).toEqual([
      [second.id, 'asap', 0],
      [first.id, 'queued_with_date', 1],
      [dated.id, 'queued_with_date', 2],
    ]);
    expect(queue[1].date).toEqual(aToday());
    // The contact wrapper's next action is the asap one; no date conflicts (an asap action has no date).
    const wrapper = await ok(admin, 'GET', `/contacts/${person.id}`);
    expect(wrapper.next_action).toMatchObject({ id: second.id, status: 'asap' });
    expect(wrapper.next_action_conflicts).toEqual([]);
    expect((await ok(admin, 'GET', `/actions?contact_id=${person.id}&status=asap`)).actions.map((e: Json) => e.action.id)).toEqual([
      second.id,
    ]);
    // Completing it promotes the first queued action; undoing it puts it back as asap, the promoted one queued in front.
    expect((await ok(admin, 'PUT', `/actions/${second.id}/mark_as_done`)).action).toMatchObject({ status: 'done', done: true });
    expect((await open(admin, person.id)).map((a) => [a.id, a.status])).toEqual([
      [first.id, 'date'],
      [dated.id, 'queued_with_date'],
    ]);
    expect((await ok(admin, 'PUT', `/actions/${second.id}/undo_completion`)).action).toMatchObject({
      status: 'asap',
      date: '',
      exact_time: 0,
      position: 0,
      done: false,
    });
    expect((await open(admin, person.id)).map((a) => [a.id, a.status, a.position])).toEqual([
      [second.id, 'asap', 0],
      [first.id, 'queued_with_date', 1],
      [dated.id, 'queued_with_date', 2],
    ]);
    // A partial PUT of a queued action to asap: it becomes the next action and the asap one queues first.
    expect((await ok(admin, 'PUT', `/actions/${dated.id}?partial=true`, { status: 'asap' })).action).toMatchObject({
      status: 'asap',
      date: '',
      position: 0,
    });
    expect((await open(admin, person.id)).map((a) => [a.id, a.status, a.position])).toEqual([
      [dated.id, 'asap', 0],
      [second.id, 'queued_with_date', 1],
      [first.id, 'queued_with_date', 2],
    ]);
    // PUT replaces: the action read back (exact_time 0: no time) with another status.
    const read = (await ok(admin, 'GET', `/actions/${dated.id}`)).action;
    const put = (await ok(admin, 'PUT', `/actions/${dated.id}`, { ...read, position: undefined, status: 'date', date: '2030-05-01' }))
      .action;
    expect(put).toMatchObject({ status: 'date', date: '2030-05-01', exact_time: 0, position: 0 });
    // An action read back unchanged (exact_time 0) stays without a time.
    const queued = (await ok(admin, 'GET', `/actions/${first.id}`)).action;
    expect((await ok(admin, 'PUT', `/actions/${first.id}`, queued)).action).toMatchObject({
      status: 'queued_with_date',
      date: queued.date,
      exact_time: 0,
    });
    // PUT back to asap.
    expect((await ok(admin, 'PUT', `/actions/${dated.id}`, { text: 'Asap again', status: 'asap' })).action).toMatchObject({
      status: 'asap',
      date: '',
      text: 'Asap again',
    });
    // Another assignee has an asap next action of their own on the same contact.
    const theirs = await action(admin, person.id, { status: 'asap', assignee_id: member.user.id });
    expect(theirs).toMatchObject({ status: 'asap', position: 0 });
    expect((await ok(admin, 'GET', `/contacts/${person.id}`)).next_actions.map((a: Json) => a.status)).toEqual(['asap', 'asap']);
  });

  it('puts asap first in the action stream, the actions list and the contact order, then dated by date and time, then waiting', async () => {
    const who = await createAccount(services, { name: 'Urgency' });
    const [waiting, later, timed, overdue, asap] = await Promise.all(
      ['Waiting', 'Later', 'Timed', 'Overdue', 'Asap'].map((last_name) => contact(who, { last_name })),
    );
    await action(who, waiting.id, { status: 'waiting' });
    await action(who, later.id, { date: '2030-06-01' });
    await action(who, timed.id, { status: 'date_time', date: '2030-06-01', exact_time: Date.parse('2030-06-01T09:00:00Z') / 1000 });
    await action(who, overdue.id, { date: '2020-01-01' });
    await action(who, asap.id, { status: 'asap' });
    const expected = [asap.id, overdue.id, timed.id, later.id, waiting.id];
    const ids = (entries: Json[]) => entries.map((w: Json) => w.contact.id);
    expect(ids((await ok(who, 'GET', '/action_stream')).contacts)).toEqual(expected);
    expect(ids((await ok(who, 'GET', '/team_stream')).contacts)).toEqual(expected);
    expect(ids((await ok(who, 'GET', '/contacts?action_stream=true')).contacts).sort()).toEqual([...expected].sort());
    expect((await ok(who, 'GET', '/actions')).actions.map((e: Json) => e.action.contact_id)).toEqual(expected);
    // The stream counts it: every contact with a next action of any kind.
    expect((await call(who)<Json>('PUT', `/contacts/${asap.id}/assign_tag/probe`)).body.team_stream.all).toBe(5);
    // waiting=true is only the waiting next actions.
    expect(ids((await ok(who, 'GET', '/contacts?waiting=true')).contacts)).toEqual([waiting.id]);
  });

  it('mirrors external actions: upsert 201 then 200, 409 on controlled fields until unlinked', async () => {
    const person = await contact(admin);
    const path = '/actions/external/google_calendar/evt-42';
    const created = await call(admin)<Json>('PUT', path, {
      contact_id: person.id,
      text: 'Demo call',
      status: 'date_time',
      exact_time: 1_900_000_000,
    });
    expect(created.status).toBe(201);
    const mirrored = created.body.data.action;
    expect(mirrored).toMatchObject({
      externally_controlled: true,
      status: 'date_time',
      text: 'Demo call',
    });
    const moved = await call(admin)<Json>('PUT', `${path}.json`, {
      contact_id: person.id,
      text: 'Demo call (moved)',
      status: 'date_time',
      exact_time: 1_900_086_400,
    });
    expect(moved.status).toBe(200);
    expect(moved.body.data.action).toMatchObject({
      id: mirrored.id,
      text: 'Demo call (moved)',
      date: '2030-03-18',
    });

    for (const [method, route, body] of [
      ['PUT', `/actions/${mirrored.id}`, { text: 'Mine' }],
      ['PUT', `/actions/${mirrored.id}?partial=true`, { date: '2031-01-01' }],
      ['PUT', `/actions/${mirrored.id}/mark_as_done`, undefined],
      ['DELETE', `/actions/${mirrored.id}`, undefined],
    ] as const) {
      const res = await call(admin)<Json>(method, route, body);
      expect([route, res.status, res.body.error_name]).toEqual([route, 409, 'conflict']);
    }
    const reassigned = await ok(admin, 'PUT', `/actions/${mirrored.id}?partial=true`, { assignee_id: member.user.id });
    expect(reassigned.action).toMatchObject({
      assignee_id: member.user.id,
      text: 'Demo call (moved)',
    });
    const unlinked = await ok(admin, 'PUT', `/actions/${mirrored.id}/unlink`);
    expect(unlinked.action).toMatchObject({
      id: mirrored.id,
      externally_controlled: false,
    });
    expect(
      (
        await ok(admin, 'PUT', `/actions/${mirrored.id}`, {
          text: 'Mine now',
          status: 'waiting',
        })
      ).action,
    ).toMatchObject({ text: 'Mine now', status: 'waiting', date: '' });
    expect((await call(admin)('DELETE', `/actions/${mirrored.id}`)).status).toBe(200);
    expect((await call(admin)('GET', `/actions/${mirrored.id}`)).status).toBe(404);
  });

  it('takes back what it answers: an undated action read and PUT as read is unchanged', async () => {
    const person = await contact(admin);
    for (const status of ['asap', 'waiting']) {
      const read = await action(admin, person.id, { status, text: `Undated ${status}` });
      expect(read).toMatchObject({ status, date: '', exact_time: 0 });
      const { id, contact_id, text, assignee_id, date, exact_time } = read;
      const put = (await ok(admin, 'PUT', `/actions/${id}`, { contact_id, text, assignee_id, status, date, exact_time })).action;
      expect(put).toMatchObject({ id, status, date: '', exact_time: 0, text });
    }
    // '' is no date: a dated status still needs one.
    const refused = await call(admin)<Json>('POST', '/actions', { contact_id: person.id, text: 'x', status: 'date', date: '' });
    expect([refused.status, Object.keys(refused.body.errors ?? {})]).toEqual([400, ['date']]);
  });

  it('restores a deleted action with DELETE …?undo=true: the next action takes its place back, a queued one its position', async () => {
    const person = await contact(admin);
    const first = await action(admin, person.id, { text: 'First', status: 'date', date: '2031-01-01' });
    const second = await action(admin, person.id, { text: 'Second', status: 'queued_with_date', date: '2031-02-01' });
    const third = await action(admin, person.id, { text: 'Third', status: 'queued_with_date', date: '2031-03-01' });

    // The next action deleted: the first queued one follows it; undo puts it back in front.
    await ok(admin, 'DELETE', `/actions/${first.id}`);
    expect((await open(admin, person.id)).map((a) => [a.text, a.status])).toEqual([
      ['Second', 'date'],
      ['Third', 'queued_with_date'],
    ]);
    await ok(admin, 'DELETE', `/actions/${first.id}?undo=true`);
    expect((await open(admin, person.id)).map((a) => [a.id, a.status, a.position])).toEqual([
      [first.id, 'date', 0],
      [second.id, 'queued_with_date', 1],
      [third.id, 'queued_with_date', 2],
    ]);
    expect((await ok(admin, 'GET', `/actions/${first.id}`)).action).toMatchObject({ text: 'First', date: '2031-01-01', status: 'date' });
    // Restored once: a second undo has nothing left (404); another account never sees it.
    expect((await call(admin)<Json>('DELETE', `/actions/${first.id}?undo=true`)).status).toBe(404);

    // A queued action returns to its place in the queue.
    await ok(admin, 'DELETE', `/actions/${second.id}`);
    expect((await open(admin, person.id)).map((a) => a.id)).toEqual([first.id, third.id]);
    expect((await call(stranger)<Json>('DELETE', `/actions/${second.id}?undo=true`)).status).toBe(404);
    await ok(admin, 'DELETE', `/actions/${second.id}?undo=true`);
    expect((await open(admin, person.id)).map((a) => [a.id, a.position])).toEqual([
      [first.id, 0],
      [second.id, 1],
      [third.id, 2],
    ]);

    // A completed action comes back completed.
    const done = (await ok(admin, 'PUT', `/actions/${third.id}/mark_as_done`)).action;
    await ok(admin, 'DELETE', `/actions/${third.id}`);
    await ok(admin, 'DELETE', `/actions/${third.id}?undo=true`);
    expect((await ok(admin, 'GET', `/actions/${third.id}`)).action).toMatchObject({ status: 'done', done: true, done_at: done.done_at });
    expect((await call(admin)<Json>('DELETE', `/actions/${'a'.repeat(24)}?undo=true`)).status).toBe(404);
  });

  it("takes OnePageCRM's queued status: an undated queued action, last in the urgency order, asap once it is next", async () => {
    const person = await contact(admin);
    const next = await action(admin, person.id, { text: 'Now', status: 'date', date: '2031-01-01' });
    const later = await action(admin, person.id, { text: 'Some day', status: 'queued', date: '2031-05-05' });
    expect(later).toMatchObject({ status: 'queued', date: '', exact_time: 0, position: 1 });
    const dated = await action(admin, person.id, { text: 'Dated', status: 'queued_with_date', date: '2030-01-01', position: 1 });
    expect((await open(admin, person.id)).map((a) => [a.text, a.status, a.position])).toEqual([
      ['Now', 'date', 0],
      ['Dated', 'queued_with_date', 1],
      ['Some day', 'queued', 2],
    ]);
    // The wrapper: both queued; only the dated one is a date conflict.
    const wrapper = await ok(admin, 'GET', `/contacts/${person.id}`);
    expect(wrapper.queued_actions.map((a: Json) => a.id)).toEqual([dated.id, later.id]);
    expect(wrapper.next_action_conflicts.map((a: Json) => a.id)).toEqual([dated.id]);
    expect((await ok(admin, 'GET', `/actions?contact_id=${person.id}&status=queued`)).actions.map((e: Json) => e.action.id)).toEqual([
      later.id,
    ]);
    // A dated queued action PUT as queued loses its date and keeps its place.
    expect((await ok(admin, 'PUT', `/actions/${dated.id}`, { text: 'Dated', status: 'queued' })).action).toMatchObject({
      status: 'queued',
      date: '',
      position: 1,
    });
    // Completing the next action promotes the first queued one; undated, it becomes asap.
    await ok(admin, 'PUT', `/actions/${next.id}/mark_as_done`);
    expect((await ok(admin, 'GET', `/actions/${dated.id}`)).action).toMatchObject({ status: 'asap', position: 0, date: '' });
    // Undoing the completion puts the former next action back; the asap one returns to the queue front.
    await ok(admin, 'PUT', `/actions/${next.id}/undo_completion`);
    expect((await open(admin, person.id)).map((a) => [a.id, a.position])).toEqual([
      [next.id, 0],
      [dated.id, 1],
      [later.id, 2],
    ]);
  });

  it('refuses bad input with errors keyed by field and other accounts with 404', async () => {
    const person = await contact(admin);
    for (const [body, key] of [
      [{ status: 'soon' }, 'status'],
      [{ status: 'queueing' }, 'status'],
      [{ status: 'done' }, 'status'],
      [{ status: 'date' }, 'date'],
      [{ status: 'date_time' }, 'exact_time'],
      [{ status: 'queued_with_date' }, 'date'],
      [{ date: '2030-02-30' }, 'date'],
      [{ exact_time: 'noon' }, 'exact_time'],
      [{ position: 0, status: 'queued_with_date', date: '2030-01-01' }, 'position'],
      [{ text: '' }, 'text'],
    ] as Array<[Record<string, unknown>, string]>) {
      const res = await call(admin)<Json>('POST', '/actions', {
        contact_id: person.id,
        text: 'x',
        ...body,
      });
      expect([key, res.status, res.body.error_name]).toEqual([key, 400, 'invalid_request_data']);
      expect(Object.keys(res.body.errors)).toContain(key);
    }
    expect((await call(admin)<Json>('POST', '/actions', { contact_id: person.id })).body.errors).toHaveProperty('text');
    const theirs = await contact(stranger);
    expect(
      (
        await call(admin)<Json>('POST', '/actions', {
          contact_id: theirs.id,
          text: 'x',
        })
      ).body.error_name,
    ).toBe('resource_not_found');
    expect(
      (
        await call(admin)<Json>('POST', '/actions', {
          contact_id: person.id,
          text: 'x',
          assignee_id: stranger.user.id,
        })
      ).status,
    ).toBe(404);
    const mine = await action(admin, person.id, { status: 'waiting' });
    for (const [method, route, body] of [
      ['GET', `/actions/${mine.id}`, undefined],
      ['PUT', `/actions/${mine.id}`, { text: 'x' }],
      ['DELETE', `/actions/${mine.id}`, undefined],
      ['PUT', `/actions/${mine.id}/mark_as_done`, undefined],
      ['PUT', `/actions/${mine.id}/unlink`, undefined],
    ] as const) {
      const res = await call(stranger)<Json>(method, route, body);
      expect([route, res.status, res.body.error_name]).toEqual([route, 404, 'resource_not_found']);
    }
    expect(
      (
        await call(stranger)('PUT', `/actions/external/crm/x1`, {
          contact_id: person.id,
          text: 'x',
        })
      ).status,
    ).toBe(404);
    expect((await call(admin)('GET', `/actions/${FOREIGN_ID}`)).status).toBe(404);
    expect((await ok(stranger, 'GET', '/actions')).total_count).toBe(0);
  });

  it('never leaves two next actions for one contact and assignee under concurrent requests', async () => {
    const person = await contact(admin);
    const bodies = Array.from({ length: 16 }, (_, i) =>
      i % 2 === 0 ? { status: 'waiting' } : { date: `2030-04-${String(i + 1).padStart(2, '0')}` },
    );
    const results = await Promise.all(
      bodies.map((body) =>
        call(admin)<Json>('POST', '/actions', {
          contact_id: person.id,
          text: 'Race',
          ...body,
        }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(bodies.map(() => 201));
    let actions = await open(admin, person.id);
    expect(actions.filter((a) => a.status !== 'queued_with_date')).toHaveLength(1);
    expect(actions.filter((a) => a.status === 'queued_with_date').map((a) => a.position)).toEqual(
      Array.from({ length: 15 }, (_, i) => i + 1),
    );
    // Completions and deletions racing: every answer is clean (200, or 404 for an action another request removed first).
    const ids = actions.map((a) => a.id);
    // In waves of 16 (the per-user concurrency ceiling is 20).
    const requests = ids.flatMap((id, i) => [
      () => call(admin)('PUT', `/actions/${id}/mark_as_done`),
      i % 2 === 0 ? () => call(admin)('DELETE', `/actions/${id}`) : () => call(admin)('PUT', `/actions/${ids[(i + 1) % ids.length]}/swap`),
    ]);
    const raced = [
      ...(await Promise.all(requests.slice(0, 16).map((r) => r()))),
      ...(await Promise.all(requests.slice(16).map((r) => r()))),
    ];
    for (const res of raced) expect([200, 404, 409]).toContain(res.status);
    actions = await open(admin, person.id);
    expect(actions.filter((a) => a.status !== 'queued_with_date').length).toBeLessThanOrEqual(1);
    expect(actions.filter((a) => a.status === 'queued_with_date').map((a) => a.position)).toEqual(
      Array.from(
        {
          length: actions.filter((a) => a.status === 'queued_with_date').length,
        },
        (_, i) => i + 1,
      ),
    );
  });

  it('lets an mcp token write only POST /notes, POST /calls, POST /actions and mark_as_done', async () => {
    const token = await accessToken('mcp');
    const bearer = (method: string, path: string, body?: unknown) =>
      fetch(`${services.gatewayUrl}/api/v3${path}`, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body ? JSON.stringify(body) : undefined,
      });
    const person = await contact(admin);
    expect(
      (
        await bearer('POST', '/notes', {
          contact_id: person.id,
          text: 'From the assistant',
        })
      ).status,
    ).toBe(201);
    expect(
      (
        await bearer('POST', '/calls', {
          contact_id: person.id,
          text: 'Logged by the assistant',
        })
      ).status,
    ).toBe(201);
    const created = await bearer('POST', '/actions', {
      contact_id: person.id,
      text: 'Suggested',
      status: 'waiting',
    });
    expect(created.status).toBe(201);
    const actionId = (await created.json()).data.action.id;
    expect((await bearer('PUT', `/actions/${actionId}/mark_as_done`)).status).toBe(200);
    expect((await bearer('GET', '/deals')).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/meetings', { contact_id: person.id }],
      ['POST', `/contacts/${person.id}/notes`, { text: 'x' }],
      ['POST', `/contacts/${person.id}/deals`, { name: 'x' }],
      ['PUT', `/actions/${actionId}/undo_completion`, undefined],
      ['DELETE', `/actions/${actionId}`, undefined],
    ] as const) {
      const res = await bearer(method, path, body);
      expect([path, res.status, (await res.json()).error_name]).toEqual([path, 403, 'no_permission_to_complete_action']);
    }
  });

  it('documents every action route in the OpenAPI document', async () => {
    const doc = (await (await fetch(`${services.gatewayUrl}/api/v3/openapi.json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    expect(Object.keys(doc.paths['/actions']).sort()).toEqual(['get', 'post']);
    expect(Object.keys(doc.paths['/actions/{action_id}']).sort()).toEqual(['delete', 'get', 'put']);
    for (const verb of ['mark_as_done', 'undo_completion', 'swap', 'unlink'])
      expect(Object.keys(doc.paths[`/actions/{action_id}/${verb}`])).toEqual(['put']);
    expect(Object.keys(doc.paths['/actions/external/{provider}/{external_id}'])).toEqual(['put']);
    expect(Object.keys(doc.paths['/contacts/{contact_id}/actions']).sort()).toEqual(['get', 'post']);
  });

  /** An access token of the admin for `scope`, through the authorization code flow with PKCE (login and consent forms). */
  async function accessToken(scope: string): Promise<string> {
    const redirectUri = 'http://localhost:8765/callback';
    const operator = {
      authorization: `Bearer ${services.operatorToken}`,
      'content-type': 'application/json',
    };
    const client = await (
      await fetch(`${services.operatorUrl}/operator/clients`, {
        method: 'POST',
        headers: operator,
        body: JSON.stringify({
          client_name: 'Assistant',
          redirect_uris: [redirectUri],
          scope: 'crm crm.readonly mcp',
          token_endpoint_auth_method: 'client_secret_basic',
        }),
      })
    ).json();
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const cookies = new Map<string, string>();
    const go = async (url: string, form?: Record<string, string>) => {
      const res = await fetch(new URL(url, services.authUrl), {
        method: form ? 'POST' : 'GET',
        redirect: 'manual',
        headers: {
          cookie: [...cookies.values()].join('; '),
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form ? new URLSearchParams(form) : undefined,
      });
      for (const c of res.headers.getSetCookie()) cookies.set(c.split(';')[0].split('=')[0], c.split(';')[0]);
      return res;
    };
    const field = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]+)"`).exec(html)?.[1] ?? '';
    const uid = (html: string) => /\/oauth\/interaction\/([^/"]+)\//.exec(html)?.[1] ?? '';
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      scope,
      state: 'st',
      code_challenge: challenge,
      code_challenge_method: 'S256',
    });
    let res = await go(`/oauth/authorize?${query}`);
    let html = await (await go(res.headers.get('location')!)).text();
    res = await go(`/oauth/interaction/${uid(html)}/login`, {
      csrf: field(html, 'csrf'),
      email: admin.user.email,
      password: DEFAULT_TEST_PASSWORD,
    });
    res = await go(res.headers.get('location')!);
    html = await (await go(res.headers.get('location')!)).text();
    res = await go(`/oauth/interaction/${uid(html)}/confirm`, {
      csrf: field(html, 'csrf'),
    });
    res = await go(res.headers.get('location')!);
    const code = new URL(res.headers.get('location')!).searchParams.get('code')!;
    const tokens = await (
      await fetch(`${services.authUrl}/oauth/token`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          redirect_uri: redirectUri,
          code_verifier: verifier,
        }),
      })
    ).json();
    expect(tokens.scope).toBe(scope);
    return tokens.access_token as string;
  }
});
