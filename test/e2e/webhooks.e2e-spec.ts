import { api, type CreatedAccount } from '@crm/testing';
import { setupE2e } from './setup';

type WebhookBody = {
  data: {
    webhook: {
      id: string;
      name: string;
      hook_url: string;
      secretkey: string;
      types: string[];
      status_id: string | null;
      active: boolean;
      signing_secret?: string;
      modified_at: string;
    };
  };
};

/** Webhook registrations over HTTP: gateway -> NATS -> webhook-dispatcher (decisions.md "Webhooks"). */
describe('webhook registrations (e2e)', () => {
  // Private receivers are refused as in production (the harness allows them by default).
  const { services, admin, stranger, member } = setupE2e({
    services: { env: { WEBHOOK_ALLOW_PRIVATE: 'false' } },
    stranger: true,
    member: true,
  });

  const call = (who: CreatedAccount) => api(services, who);
  const secretShape = /^whsec_[A-Za-z0-9+/]{43}=$/;

  it('registers a webhook with defaults and shows its signing secret only once', async () => {
    const created = await call(admin)<WebhookBody>('POST', '/webhooks', { name: 'Sync', hook_url: 'https://hooks.example.com/crm' });
    expect(created.status).toBe(201);
    const hook = created.body.data.webhook;
    expect(hook).toMatchObject({
      name: 'Sync',
      hook_url: 'https://hooks.example.com/crm',
      secretkey: '',
      types: [],
      status_id: null,
      active: true,
    });
    expect(hook.signing_secret).toMatch(secretShape);

    const got = await call(admin)<WebhookBody>('GET', `/webhooks/${hook.id}.json`);
    expect(got.status).toBe(200);
    expect(got.body.data.webhook.signing_secret).toBeUndefined();
    const { signing_secret: _secret, ...visible } = hook;
    expect(got.body.data.webhook).toEqual(visible);

    const list = await call(admin)<{ data: { webhooks: Array<{ webhook: { id: string } }>; total_count: number } }>('GET', '/webhooks');
    expect(list.body.data.total_count).toBe(1);
    expect(list.body.data.webhooks[0].webhook.id).toBe(hook.id);
  });

  it('replaces fields with PUT, rotates the secret, and deletes', async () => {
    const hook = (
      await call(admin)<WebhookBody>('POST', '/webhooks', {
        name: 'Deals only',
        hook_url: 'https://hooks.example.com/a',
        secretkey: 's3cret',
        types: ['deal'],
        status_id: 'A'.repeat(24),
      })
    ).body.data.webhook;
    expect(hook).toMatchObject({ secretkey: 's3cret', types: ['deal'], status_id: 'a'.repeat(24) });
    const replaced = await call(admin)<WebhookBody>('PUT', `/webhooks/${hook.id}`, {
      name: 'Everything',
      hook_url: 'https://hooks.example.com/b',
      active: 'false',
    });
    expect(replaced.status).toBe(200);
    expect(replaced.body.data.webhook).toMatchObject({
      name: 'Everything',
      hook_url: 'https://hooks.example.com/b',
      secretkey: '',
      types: [],
      status_id: null,
      active: false,
    });

    const rotated = await call(admin)<WebhookBody>('POST', `/webhooks/${hook.id}/rotate_secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.webhook.signing_secret).toMatch(secretShape);
    expect(rotated.body.data.webhook.signing_secret).not.toBe(hook.signing_secret);

    expect((await call(admin)('DELETE', `/webhooks/${hook.id}`)).status).toBe(200);
    expect((await call(admin)('GET', `/webhooks/${hook.id}`)).status).toBe(404);
  });

  it('refuses bad input, naming the field', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ hook_url: 'https://x.example' }, 'name'],
      [{ name: 'x', hook_url: 'ftp://x.example' }, 'hook_url'],
      [{ name: 'x', hook_url: 'https://x.example', types: ['contact', 'invoice'] }, 'types'],
      [{ name: 'x', hook_url: 'https://x.example', types: ['deal', 'deal'] }, 'types'],
      [{ name: 'x', hook_url: 'https://x.example', status_id: 'lead' }, 'status_id'],
      [{ name: 'x', hook_url: 'https://x.example', active: 'maybe' }, 'active'],
      [{ name: 'x', hook_url: 'http://127.0.0.1:8080/hook' }, 'hook_url'],
      [{ name: 'x', hook_url: 'http://169.254.169.254/latest' }, 'hook_url'],
      [{ name: 'x', hook_url: 'http://localhost/hook' }, 'hook_url'],
      [{ name: 'x', hook_url: 'http://[::1]/hook' }, 'hook_url'],
      [{ name: 'x', hook_url: 'https://user:pw@x.example/' }, 'hook_url'],
    ];
    for (const [body, field] of cases) {
      const res = await call(admin)('POST', '/webhooks', body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(Object.keys((res.body as { errors: object }).errors)).toContain(field);
    }
  });

  it('is for admins of the account only', async () => {
    const hook = (await call(admin)<WebhookBody>('POST', '/webhooks', { name: 'Mine', hook_url: 'https://hooks.example.com/mine' })).body
      .data.webhook;
    for (const [method, path] of [
      ['GET', '/webhooks'],
      ['POST', '/webhooks'],
      ['GET', `/webhooks/${hook.id}`],
      ['DELETE', `/webhooks/${hook.id}`],
      ['POST', `/webhooks/${hook.id}/rotate_secret`],
    ] as const) {
      const res = await call(member)(
        method,
        path,
        method === 'POST' && path === '/webhooks' ? { name: 'x', hook_url: 'https://x.example' } : undefined,
      );
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ error_name: 'no_permission_to_complete_action' });
    }
    for (const [method, path] of [
      ['GET', `/webhooks/${hook.id}`],
      ['PUT', `/webhooks/${hook.id}`],
      ['DELETE', `/webhooks/${hook.id}`],
      ['POST', `/webhooks/${hook.id}/rotate_secret`],
    ] as const) {
      const res = await call(stranger)(method, path, method === 'PUT' ? { name: 'x', hook_url: 'https://x.example' } : undefined);
      expect(res.status).toBe(404);
    }
    expect((await call(stranger)<{ data: { total_count: number } }>('GET', '/webhooks')).body.data.total_count).toBe(0);
    expect((await call(admin)('GET', `/webhooks/${hook.id}`)).status).toBe(200);
  });
});
