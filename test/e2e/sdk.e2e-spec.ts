import { CrmApiError, createCrmClient, type CrmClient } from '@crm/sdk';
import { DEFAULT_TEST_PASSWORD } from '@crm/testing';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { restAccessToken } from './oauth-helpers';
import { setupE2e } from './setup';

/** The typed SDK (libs/sdk) against the running system, as an API user writes it. */
describe('the TypeScript SDK (e2e)', () => {
  const { services, admin } = setupE2e();
  let crm: CrmClient;

  beforeAll(() => {
    crm = createCrmClient({ baseUrl: services.gatewayUrl, auth: { type: 'basic', userId: admin.user.id, apiKey: admin.user.api_key } });
  });

  it('was generated from the document this gateway serves', async () => {
    const served = (await (await fetch(`${services.gatewayUrl}/api/v3/openapi.json`)).json()) as Record<string, unknown>;
    const copy = JSON.parse(readFileSync(path.join(__dirname, '../../libs/sdk/openapi.json'), 'utf8')) as Record<string, unknown>;
    // Only the server URLs differ (the copy names localhost).
    expect(served.paths).toEqual(copy.paths);
    expect((served.components as { schemas: unknown }).schemas).toEqual((copy.components as { schemas: unknown }).schemas);
  });

  it('creates, lists, gets and updates a contact, unwrapping the envelope', async () => {
    const created = await crm.POST('/contacts', {
      body: { first_name: 'Grace', last_name: 'Hopper', emails: [{ type: 'work', value: 'grace@example.test' }] },
      params: { header: { 'Idempotency-Key': `sdk-${Date.now()}` } },
    });
    expect(created.contact).toMatchObject({ first_name: 'Grace', last_name: 'Hopper' });
    const id = created.contact.id;

    const list = await crm.GET('/contacts', { params: { query: { per_page: 100, search: 'Hopper' } } });
    expect(list.contacts.map((entry) => entry.contact.id)).toContain(id);
    expect(list).toMatchObject({ page: 1, per_page: 100 });

    const got = await crm.GET('/contacts/{contact_id}', { params: { path: { contact_id: id } } });
    expect(got.contact.emails).toEqual([expect.objectContaining({ value: 'grace@example.test' })]);

    const patched = await crm.PATCH('/contacts/{contact_id}', {
      params: { path: { contact_id: id } },
      body: { job_title: 'Rear Admiral' },
    });
    expect(patched.contact).toMatchObject({ id, job_title: 'Rear Admiral', last_name: 'Hopper' });

    const deal = await crm.POST('/deals', { body: { contact_id: id, name: 'Compiler licences', amount: 1200 } });
    expect(deal.deal).toMatchObject({ contact_id: id, name: 'Compiler licences', status: 'pending' });
  });

  it('rejects with CrmApiError carrying error_name, field errors and the request id', async () => {
    const missing = await crm.GET('/contacts/{contact_id}', { params: { path: { contact_id: '0123456789abcdef01234567' } } }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(missing).toBeInstanceOf(CrmApiError);
    expect(missing).toMatchObject({ status: 404, errorName: 'resource_not_found', requestId: expect.any(String) });

    const invalid = await crm
      // The SDK's types refuse a deal without a name; a JavaScript caller can still send one.
      .POST('/deals', { body: { contact_id: '0123456789abcdef01234567' } as never })
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(invalid).toMatchObject({ status: 400, errorName: 'invalid_request_data', errors: { name: 'name is required' } });

    const stranger = createCrmClient({
      baseUrl: `${services.gatewayUrl}/api/v3`,
      auth: { type: 'basic', userId: admin.user.id, apiKey: 'wrong' },
    });
    const refused = await stranger.GET('/users').then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toMatchObject({ status: 401, errorName: 'invalid_auth_token' });
  });

  it('takes an OAuth access token (bearer), asked for before each request', async () => {
    const token = await restAccessToken(services, admin, DEFAULT_TEST_PASSWORD, 'crm');
    let asked = 0;
    const app = createCrmClient({
      baseUrl: services.gatewayUrl,
      auth: {
        type: 'bearer',
        token: () => {
          asked += 1;
          return token;
        },
      },
    });
    const note = await app.POST('/notes', {
      body: {
        contact_id: (await app.POST('/contacts', { body: { last_name: 'Lovelace' } })).contact.id,
        text: 'Met at the analytical engine demo',
      },
    });
    expect(note.note.text).toBe('Met at the analytical engine demo');
    const users = await app.GET('/users');
    // The reply type has both list formats; the account's default is the paged object.
    expect(Array.isArray(users)).toBe(false);
    const entries = Array.isArray(users) ? users : users.users;
    expect(entries.map((u) => u.user.id)).toContain(admin.user.id);
    expect(asked).toBe(3);
    // API-key-only routes refuse a bearer token, with the error name the document lists.
    await expect(app.POST('/change_auth_key')).rejects.toMatchObject({ status: 401, errorName: 'invalid_auth_token' });
  });
});
