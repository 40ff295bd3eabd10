import { api, resolveTestInfra } from '@crm/testing';
import { CacheKeys } from '@crm/contracts';
import { Redis } from 'ioredis';
import { setupE2e } from './setup';

/**
 * Redis is not a trust boundary the gateway believes: credential records are sealed by the
 * auth-server with the pepper, so a process that can write Redis cannot raise a user's role or
 * move one user's record onto another (issue 16, finding 8).
 */
describe('credential records in Redis (e2e)', () => {
  const { services, admin, member } = setupE2e({ member: true });
  let redis: Redis;

  beforeAll(async () => {
    redis = new Redis(resolveTestInfra().redisUrl, { maxRetriesPerRequest: 1 });
  });
  afterAll(() => redis.disconnect());

  const recordKey = (userId: string) => CacheKeys.credentials(services.namespace, userId);

  it('does not believe an edited record: a plain user made admin in Redis is still a plain user', async () => {
    expect((await api(services, member)('GET', '/webhooks')).status).toBe(403);
    const sealed = await redis.get(recordKey(member.user.id));
    expect(sealed).not.toBeNull();
    // The record as the auth-server wrote it is not plain JSON: it carries a seal.
    expect(() => JSON.parse(sealed!)).toThrow();
    const payload = JSON.parse(sealed!.slice(sealed!.indexOf('.') + 1)) as { role: string };
    expect(payload.role).toBe('user');
    const ttl = await redis.ttl(recordKey(member.user.id));
    await redis.set(recordKey(member.user.id), JSON.stringify({ ...payload, role: 'admin' }), 'EX', ttl);
    const edited = await api(services, member)('GET', '/webhooks');
    expect(edited.status).toBe(403);
    expect(edited.body).toMatchObject({ error_name: 'no_permission_to_complete_action' });
    // Keeping the seal but changing the payload does not work either.
    await redis.set(recordKey(member.user.id), sealed!.replace('"role":"user"', '"role":"admin"'), 'EX', ttl);
    expect((await api(services, member)('GET', '/webhooks')).status).toBe(403);
  });

  it("does not accept one user's sealed record under another user's id", async () => {
    expect((await api(services, admin)('GET', '/users')).status).toBe(200);
    expect((await api(services, member)('GET', '/users')).status).toBe(200);
    const adminRecord = await redis.get(recordKey(admin.user.id));
    expect(adminRecord).not.toBeNull();
    await redis.set(recordKey(member.user.id), adminRecord!, 'EX', 60);
    // With the admin's record under the member's id, the member's own key must keep working as the
    // member (the auth-server is asked), and the admin's key must not authenticate as the member.
    const asMember = await api(services, member)('GET', '/webhooks');
    expect(asMember.status).toBe(403);
    const adminKeyAsMember = await api(services, { ...member, user: { ...member.user, api_key: admin.user.api_key } })('GET', '/users');
    expect(adminKeyAsMember.status).toBe(401);
  });
});
