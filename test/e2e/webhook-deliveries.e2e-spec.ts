import { api, type CreatedAccount } from '@crm/testing';
import { Webhook } from 'standardwebhooks';
import { setupE2e } from './setup';
import { metric, startReceiver, until } from './webhook-helpers';

type Json = Record<string, unknown> & { data?: Record<string, unknown>; timestamp?: unknown };
interface Delivery {
  id: string;
  webhook_id: string;
  event_id: string;
  type: string;
  reason: string;
  record_id: string;
  status: string;
  attempts: Array<{ attempted_at: string; response_code: number | null; duration_ms: number; error: string | null }>;
  response_code: number | null;
  duration_ms: number | null;
  error: string | null;
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
}

/**
 * Deliveries end to end: API write -> outbox -> JetStream -> dispatcher -> signed POST to an
 * independent receiver (verified with the standardwebhooks package), the delivery log, redelivery,
 * retries, 410, status fallback, secret rotation and metrics. Retries run 1000x faster
 * (WEBHOOK_RETRY_SCALE=0.001: 5 s -> 5 ms, 5 min -> 300 ms).
 */
describe('webhook deliveries (e2e)', () => {
  const { services, admin, stranger } = setupE2e({ services: { env: { WEBHOOK_RETRY_SCALE: '0.001' } }, stranger: true });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    receiver = await startReceiver((hook, seen) => {
      if (hook.path === '/gone') return { status: 410 };
      if (hook.path === '/flaky') return { status: seen <= 2 ? 500 : 200 };
      return { status: 200 };
    });
  });

  afterAll(async () => {
    await receiver?.close();
  });

  const call = (who: CreatedAccount) => api(services, who);
  const dispatcherPort = () => services.processes.find((p) => p.app === 'webhook-dispatcher')!.metricsPort;

  async function register(body: Json): Promise<{ id: string; signing_secret: string; status_id: string | null }> {
    const res = await call(admin)<{ data: { webhook: { id: string; signing_secret: string; status_id: string | null } } }>(
      'POST',
      '/webhooks',
      body,
    );
    expect(res.status).toBe(201);
    return res.body.data.webhook;
  }

  async function deliveries(webhookId: string, query = ''): Promise<Delivery[]> {
    const res = await call(admin)<{ data: { deliveries: Array<{ delivery: Delivery }> } }>(
      'GET',
      `/webhooks/${webhookId}/deliveries${query}`,
    );
    expect(res.status).toBe(200);
    return res.body.data.deliveries.map((d) => d.delivery);
  }

  /** A new contact of the admin's account (its own event goes to contact webhooks only). */
  async function newContact(lastName: string): Promise<string> {
    const res = await call(admin)<{ data: { contact: { id: string } } }>('POST', '/contacts', { last_name: lastName });
    expect(res.status).toBe(201);
    return res.body.data.contact.id;
  }

  /** POST `path` as the admin, expecting 201; returns `data[key].id`. */
  async function create(path: string, key: string, body: Json): Promise<string> {
    const res = await call(admin)<{ data: Record<string, { id: string }> }>('POST', path, body);
    expect([path, res.status]).toEqual([path, 201]);
    return res.body.data[key].id;
  }

  async function switchOff(id: string, hookUrl: string): Promise<void> {
    expect((await call(admin)('PUT', `/webhooks/${id}`, { name: 'off', hook_url: hookUrl, active: false })).status).toBe(200);
  }

  it('POST /contacts reaches the receiver as a signed contact event the standardwebhooks package verifies', async () => {
    const hook = await register({ name: 'Contacts', hook_url: `${receiver.url}/contacts`, secretkey: 'legacy-secret', types: ['contact'] });
    const created = await call(admin)<{ data: { contact: { id: string } } }>('POST', '/contacts', {
      first_name: 'Ada',
      last_name: 'Lovelace',
    });
    expect(created.status).toBe(201);
    const contactId = created.body.data.contact.id;

    const [got] = await until(
      'the contact event reaches the receiver',
      () => receiver.on('/contacts').length > 0 && receiver.on('/contacts'),
    );
    // An independent receiver: the standardwebhooks package with the webhook's signing secret.
    const verified = new Webhook(hook.signing_secret).verify(got.body, got.headers) as Json;
    expect(Object.keys(verified)).toEqual(['type', 'reason', 'timestamp', 'secretkey', 'data']);
    expect(verified).toMatchObject({
      type: 'contact',
      reason: 'created',
      secretkey: 'legacy-secret',
      data: { contact: { id: contactId, last_name: 'Lovelace' } },
    });
    expect(Object.keys(verified.data ?? {}).sort()).toEqual([
      'contact',
      'most_urgent_action',
      'next_action',
      'next_actions',
      'queued_actions',
    ]);
    expect(typeof verified.timestamp).toBe('number');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    // A forged body fails verification.
    expect(() => new Webhook(hook.signing_secret).verify(got.body.replace('Lovelace', 'Babbage'), got.headers)).toThrow();

    const [log] = await until(
      'the delivery is logged',
      async () => (await deliveries(hook.id)).find((d) => d.status === 'delivered') && (await deliveries(hook.id)),
    );
    expect(log).toMatchObject({
      id: got.headers['webhook-id'],
      webhook_id: hook.id,
      type: 'contact',
      reason: 'created',
      record_id: contactId,
      status: 'delivered',
      response_code: 200,
      error: null,
      next_attempt_at: null,
    });
    expect(log.attempts).toEqual([{ attempted_at: expect.any(String), response_code: 200, duration_ms: expect.any(Number), error: null }]);
    expect(log.completed_at).not.toBeNull();
    await switchOff(hook.id, `${receiver.url}/contacts`);
  });

  it('lists deliveries newest first with paging and a status filter; redelivers with the same webhook-id', async () => {
    const hook = await register({ name: 'Notes', hook_url: `${receiver.url}/notes`, types: ['note'] });
    const contactId = await newContact('Noted');
    const notes: string[] = [];
    for (const text of ['First', 'Second', 'Third']) notes.push(await create('/notes', 'note', { contact_id: contactId, text }));
    await until('three notes delivered', async () => (await deliveries(hook.id, '?status=delivered')).length === 3);
    expect((await deliveries(hook.id)).map((d) => d.record_id).sort()).toEqual([...notes].sort());

    const page = await call(admin)<{
      data: { deliveries: Array<{ delivery: Delivery }>; total_count: number; page: number; per_page: number; max_page: number };
    }>('GET', `/webhooks/${hook.id}/deliveries.json?per_page=2&page=2`);
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ total_count: 3, page: 2, per_page: 2, max_page: 2 });
    expect(page.body.data.deliveries).toHaveLength(1);
    expect(await deliveries(hook.id, '?status=failed')).toEqual([]);
    expect((await call(admin)('GET', `/webhooks/${hook.id}/deliveries?status=lost`)).status).toBe(400);

    const [newest] = await deliveries(hook.id);
    const before = receiver.on('/notes').filter((h) => h.headers['webhook-id'] === newest.id).length;
    const again = await call(admin)<{ data: { delivery: Delivery } }>('POST', `/webhooks/${hook.id}/deliveries/${newest.id}/redeliver`);
    expect(again.status).toBe(200);
    expect(again.body.data.delivery).toMatchObject({ id: newest.id, status: 'pending' });
    await until(
      'redelivered with the same webhook-id',
      () => receiver.on('/notes').filter((h) => h.headers['webhook-id'] === newest.id).length === before + 1,
    );
    await until('two attempts logged', async () => (await deliveries(hook.id)).find((d) => d.id === newest.id)!.attempts.length === 2);

    // Another account's webhook, an unknown or malformed delivery id: 404.
    expect((await call(stranger)('GET', `/webhooks/${hook.id}/deliveries`)).status).toBe(404);
    expect((await call(stranger)('POST', `/webhooks/${hook.id}/deliveries/${newest.id}/redeliver`)).status).toBe(404);
    expect((await call(admin)('POST', `/webhooks/${hook.id}/deliveries/${'0'.repeat(24)}/redeliver`)).status).toBe(404);
    expect((await call(admin)('POST', `/webhooks/${hook.id}/deliveries/not-an-id/redeliver`)).status).toBe(404);
    await switchOff(hook.id, `${receiver.url}/notes`);
  });

  it('a receiver answering 500 twice then 200 gets the event on the third try', async () => {
    const hook = await register({ name: 'Flaky', hook_url: `${receiver.url}/flaky`, types: ['call'] });
    const callId = await create('/calls', 'call', { contact_id: await newContact('Flaky'), text: 'Ring' });
    const delivery = await until('delivered on a later try', async () => (await deliveries(hook.id)).find((d) => d.status === 'delivered'));
    expect(delivery).toMatchObject({ type: 'call', reason: 'created', record_id: callId });
    expect(delivery.attempts.map((a) => a.response_code)).toEqual([500, 500, 200]);
    expect(delivery.attempts[0].error).toBe('HTTP 500');
    expect(new Set(receiver.on('/flaky').map((h) => h.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    expect(await metric(dispatcherPort(), 'webhook_delivery_failures_total', 'kind="http_status"')).toBeGreaterThanOrEqual(2);
    await switchOff(hook.id, `${receiver.url}/flaky`);
  });

  it('410 switches the webhook off; a redelivery then is 409 until it is active again', async () => {
    const hook = await register({ name: 'Gone', hook_url: `${receiver.url}/gone`, types: ['meeting'] });
    const meetingId = await create('/meetings', 'meeting', { contact_id: await newContact('Gone'), text: 'Lunch' });
    await until(
      'the webhook is switched off',
      async () =>
        (await call(admin)<{ data: { webhook: { active: boolean } } }>('GET', `/webhooks/${hook.id}`)).body.data.webhook.active === false,
    );
    const [failed] = await deliveries(hook.id);
    expect(failed).toMatchObject({ record_id: meetingId, status: 'failed', response_code: 410, next_attempt_at: null });
    const res = await call(admin)('POST', `/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`);
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ error_name: 'conflict' });
  });

  it('status filter: only contacts of that status; deleting the status falls the webhook back to lead', async () => {
    const status = (await call(admin)<{ data: { status: { id: string } } }>('POST', '/statuses', { text: 'Hot lead' })).body.data.status;
    const lead = (await call(admin)<{ data: { statuses: Array<{ status: { id: string } }> } }>('GET', '/statuses')).body.data.statuses[0]
      .status;
    const hook = await register({ name: 'Hot', hook_url: `${receiver.url}/hot`, status_id: status.id, types: ['contact'] });
    // Without a filter: once it has both contacts, both events have been fanned out (the deliveries of an event are stored with it).
    const witness = await register({ name: 'All contacts', hook_url: `${receiver.url}/witness`, types: ['contact'] });
    const hot = await call(admin)<{ data: { contact: { id: string } } }>('POST', '/contacts', { last_name: 'Hot', status_id: status.id });
    const cold = await call(admin)<{ data: { contact: { id: string } } }>('POST', '/contacts', { last_name: 'Cold' });
    expect([hot.status, cold.status]).toEqual([201, 201]);
    const [hotId, coldId] = [hot.body.data.contact.id, cold.body.data.contact.id];
    const witnessed = () => receiver.on('/witness').map((h) => (h.json.data.contact as { id: string }).id);
    await until('both contacts reach the unfiltered webhook', () => witnessed().includes(hotId) && witnessed().includes(coldId));
    await until('the hot contact is delivered', () => receiver.on('/hot').length > 0);
    expect((await deliveries(hook.id)).map((d) => d.record_id)).toEqual([hotId]);
    expect(receiver.on('/hot').map((h) => (h.json.data.contact as { id: string }).id)).toEqual([hotId]);
    // The event body shows the contact as the API does: `status` the status's name (its text), `status_id` its id.
    expect(receiver.on('/hot')[0].json.data.contact).toMatchObject({ status: 'Hot lead', status_id: status.id });
    await switchOff(witness.id, `${receiver.url}/witness`);

    expect((await call(admin)('DELETE', `/statuses/${status.id}`)).status).toBe(200);
    await until(
      'the webhook filters on the lead status',
      async () =>
        (await call(admin)<{ data: { webhook: { status_id: string } } }>('GET', `/webhooks/${hook.id}`)).body.data.webhook.status_id ===
        lead.id,
    );
    // The status event itself is never delivered.
    expect(receiver.received.filter((h) => (h.json.type as string) === 'status')).toEqual([]);
    await switchOff(hook.id, `${receiver.url}/hot`);
  });

  it('after rotate_secret both the new and the previous secret verify deliveries', async () => {
    const hook = await register({ name: 'Rotating', hook_url: `${receiver.url}/rotating`, types: ['company'] });
    const rotated = (await call(admin)<{ data: { webhook: { signing_secret: string } } }>('POST', `/webhooks/${hook.id}/rotate_secret`))
      .body.data.webhook.signing_secret;
    // A contact with a new company name creates the company: a company event.
    expect((await call(admin)('POST', '/contacts', { last_name: 'Rotor', company_name: 'Rotating Ltd' })).status).toBe(201);
    const [got] = await until('delivered', () => receiver.on('/rotating').length > 0 && receiver.on('/rotating'));
    expect(got.json).toMatchObject({ type: 'company', reason: 'created', data: { company: { name: 'Rotating Ltd' } } });
    expect(got.headers['webhook-signature'].split(' ')).toHaveLength(2);
    expect(new Webhook(rotated).verify(got.body, got.headers)).toBeTruthy();
    expect(new Webhook(hook.signing_secret).verify(got.body, got.headers)).toBeTruthy();
    await switchOff(hook.id, `${receiver.url}/rotating`);
  });

  it('exposes queue depth, latency and failures on the dispatcher /metrics', async () => {
    const port = dispatcherPort();
    expect(await metric(port, 'webhook_queue_depth', 'queue="stream"')).toBe(0);
    expect(await metric(port, 'webhook_queue_depth', 'queue="due"')).not.toBeNull();
    expect(await metric(port, 'webhook_delivery_latency_seconds_count', 'attempt="first"')).toBeGreaterThan(0);
    expect(await metric(port, 'webhook_delivery_attempts_total', 'outcome="delivered"')).toBeGreaterThan(0);
    expect(await metric(port, 'webhook_delivery_attempts_total', 'outcome="failed"')).toBeGreaterThanOrEqual(1);
    expect(await metric(port, 'webhook_dispatcher_ingesting')).toBe(1);
  });
});
