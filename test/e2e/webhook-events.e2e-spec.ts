import { Webhook } from 'standardwebhooks';
import { setupE2e, calls, type Json } from './setup';
import { startReceiver, until, type ReceivedHook } from './webhook-helpers';

/**
 * The bodies of webhook events, written through the API (spec "Events"): exactly the five keys
 * `type`, `reason`, `timestamp`, `secretkey`, `data`; `data` as the API shows the record, under
 * its entity key, and flat `{ id }` on `deleted`. Calls and meetings (created, updated, deleted),
 * a bulk delete of contacts, and a completed action.
 */
describe('webhook event bodies (e2e)', () => {
  const fileStartedAt = Math.floor(Date.now() / 1000);
  const { services, admin } = setupE2e({ services: { env: { WEBHOOK_RETRY_SCALE: '0.001' } } });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver();
  });

  afterAll(async () => {
    await receiver?.close();
  });

  const { call, ok } = calls(services);

  /** A webhook on `path` of the receiver for `types`, with a secretkey of its own; returns its id and signing secret. */
  async function register(path: string, types: string[]): Promise<{ id: string; signing_secret: string; secretkey: string }> {
    const secretkey = `secret-of-${path.slice(1)}`;
    const { webhook } = await ok(admin, 'POST', '/webhooks', { name: path, hook_url: `${receiver.url}${path}`, secretkey, types }, 201);
    return { id: webhook.id, signing_secret: webhook.signing_secret, secretkey };
  }

  /** The record id an event names: `data.<type>.id`, or `data.id` when deleted (spec Events rules 1 and 3). */
  const recordOf = (hook: ReceivedHook): unknown =>
    hook.json.reason === 'deleted' ? hook.json.data.id : (hook.json.data[hook.json.type] as { id?: unknown } | undefined)?.id;

  /** Waits until `path` received the event `type`/`reason` of record `id`, and checks its envelope. */
  async function event(
    hook: { signing_secret: string; secretkey: string },
    path: string,
    type: string,
    reason: string,
    id: string,
  ): Promise<Json> {
    const got = await until(`${type} ${reason} of ${id} reaches ${path}`, () =>
      receiver.on(path).find((h) => h.json.type === type && h.json.reason === reason && recordOf(h) === id),
    );
    // Exactly the five keys, in the spec's order, signed with the webhook's secret.
    const body = new Webhook(hook.signing_secret).verify(got.body, got.headers) as Json;
    expect(Object.keys(body)).toEqual(['type', 'reason', 'timestamp', 'secretkey', 'data']);
    expect(got.headers['content-type']).toBe('application/json');
    expect(body.secretkey).toBe(hook.secretkey);
    // Unix seconds of a moment of this run (not milliseconds, not a date string).
    expect(Number.isInteger(body.timestamp)).toBe(true);
    expect(body.timestamp).toBeGreaterThanOrEqual(fileStartedAt - 1);
    expect(body.timestamp).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
    return body;
  }

  /** The reasons `path` received for record `id`, in the order they arrived. */
  const reasonsOf = (path: string, id: string) =>
    receiver
      .on(path)
      .filter((h) => recordOf(h) === id)
      .map((h) => h.json.reason);

  const newContact = async (lastName: string): Promise<string> =>
    (await ok(admin, 'POST', '/contacts', { first_name: 'Eve', last_name: lastName }, 201)).contact.id;

  it('call created, updated and deleted: data.call as the API answered it, then flat { id }', async () => {
    const hook = await register('/calls', ['call']);
    const contactId = await newContact('Caller');
    const created = (await ok(admin, 'POST', '/calls', { contact_id: contactId, text: 'Intro call', phone_number: '+1 555 0100' }, 201))
      .call;
    const updated = (await ok(admin, 'PUT', `/calls/${created.id}`, { text: 'Intro call, moved', via: 'zoom' })).call;
    expect(updated.text).toBe('Intro call, moved');
    expect(await ok(admin, 'DELETE', `/calls/${created.id}`)).toEqual({});

    const createdEvent = await event(hook, '/calls', 'call', 'created', created.id);
    expect(createdEvent).toMatchObject({ type: 'call', reason: 'created' });
    expect(createdEvent.data).toEqual({ call: created });
    const updatedEvent = await event(hook, '/calls', 'call', 'updated', created.id);
    expect(updatedEvent.data).toEqual({ call: updated });
    const deletedEvent = await event(hook, '/calls', 'call', 'deleted', created.id);
    expect(deletedEvent.data).toEqual({ id: created.id });
    // One record's events reach a webhook in the order they happened.
    expect(reasonsOf('/calls', created.id)).toEqual(['created', 'updated', 'deleted']);
  });

  it('meeting created, updated and deleted: data.meeting as the API answered it, then flat { id }', async () => {
    const hook = await register('/meetings', ['meeting']);
    const contactId = await newContact('Meeter');
    const created = (
      await ok(
        admin,
        'POST',
        '/meetings',
        { contact_id: contactId, text: 'Kick-off', place: 'Room 4', meeting_time_int: 1_900_000_000 },
        201,
      )
    ).meeting;
    const updated = (
      await ok(admin, 'PUT', `/meetings/${created.id}`, { text: 'Kick-off', place: 'Room 5', meeting_time_int: 1_900_003_600 })
    ).meeting;
    expect(updated.place).toBe('Room 5');
    expect(await ok(admin, 'DELETE', `/meetings/${created.id}`)).toEqual({});

    const createdEvent = await event(hook, '/meetings', 'meeting', 'created', created.id);
    expect(createdEvent.data).toEqual({ meeting: created });
    const updatedEvent = await event(hook, '/meetings', 'meeting', 'updated', created.id);
    expect(updatedEvent.data).toEqual({ meeting: updated });
    const deletedEvent = await event(hook, '/meetings', 'meeting', 'deleted', created.id);
    expect(deletedEvent.data).toEqual({ id: created.id });
    expect(reasonsOf('/meetings', created.id)).toEqual(['created', 'updated', 'deleted']);
  });

  it('a bulk delete of contacts sends one flat deleted event per contact, and undelete sends created again', async () => {
    const hook = await register('/contacts', ['contact']);
    const [a, b, kept] = [await newContact('Bulk A'), await newContact('Bulk B'), await newContact('Bulk Kept')];
    const deleted = await call(admin)('DELETE', `/contacts/delete?ids=${a},${b}`);
    expect(deleted.status).toBe(200);

    for (const id of [a, b]) {
      const body = await event(hook, '/contacts', 'contact', 'deleted', id);
      // Flat: only the id, none of the contact event's sibling keys (spec Events rule 3).
      expect(body).toMatchObject({ type: 'contact', reason: 'deleted' });
      expect(body.data).toEqual({ id });
    }
    // The contact left alone has no deleted event: the delivery log of this webhook names a and b only.
    const log = await ok(admin, 'GET', `/webhooks/${hook.id}/deliveries?per_page=100`);
    const deletions = log.deliveries.map((d: Json) => d.delivery).filter((d: Json) => d.reason === 'deleted');
    expect(deletions.map((d: Json) => d.record_id).sort()).toEqual([a, b].sort());
    await event(hook, '/contacts', 'contact', 'created', kept);
    expect(reasonsOf('/contacts', kept)).toEqual(['created']);

    // Undelete brings the contact back with a full created event (a receiver that dropped it recreates it).
    expect((await call(admin)('POST', `/contacts/undelete?ids=${a}`)).status).toBe(200);
    await until('the undeleted contact is created again', () => reasonsOf('/contacts', a).length === 3);
    expect(reasonsOf('/contacts', a)).toEqual(['created', 'deleted', 'created']);
    const again = receiver.on('/contacts').filter((h) => recordOf(h) === a)[2];
    expect(Object.keys(again.json.data).sort()).toEqual(['contact', 'most_urgent_action', 'next_action', 'next_actions', 'queued_actions']);
    expect(again.json.data.contact).toMatchObject({ id: a, last_name: 'Bulk A' });
  });

  it('an action marked as done sends completed: status done, done true, a done_at date and no date key', async () => {
    const hook = await register('/actions', ['action']);
    const contactId = await newContact('Doer');
    const action = (
      await ok(admin, 'POST', '/actions', { contact_id: contactId, text: 'Send the offer', status: 'date', date: '2030-01-02' }, 201)
    ).action;
    const done = (await ok(admin, 'PUT', `/actions/${action.id}/mark_as_done`)).action;

    const created = await event(hook, '/actions', 'action', 'created', action.id);
    expect(created.data).toEqual({ action });
    const completed = await event(hook, '/actions', 'action', 'completed', action.id);
    expect(completed).toMatchObject({ type: 'action', reason: 'completed' });
    expect(completed.data).toEqual({ action: done });
    expect(completed.data.action).toMatchObject({
      id: action.id,
      status: 'done',
      done: true,
      done_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    });
    expect(completed.data.action).not.toHaveProperty('date');
    expect(reasonsOf('/actions', action.id)).toEqual(['created', 'completed']);
  });
});
