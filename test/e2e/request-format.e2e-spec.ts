import { setupE2e } from './setup';

/** What a client gets for a body that is not JSON and for a missing credential (issue 15, item 6). */
describe('request format and authentication challenges (e2e)', () => {
  const { services, admin, member } = setupE2e({ member: true });
  const basic = () => `Basic ${Buffer.from(`${admin.user.id}:${admin.user.api_key}`).toString('base64')}`;
  const url = (path: string) => `${services.gatewayUrl}/api/v3${path}`;

  it('answers a form-encoded or text body 415 with a hint, and creates nothing', async () => {
    const form = await fetch(url('/contacts'), {
      method: 'POST',
      headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' },
      body: 'last_name=Lee',
    });
    expect(form.status).toBe(415);
    const body = (await form.json()) as { error_name: string; error_message: string };
    expect(body).toMatchObject({ status: 415, error_name: 'unsupported_media_type' });
    expect(body.error_message).toContain('application/json');
    const text = await fetch(url('/contacts'), { method: 'POST', headers: { authorization: basic() }, body: '{"last_name":"Lee"}' });
    expect(text.status).toBe(415);
    const list = await fetch(url('/contacts?search=Lee'), { headers: { authorization: basic() } });
    expect(((await list.json()) as { data: { total_count: number } }).data.total_count).toBe(0);
  });

  it('takes JSON with parameters and +json types, and bodiless writes without a Content-Type', async () => {
    const json = await fetch(url('/contacts'), {
      method: 'POST',
      headers: { authorization: basic(), 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ last_name: 'Json' }),
    });
    expect(json.status).toBe(201);
    const id = ((await json.json()) as { data: { contact: { id: string } } }).data.contact.id;
    const bodiless = await fetch(url(`/contacts/${id}`), { method: 'DELETE', headers: { authorization: basic() } });
    expect(bodiless.status).toBe(200);
  });

  it('sends a WWW-Authenticate challenge with every 401', async () => {
    const none = await fetch(url('/contacts'));
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic realm="[^"]+".*, Bearer realm="[^"]+"$/);
    const wrongKey = await fetch(url('/contacts'), {
      headers: { authorization: `Basic ${Buffer.from(`${admin.user.id}:not-the-key`).toString('base64')}` },
    });
    expect(wrongKey.status).toBe(401);
    expect(wrongKey.headers.get('www-authenticate')).toContain('Basic realm=');
    const badToken = await fetch(url('/contacts'), { headers: { authorization: 'Bearer not.a.token' } });
    expect(badToken.status).toBe(401);
    expect(badToken.headers.get('www-authenticate')).toMatch(/^Bearer realm="[^"]+", error="invalid_token"/);
  });

  it('points a developer at the reference from /, /api/v3 and unknown routes', async () => {
    for (const path of ['/', '/api/v3', '/api/v3/']) {
      const res = await fetch(`${services.gatewayUrl}${path}`);
      expect({ path, status: res.status }).toEqual({ path, status: 200 });
      const { data } = (await res.json()) as { data: { docs: string; openapi: string; mcp: string } };
      expect(data.docs).toMatch(/\/api\/v3\/docs$/);
      expect((await fetch(data.openapi)).status).toBe(200);
    }
    const unknown = await fetch(url('/no_such_thing'), { headers: { authorization: basic() } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error_message: string }).error_message).toContain('/api/v3/docs');
    // A path outside the API (a mistyped prefix) points there too, with the same error name.
    const outside = await fetch(`${services.gatewayUrl}/v3/contacts`);
    expect(outside.status).toBe(404);
    expect(await outside.json()).toMatchObject({
      error_name: 'resource_not_found',
      error_message: expect.stringContaining('/api/v3/docs'),
    });
  });

  it("refuses a plain user's admin-only request with 403 before looking at its body", async () => {
    const asMember = (method: string, path: string, body: unknown) =>
      fetch(url(path), {
        method,
        headers: {
          authorization: `Basic ${Buffer.from(`${member.user.id}:${member.user.api_key}`).toString('base64')}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify(body),
      });
    for (const [method, path, body] of [
      ['POST', '/webhooks', {}],
      ['POST', '/statuses', { text: 12 }],
      ['POST', '/custom_fields', { type: 'nonsense' }],
      ['DELETE', '/tags/x', { junk: true }],
    ] as const) {
      const res = await asMember(method, path, body);
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 403 });
      expect(((await res.json()) as { error_name: string }).error_name).toBe('no_permission_to_complete_action');
    }
    // The admin gets the validation error for the same body.
    const adminRes = await fetch(url('/webhooks'), {
      method: 'POST',
      headers: { authorization: basic(), 'content-type': 'application/json' },
      body: '{}',
    });
    expect(adminRes.status).toBe(400);
  });

  it('refuses a query parameter the endpoint does not take, naming it, so a typo never widens a list or a delete', async () => {
    const notes = await fetch(url('/notes?letter=a&per_page=5'), { headers: { authorization: basic() } });
    expect(notes.status).toBe(400);
    const body = (await notes.json()) as { error_name: string; errors: Record<string, string> };
    expect(body.error_name).toBe('invalid_request_data');
    expect(Object.keys(body.errors)).toEqual(['letter']);
    const typo = await fetch(url('/contacts?serach=Lee'), { headers: { authorization: basic() } });
    expect(typo.status).toBe(400);
    expect(((await typo.json()) as { errors: Record<string, string> }).errors).toHaveProperty('serach');
    expect((await fetch(url('/contacts?search=Lee&per_page=5'), { headers: { authorization: basic() } })).status).toBe(200);
  });
});
