import 'reflect-metadata';
import { hashApiKey } from '@crm/common';
import { CacheKeys, ErrorName, namespacedSubject, openCredentialRecord, Subjects } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { decodeRequest, encodeReply, RpcClient } from '@crm/messaging';
import { createLogger } from '@crm/observability';
import { createRedis, type RedisClient } from '@crm/service-kit';
import { createTestDatabase, redisTargets, uniqueNamespace, type TestDatabase } from '@crm/testing';
import { connect, type NatsConnection, type Subscription } from '@nats-io/transport-node';
import type { DataSource } from 'typeorm';
import { AuthServerConfig } from '../config/auth-server.config';
import { CredentialsCache } from '../credentials/credentials.cache';
import { CredentialsService } from '../credentials/credentials.service';
import { authDataSource } from '../database/auth-data-source';
import { IdentityRepository } from '../identity/identity.repository';
import { PasswordHashing } from '../security/password-hashing';
import { AccountProvisioningService } from './account-provisioning.service';

const logger = createLogger('auth-test', 'silent');

describe.each(redisTargets())('account provisioning saga (real PostgreSQL, Redis: $name, NATS)', (target) => {
  const namespace = uniqueNamespace('auth');
  let db: TestDatabase;
  let dataSource: DataSource;
  let redis: RedisClient;
  let nc: NatsConnection;
  let crmCore: Subscription | undefined;
  let provisioned: string[];
  let service: AccountProvisioningService;
  let identity: IdentityRepository;
  let config: AuthServerConfig;

  /** Stands in for crm-core on the provisioning subject (the wire format of libs/messaging nats-wire.ts). */
  function startCrmCore(): void {
    crmCore = nc.subscribe(namespacedSubject(namespace, Subjects.AccountsProvision), {
      callback: (_err, msg) => {
        const data = decodeRequest(msg.data) as { account: { id: string }; admin: { id: string } };
        provisioned.push(data.account.id);
        msg.respond(encodeReply({ ok: true, data: { account_id: data.account.id, user_id: data.admin.id } }));
      },
    });
  }

  const request = (email: string) => ({
    name: 'Acme',
    admin: { first_name: 'Ann', last_name: 'Lee', email, password: 'correct horse battery' },
  });

  beforeAll(async () => {
    await target.start();
    db = await createTestDatabase('auth_saga');
    config = Object.assign(new AuthServerConfig(), {
      DATABASE_URL: db.url,
      CRM_NAMESPACE: namespace,
      PROVISIONING_RETRY_MS: 1000,
      REDIS_URL: target.url(),
      REDIS_CLUSTER: target.cluster,
    });
    dataSource = authDataSource(config);
    await runMigrations(dataSource);
    redis = createRedis(config.REDIS_URL, logger, { cluster: target.cluster });
    if (redis.status !== 'ready') await new Promise((resolve) => redis.once('ready', resolve));
    nc = await connect({ servers: process.env.NATS_URL ?? 'nats://127.0.0.1:4222' });
    const hashing = new PasswordHashing(config, logger);
    identity = new IdentityRepository(dataSource, hashing);
    const credentials = new CredentialsService(identity, new CredentialsCache(redis, config, logger));
    service = new AccountProvisioningService(
      identity,
      credentials,
      new RpcClient(nc, { namespace, timeoutMs: 1000, logger }),
      config,
      logger,
      hashing,
    );
  }, 120_000);

  beforeEach(() => {
    provisioned = [];
  });

  afterEach(() => {
    crmCore?.unsubscribe();
    crmCore = undefined;
  });

  afterAll(async () => {
    await nc?.drain();
    redis?.disconnect();
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
    await target.stop();
  });

  it('creates an active account whose API key hash is cached for the gateway', async () => {
    startCrmCore();
    const created = await service.createAccount(request('ann@acme.test'));
    expect(created.account).toMatchObject({ name: 'Acme', region: 'us', base_url: 'http://localhost:3000/api/v3' });
    expect(provisioned).toEqual([created.account.id]);
    const cached = openCredentialRecord(
      config.API_KEY_PEPPER,
      created.user.id,
      (await redis.get(CacheKeys.credentials(namespace, created.user.id)))!,
    );
    expect(cached).toEqual({
      found: true,
      user_id: created.user.id,
      account_id: created.account.id,
      role: 'admin',
      api_key_hash: hashApiKey(config.API_KEY_PEPPER, created.user.api_key),
      billing_status: 'active',
      version: expect.any(Number),
    });
    await expect(service.createAccount(request('ANN@acme.test'))).rejects.toMatchObject({ errorName: ErrorName.ResourceAlreadyExists });
  });

  it('leaves no usable account when crm-core does not answer, and a repeated request finishes it', async () => {
    await expect(service.createAccount(request('bob@acme.test'))).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    const half = await identity.findUserByEmail('bob@acme.test');
    expect(half?.account.status).toBe('provisioning');
    await expect(identity.credentialRecord(half!.id)).resolves.toEqual({ found: false, user_id: half!.id, version: expect.any(Number) });

    startCrmCore();
    const done = await service.createAccount(request('bob@acme.test'));
    expect(done.user.id).toBe(half!.id);
    expect(done.account.id).toBe(half!.accountId);
    const record = await identity.credentialRecord(done.user.id);
    expect(record).toMatchObject({ found: true, api_key_hash: hashApiKey(config.API_KEY_PEPPER, done.user.api_key) });
  });

  it('the background resumer finishes an account left half-made', async () => {
    await expect(service.createAccount(request('cy@acme.test'))).rejects.toMatchObject({ errorName: ErrorName.ServiceUnavailable });
    const half = await identity.findUserByEmail('cy@acme.test');
    startCrmCore();
    // The resumer takes accounts stuck longer than PROVISIONING_RETRY_MS (1 s): ask until this one is old enough.
    let resumed = 0;
    for (const deadline = Date.now() + 15_000; resumed === 0 && Date.now() < deadline;) {
      resumed = await service.resumeStuck();
      if (resumed === 0) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(resumed).toBeGreaterThanOrEqual(1);
    expect(provisioned).toContain(half!.accountId);
    expect((await identity.findUserByEmail('cy@acme.test'))?.account.status).toBe('active');
    // Published after the activation committed: the gateway's cache says active at once.
    expect(
      openCredentialRecord(config.API_KEY_PEPPER, half!.id, (await redis.get(CacheKeys.credentials(namespace, half!.id)))!),
    ).toMatchObject({ found: true });
    expect(await service.resumeStuck()).toBe(0);
  });

  it('a cache refill older than the cached record is dropped', async () => {
    const cache = new CredentialsCache(redis, config, logger);
    const userId = 'aaaaaaaaaaaaaaaaaaaaaaaa';
    await cache.store({
      found: true,
      user_id: userId,
      account_id: 'a',
      role: 'user',
      api_key_hash: 'new',
      billing_status: 'active',
      version: 2,
    });
    await cache.refill({
      found: true,
      user_id: userId,
      account_id: 'a',
      role: 'user',
      api_key_hash: 'stale',
      billing_status: 'active',
      version: 1,
    });
    expect(
      (
        openCredentialRecord(config.API_KEY_PEPPER, userId, (await redis.get(CacheKeys.credentials(namespace, userId)))!) as {
          api_key_hash?: string;
        }
      ).api_key_hash,
    ).toBe('new');
  });
});
