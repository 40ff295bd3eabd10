import { MAX_NOTIFICATIONS_PER_USER } from '@crm/contracts';
import { recordCalls, type Json } from './record-helpers';
import { setupE2e } from './setup';

const NOTIFICATION_KEYS = ['by', 'contact_id', 'created_at', 'id', 'mobile_data', 'modified_at', 'read', 'record_id', 'type', 'user_id'];

/** The caller's notifications (issue 13; decisions.md "Notifications"), over HTTP. */
describe('notifications (e2e)', () => {
  const { services, admin, stranger, member } = setupE2e({ stranger: { name: 'Stranger Ltd' }, member: true });
  const { call, ok, contact } = recordCalls(() => services);

  const listOf = async (who: typeof admin, query = '') => (await ok(who, 'GET', `/notifications${query}`)) as Json;

  it("a note naming users notifies each of them but the author, with OnePageCRM's fields", async () => {
    const person = await contact(admin, { first_name: 'Nora', last_name: 'Noted' });
    const before = (await listOf(member)).total_count as number;
    const { note } = await ok(
      admin,
      'POST',
      '/notes',
      { contact_id: person.id, text: 'Call her back about the renewal', user_ids_to_notify: [member.user.id, admin.user.id] },
      201,
    );

    const mine = await listOf(member);
    expect(mine.total_count).toBe(before + 1);
    expect(mine).toMatchObject({ page: 1, per_page: 10 });
    const { notification } = mine.notifications[0];
    expect(Object.keys(notification).sort()).toEqual(NOTIFICATION_KEYS);
    expect(notification).toMatchObject({
      type: 'note',
      by: expect.stringMatching(/^\S+ [A-Z]\.$/),
      read: false,
      user_id: member.user.id,
      contact_id: person.id,
      record_id: note.id,
      mobile_data: { body: 'Call her back about the renewal', action_type: 'note', title: expect.stringContaining('Nora Noted') },
    });
    expect(notification.created_at).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    // The author named themself: no notification of their own note.
    expect((await listOf(admin)).notifications.map((n: Json) => n.notification.record_id)).not.toContain(note.id);
  });

  it("marks one read (PUT 200, POST 201), the first time only; another user's or account's is 404", async () => {
    const person = await contact(admin);
    await ok(admin, 'POST', '/notes', { contact_id: person.id, text: 'one', user_ids_to_notify: [member.user.id] }, 201);
    const { notification } = (await listOf(member)).notifications[0];

    const got = await ok(member, 'GET', `/notifications/${notification.id}`);
    expect(got.notification).toEqual(notification);

    const put = await ok(member, 'PUT', `/notifications/${notification.id}/mark_as_read`);
    expect(put.notification).toMatchObject({ id: notification.id, read: true });
    const post = await ok(member, 'POST', `/notifications/${notification.id}/mark_as_read.json`, undefined, 201);
    expect(post.notification).toMatchObject({ id: notification.id, read: true, modified_at: put.notification.modified_at });

    for (const who of [admin, stranger]) {
      for (const [method, path] of [
        ['GET', `/notifications/${notification.id}`],
        ['PUT', `/notifications/${notification.id}/mark_as_read`],
        ['POST', `/notifications/${notification.id}/mark_as_read`],
      ]) {
        const res = await call(who)<Json>(method, path);
        expect([method, path, res.status, res.body.error_name]).toEqual([method, path, 404, 'resource_not_found']);
      }
    }
    expect((await call(member)<Json>('GET', '/notifications/not-an-id')).status).toBe(404);
  });

  it('calls and meetings notify too, on create and update; deleting the record removes its notifications', async () => {
    const person = await contact(admin);
    const { call: logged } = await ok(
      admin,
      'POST',
      '/calls',
      { contact_id: person.id, text: 'Left a voicemail', call_result: 'other', user_ids_to_notify: [member.user.id] },
      201,
    );
    const { meeting } = await ok(
      admin,
      'POST',
      '/meetings',
      { contact_id: person.id, text: 'Demo', user_ids_to_notify: [member.user.id] },
      201,
    );
    await ok(admin, 'PUT', `/meetings/${meeting.id}`, { partial: true, user_ids_to_notify: [member.user.id] });

    const about = async (recordId: string) =>
      (await listOf(member, '?per_page=100')).notifications
        .filter((n: Json) => n.notification.record_id === recordId)
        .map((n: Json) => n.notification);
    expect(await about(logged.id)).toEqual([
      expect.objectContaining({ type: 'call', mobile_data: expect.objectContaining({ body: 'Left a voicemail' }) }),
    ]);
    expect((await about(meeting.id)).map((n: Json) => n.type)).toEqual(['meeting', 'meeting']);

    await ok(admin, 'DELETE', `/meetings/${meeting.id}`);
    expect(await about(meeting.id)).toEqual([]);
    expect(await about(logged.id)).toHaveLength(1);

    // A user who is not the account's: 404 for the field, and nothing is written.
    const res = await call(admin)<Json>('POST', '/calls', { contact_id: person.id, text: 'x', user_ids_to_notify: [stranger.user.id] });
    expect([res.status, res.body.error_name]).toEqual([404, 'resource_not_found']);
  });

  it(`marks all read at once, and keeps each user's ${MAX_NOTIFICATIONS_PER_USER} newest`, async () => {
    const person = await contact(admin);
    for (let i = 0; i < MAX_NOTIFICATIONS_PER_USER + 5; i++)
      await ok(admin, 'POST', '/notes', { contact_id: person.id, text: `note ${i}`, user_ids_to_notify: [member.user.id] }, 201);

    const all = await listOf(member, '?per_page=100');
    expect(all.total_count).toBe(MAX_NOTIFICATIONS_PER_USER);
    expect(all.max_page).toBe(1);
    expect(all.notifications[0].notification.mobile_data.body).toBe(`note ${MAX_NOTIFICATIONS_PER_USER + 4}`);
    expect(all.notifications.at(-1).notification.mobile_data.body).toBe('note 5');

    const unread = all.notifications.filter((n: Json) => !n.notification.read).length;
    expect(unread).toBeGreaterThan(0);
    const marked = await ok(member, 'POST', '/notifications/mark_all_as_read', undefined, 201);
    expect(marked).toEqual({ marked_count: unread });
    expect(await ok(member, 'PUT', '/notifications/mark_all_as_read')).toEqual({ marked_count: 0 });
    expect((await listOf(member, '?per_page=100')).notifications.every((n: Json) => n.notification.read)).toBe(true);
  });

  it('an unknown parameter of the list is 400 naming it', async () => {
    const res = await call(member)<Json>('GET', '/notifications?unread=true');
    expect([res.status, res.body.error_name]).toEqual([400, 'invalid_request_data']);
    expect(JSON.stringify(res.body.errors)).toContain('unread');
  });
});
