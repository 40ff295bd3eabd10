import 'reflect-metadata';
import { generateApiKey, hashApiKey, newId } from '@crm/common';
import { CacheInvalidation, CacheKeys, ErrorName, openCredentialRecord, type CredentialRecord } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createLogger } from '@crm/observability';
import { createRedis, primariesOf, type RedisClient } from '@crm/service-kit';
import { createTestDatabase, redisTargets, uniqueNamespace, type TestDatabase } from '@crm/testing';
import type { DataSource, EntityManager } from 'typeorm';
import { ApiKeysService } from '../api-keys/api-keys.service';
import { AuthServerConfig } from '../config/auth-server.config';
import { authDataSource } from '../database/auth-data-source';
import { IdentityRepository } from '../identity/identity.repository';
import { GrantRevocationService } from '../oauth/grant-revocation.service';
import { PasswordHashing } from '../security/password-hashing';
import { CredentialsCache } from './credentials.cache';
import { CredentialsService } from './credentials.service';

const logger = createLogger('auth-test', 'silent');

/** A promise plus its resolve: one side waits on `promise`, the other calls `open()`. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

/**
 * The refill of the gateway's credential cache against an API-key rotation, interleaved step by
 * step with gates (no timing): whatever the order, the cache must end with the rotated key.
 */

/** A found, active credential record of `userId` at `version` with key hash `hash`. */
function recordOf(userId: string, version: number, hash: string): CredentialRecord {
  return { found: true, user_id: userId, account_id: 'a', role: 'user', api_key_hash: hash, billing_status: 'active', version };
}
describe.each(redisTargets())('credential cache refill against API-key rotation (real PostgreSQL, Redis: $name)', (target) => {
  const namespace = uniqueNamespace('cred');
  let db: TestDatabase;
  let dataSource: DataSource;
  let redis: RedisClient;
  let config: AuthServerConfig;
  let identity: PausingIdentity;
  let cache: CredentialsCache;

  /** Pauses the next plain (non-transactional) read of a credential record after it has read. */
  class PausingIdentity extends IdentityRepository {
    pause: { read: ReturnType<typeof gate>; resume: ReturnType<typeof gate> } | null = null;

    override async credentialRecord(userId: string, manager?: EntityManager): Promise<CredentialRecord> {
      const record = await super.credentialRecord(userId, manager);
      const pause = manager ? null : this.pause;
      if (pause) {
        this.pause = null;
        pause.read.open();
        await pause.resume.promise;
      }
      return record;
    }
  }

  /** Holds the rotation's transaction open after it stored the new record, until `commit` opens. */
  class PausingCredentials extends CredentialsService {
    hold: { stored: ReturnType<typeof gate>; commit: ReturnType<typeof gate> } | null = null;
    failAfterStore = false;

    override async publishWith(userId: string, manager: EntityManager, onVersion?: (version: number) => void): Promise<void> {
      await super.publishWith(userId, manager, onVersion);
      if (this.failAfterStore) throw new Error('connection lost before commit');
      const hold = this.hold;
      if (hold) {
        this.hold = null;
        hold.stored.open();
        await hold.commit.promise;
      }
    }
  }

  let credentials: PausingCredentials;
  let apiKeys: ApiKeysService;

  beforeAll(async () => {
    await target.start();
    db = await createTestDatabase('auth_cred');
    config = Object.assign(new AuthServerConfig(), {
      DATABASE_URL: db.url,
      CRM_NAMESPACE: namespace,
      REDIS_URL: target.url(),
      REDIS_CLUSTER: target.cluster,
    });
    dataSource = authDataSource(config);
    await runMigrations(dataSource);
    redis = createRedis(config.REDIS_URL, logger, { cluster: target.cluster });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    identity = new PausingIdentity(dataSource, new PasswordHashing(config, logger));
    cache = new CredentialsCache(redis, config, logger);
    credentials = new PausingCredentials(identity, cache);
    const revocations = new GrantRevocationService(dataSource, redis, config, logger);
    apiKeys = new ApiKeysService(dataSource, identity, credentials, revocations, config, logger);
  }, 120_000);

  afterAll(async () => {
    redis?.disconnect();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
    await target.stop();
  });

  /** An active account with one admin whose key is `key`, published to the cache. */
  async function user(): Promise<{ userId: string; accountId: string; key: string }> {
    const accountId = newId();
    const userId = newId();
    const key = generateApiKey();
    await identity.createProvisioning({
      account: { id: accountId, name: 'Acme', region: 'us', provisioningPayload: null },
      admin: { id: userId, email: `${userId}@example.test`, passwordHash: 'x', apiKeyHash: hashApiKey(config.API_KEY_PEPPER, key) },
    });
    await identity.activate(accountId);
    await credentials.publish(userId);
    return { userId, accountId, key };
  }

  const cachedHash = async (userId: string): Promise<string | null | undefined> => {
    const raw = await redis.get(CacheKeys.credentials(namespace, userId));
    const record = raw ? openCredentialRecord(config.API_KEY_PEPPER, userId, raw) : null;
    return record ? (record.found ? record.api_key_hash : null) : undefined;
  };
  const caller = (userId: string, accountId: string) => ({
    user_id: userId,
    account_id: accountId,
    role: 'admin' as const,
    auth_method: 'api_key' as const,
    scopes: ['crm' as const],
  });

  it('drops a refill that read the database after the rotation stored its record but before it committed', async () => {
    const { userId, accountId, key } = await user();
    const hold = { stored: gate(), commit: gate() };
    credentials.hold = hold;
    const rotation = apiKeys.rotate(caller(userId, accountId));
    await hold.stored.promise;

    // The refill runs whole while the rotation's transaction is open: it reads the old key.
    const read = await credentials.resolve({ user_id: userId });
    expect(read).toMatchObject({ found: true, api_key_hash: hashApiKey(config.API_KEY_PEPPER, key) });

    hold.commit.open();
    const { auth_key } = await rotation;
    expect(await cachedHash(userId)).toBe(hashApiKey(config.API_KEY_PEPPER, auth_key));
  });

  it('drops a refill that read the database before the rotation and writes after it committed', async () => {
    const { userId, accountId, key } = await user();
    await redis.del(CacheKeys.credentials(namespace, userId));
    const pause = { read: gate(), resume: gate() };
    identity.pause = pause;
    const refill = credentials.resolve({ user_id: userId });
    await pause.read.promise;

    const { auth_key } = await apiKeys.rotate(caller(userId, accountId));
    pause.resume.open();
    expect(await refill).toMatchObject({ api_key_hash: hashApiKey(config.API_KEY_PEPPER, key) });
    expect(await cachedHash(userId)).toBe(hashApiKey(config.API_KEY_PEPPER, auth_key));
  });

  it('withdraws the record of a rotation whose transaction failed after it was stored, so the old key works again', async () => {
    const { userId, accountId, key } = await user();
    credentials.failAfterStore = true;
    try {
      await expect(apiKeys.rotate(caller(userId, accountId))).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    } finally {
      credentials.failAfterStore = false;
    }
    expect(await cachedHash(userId)).toBeUndefined();
    await credentials.resolve({ user_id: userId });
    expect(await cachedHash(userId)).toBe(hashApiKey(config.API_KEY_PEPPER, key));
  });

  it('withdraws nothing that a newer change has written since', async () => {
    const userId = newId();
    const record = (version: number, hash: string) => recordOf(userId, version, hash);
    await cache.store(record(5, 'five'));
    await cache.store(record(7, 'seven'));
    await cache.withdraw(userId, 5);
    expect(await cachedHash(userId)).toBe('seven');
    await cache.refill(record(6, 'six'));
    expect(await cachedHash(userId)).toBe('seven');
  });

  it('keeps the record and its version in one slot, and the version key of the previous release in step on a single server', async () => {
    const userId = newId();
    await cache.store(recordOf(userId, 3, 'three'));
    expect(await cachedHash(userId)).toBe('three');
    expect(await redis.get(CacheKeys.credentialsVersion(namespace, userId))).toBe('3');
    const legacy = CacheKeys.legacyCredentialsVersion(namespace, userId);
    if (target.cluster) {
      // Another slot: never written by the script (which would fail with CROSSSLOT).
      expect(await redis.get(legacy)).toBeNull();
      expect(Number(await redis.cluster('KEYSLOT', CacheKeys.credentialsVersion(namespace, userId)))).toBe(
        Number(await redis.cluster('KEYSLOT', CacheKeys.credentials(namespace, userId))),
      );
    } else {
      expect(await redis.get(legacy)).toBe('3');
      // An auth-server of the previous release wrote a newer version under the old name: an older refill is refused.
      await redis.set(legacy, '9', 'EX', 60);
      await cache.refill(recordOf(userId, 4, 'four'));
      expect(await cachedHash(userId)).toBe('three');
    }
  });

  it('gives every change of a user, and of its account status or billing, a higher version', async () => {
    const { userId, accountId } = await user();
    const version = async () => (await identity.credentialRecord(userId)).version ?? 0;
    const first = await version();
    await identity.setBillingStatus(accountId, 'subscription_canceled');
    const afterBilling = await version();
    expect(afterBilling).toBeGreaterThan(first);
    await identity.setApiKeyHash(userId, 'h'.repeat(64));
    expect(await version()).toBeGreaterThan(afterBilling);
    await expect(identity.credentialRecord(newId())).resolves.toMatchObject({ found: false, version: 0 });
  });

  describe('announcements on the invalidation channel (the gateways drop their in-memory copies)', () => {
    let listener: RedisClient;
    const heard: string[] = [];

    beforeAll(async () => {
      // One connection to one node: on a cluster, a PUBLISH on any node reaches it (the cluster bus).
      listener = createRedis(target.url().split(',')[0]!, logger);
      if (listener.status !== 'ready') await new Promise((resolve) => listener.once('ready', resolve));
      listener.on('message', (_channel: string, message: string) => heard.push(message));
      await listener.subscribe(CacheKeys.invalidations(namespace));
    });

    afterAll(() => listener.disconnect());

    /**
     * Everything announced so far: a marker published now on every primary arrives after it
     * (pub/sub keeps order per node, and per cluster-bus link from a node to the listener's).
     */
    async function announced(): Promise<string[]> {
      const markers = await Promise.all(
        primariesOf(redis).map(async (node) => {
          const marker = `marker:${newId()}`;
          await node.publish(CacheKeys.invalidations(namespace), marker);
          return marker;
        }),
      );
      const deadline = Date.now() + 2000;
      while (!markers.every((marker) => heard.includes(marker))) {
        if (Date.now() > deadline) throw new Error('the marker did not arrive');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return heard.splice(0).filter((message) => !message.startsWith('marker:'));
    }

    it('announces a newer record after writing it, and a withdrawal; not a write of the same or an older version', async () => {
      await announced();
      const userId = newId();
      const record = (version: number, hash: string) => recordOf(userId, version, hash);
      // Heard only once the record is in Redis: whoever reads on hearing it gets the new one.
      const onHearing = new Promise<string | null | undefined>((resolve) =>
        listener.once('message', () => void cachedHash(userId).then(resolve)),
      );
      await cache.store(record(5, 'five'));
      expect(await onHearing).toBe('five');
      expect(await announced()).toEqual([CacheInvalidation.user(userId)]);
      await cache.store(record(5, 'five'));
      await cache.refill(record(4, 'four'));
      expect(await announced()).toEqual([]);
      await cache.refill(record(6, 'six'));
      expect(await announced()).toEqual([CacheInvalidation.user(userId)]);
      await cache.withdraw(userId, 6);
      expect(await announced()).toEqual([CacheInvalidation.user(userId)]);
    });

    it('announces a rotated key and every revoked grant of the user', async () => {
      const { userId, accountId } = await user();
      const grantId = `grant-${newId()}`;
      await dataSource.query("INSERT INTO auth.oidc_artifacts (model, id, payload, account_id) VALUES ('Grant', $1, '{}', $2)", [
        grantId,
        userId,
      ]);
      await announced();
      await apiKeys.rotate(caller(userId, accountId));
      expect((await announced()).sort()).toEqual([CacheInvalidation.grant(grantId), CacheInvalidation.user(userId)].sort());
      expect(await redis.get(CacheKeys.revokedGrant(namespace, grantId))).toBe('1');
    });

    it('announces a revoked grant once: mirroring a flag that is already set announces nothing', async () => {
      const revocations = new GrantRevocationService(dataSource, redis, config, logger);
      const grants = [`grant-${newId()}`, `grant-${newId()}`];
      await announced();
      await revocations.mirror(grants);
      // On a cluster the flags lie in several slots, one script each: their order is not kept.
      expect((await announced()).sort()).toEqual(grants.map(CacheInvalidation.grant).sort());
      await revocations.mirror([...grants, 'grant-third']);
      expect(await announced()).toEqual([CacheInvalidation.grant('grant-third')]);
    });
  });
});
