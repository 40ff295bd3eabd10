import { api, resolveTestInfra, type CreatedAccount } from '@crm/testing';
import { Redis } from 'ioredis';
import { restAccessToken } from './oauth-helpers';
import { setupE2e } from './setup';

/** Idempotency-Key on POST through the gateway (decisions.md "Beyond the spec"). */
describe('Idempotency-Key (e2e)', () => {
  const password = 'correct horse battery staple';
  const { services, admin: account, stranger: other } = setupE2e({ services: { crmCoreReplicas: 2 }, admin: { password }, stranger: true });

  const list = async (who: CreatedAccount) =>
    (
      await api(services, who)<{ data: { custom_fields: Array<{ custom_field: { id: string; name: string } }> } }>(
        'GET',
        '/custom_fields?per_page=100',
      )
    ).body.data.custom_fields.map((f) => f.custom_field);

  it('two identical requests at the same moment create one record and get the same response', async () => {
    const post = api(services, account);
    const body = { name: 'Budget', type: 'number' };
    const [a, b] = await Promise.all([
      post('POST', '/custom_fields', body, { 'idempotency-key': 'create-budget' }),
      post('POST', '/custom_fields', body, { 'idempotency-key': 'create-budget' }),
    ]);
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.body).toEqual(a.body);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual(['true', null].sort());
    expect((await list(account)).filter((f) => f.name === 'Budget')).toHaveLength(1);

    const later = await post('POST', '/custom_fields', { type: 'number', name: 'Budget' }, { 'idempotency-key': 'create-budget' });
    expect(later.status).toBe(201);
    expect(later.body).toEqual(a.body);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
  });

  it('answers 409 conflict for the same key with another body', async () => {
    const post = api(services, account);
    expect((await post('POST', '/custom_fields', { name: 'Region', type: 'text' }, { 'idempotency-key': 'k-region' })).status).toBe(201);
    const reused = await post('POST', '/custom_fields', { name: 'Region 2', type: 'text' }, { 'idempotency-key': 'k-region' });
    expect(reused.status).toBe(409);
    expect(reused.body).toMatchObject({ status: 409, error_name: 'conflict' });
    expect((await list(account)).some((f) => f.name === 'Region 2')).toBe(false);
  });

  it('keeps keys per user, lets a failed first attempt be retried, and refuses malformed keys', async () => {
    const mine = await api(services, other)(
      'POST',
      '/custom_fields',
      { name: 'Budget', type: 'number' },
      { 'idempotency-key': 'create-budget' },
    );
    expect(mine.status).toBe(201);
    expect(mine.headers.get('idempotent-replayed')).toBeNull();

    const post = api(services, account);
    const invalid = await post('POST', '/custom_fields', { name: 'Stage', type: 'select_box' }, { 'idempotency-key': 'k-stage' });
    expect(invalid.status).toBe(400);
    const fixedBody = await post('POST', '/custom_fields', { name: 'Stage', type: 'select_box' }, { 'idempotency-key': 'k-stage' });
    expect(fixedBody.status).toBe(400);
    expect(fixedBody.headers.get('idempotent-replayed')).toBeNull();

    const malformed = await post('POST', '/custom_fields', { name: 'X', type: 'text' }, { 'idempotency-key': 'x'.repeat(300) });
    expect(malformed.status).toBe(400);
    expect(malformed.body).toMatchObject({ error_name: 'invalid_request_data', errors: { 'Idempotency-Key': expect.any(String) } });
  });

  it('never replays past authorization: a read-only app reusing a key the API key used gets 403, not the stored answer', async () => {
    const body = { name: 'Replay target', type: 'text' };
    const first = await api(services, account)('POST', '/custom_fields', body, { 'idempotency-key': 'shared-key' });
    expect(first.status).toBe(201);
    const readonly = await restAccessToken(services, account, password, 'crm.readonly');
    const replay = await fetch(`${services.gatewayUrl}/api/v3/custom_fields`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readonly}`, 'content-type': 'application/json', 'idempotency-key': 'shared-key' },
      body: JSON.stringify(body),
    });
    expect(replay.status).toBe(403);
    expect(replay.headers.get('idempotent-replayed')).toBeNull();
    expect(((await replay.json()) as { error_name: string }).error_name).toBe('no_permission_to_complete_action');

    // Keys belong to the credential too: an app with write scope does not get the API key's answer.
    const writer = await restAccessToken(services, account, password, 'crm');
    const other = await fetch(`${services.gatewayUrl}/api/v3/custom_fields`, {
      method: 'POST',
      headers: { authorization: `Bearer ${writer}`, 'content-type': 'application/json', 'idempotency-key': 'shared-key' },
      body: JSON.stringify({ name: 'Written by the app', type: 'text' }),
    });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
  });

  it('never stores an answer that carries a secret: a repeated key on POST /change_auth_key is 409', async () => {
    const first = await api(services, other)<{ data: { auth_key: string } }>('POST', '/change_auth_key', undefined, {
      'idempotency-key': 'rotate-once',
    });
    expect(first.status).toBe(201);
    const newKey = first.body.data.auth_key;
    expect(newKey).toEqual(expect.any(String));
    const rotated = { ...other, user: { ...other.user, api_key: newKey } };
    const repeat = await api(services, rotated)('POST', '/change_auth_key', undefined, { 'idempotency-key': 'rotate-once' });
    expect(repeat.status).toBe(409);
    expect(repeat.body).toMatchObject({ error_name: 'conflict' });
    expect(JSON.stringify(repeat.body)).not.toContain(newKey);

    const redis = new Redis(resolveTestInfra().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await redis.connect();
      const keys: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(cursor, 'MATCH', `${services.namespace}:gw:idem:*`, 'COUNT', 1000);
        cursor = next;
        keys.push(...batch);
      } while (cursor !== '0');
      expect(keys.length).toBeGreaterThan(0);
      const values = await redis.mget(...keys);
      expect(values.filter((v) => v?.includes(newKey))).toEqual([]);
    } finally {
      redis.disconnect();
    }
  });
});
