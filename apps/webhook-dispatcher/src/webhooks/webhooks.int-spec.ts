import 'reflect-metadata';
import { ErrorName, type Caller } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createTestDatabase, type TestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { DispatcherConfig } from '../config/dispatcher.config';
import { webhooksDataSource } from '../database/webhooks-data-source';
import { categorizeDeliveryErrors } from '../migrations/1764300000000-delivery-error-categories';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

const caller = (account: string, role: 'admin' | 'user' = 'admin'): Caller => ({
  account_id: account,
  user_id: 'u'.repeat(24),
  role,
  auth_method: 'api_key',
  scopes: ['crm'],
});

/** Webhook registrations against the real PostgreSQL: the per-account cap and the delivery log's errors. */
describe('webhook registrations (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let webhooks: WebhooksService;
  const MAX = 3;

  beforeAll(async () => {
    db = await createTestDatabase('webhooks_registrations');
    const config = Object.assign(new DispatcherConfig(), { DATABASE_URL: db.url, WEBHOOK_MAX_PER_ACCOUNT: MAX });
    dataSource = webhooksDataSource(config);
    await runMigrations(dataSource);
    webhooks = new WebhooksService(dataSource, new WebhooksRepository(), config);
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  const body = (n: number) => ({ name: `Hook ${n}`, hook_url: `https://hooks.example.com/${n}` });

  it('refuses one webhook more than the cap with a 400 naming the limit; other accounts are not affected', async () => {
    const acme = caller('a'.repeat(24));
    for (let n = 0; n < MAX; n += 1) await webhooks.create(acme, body(n));
    const refused = await webhooks.create(acme, body(MAX)).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      errorName: ErrorName.InvalidRequestData,
      errors: { webhooks: `an account can have at most ${MAX} webhooks; delete one before registering another` },
    });
    expect((await webhooks.list(acme, {})).total_count).toBe(MAX);
    // Another tenant registers as usual; a deleted webhook frees its place.
    await expect(webhooks.create(caller('b'.repeat(24)), body(0))).resolves.toBeDefined();
    const [first] = (await webhooks.list(acme, {})).webhooks;
    await webhooks.delete(acme, { webhook_id: first.webhook.id });
    await expect(webhooks.create(acme, body(MAX))).resolves.toBeDefined();
  });

  it('lets no parallel creations pass the cap together', async () => {
    const racer = caller('c'.repeat(24));
    const results = await Promise.allSettled(Array.from({ length: 8 }, (_, n) => webhooks.create(racer, body(n))));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX);
    expect((await webhooks.list(racer, {})).total_count).toBe(MAX);
  });

  it('checks authorization before the request and the cap: a member gets 403 whatever it sends', async () => {
    const member = caller('a'.repeat(24), 'user');
    for (const payload of [{}, { name: '', hook_url: 'nope' }, body(0)])
      await expect(webhooks.create(member, payload)).rejects.toMatchObject({ errorName: ErrorName.NoPermission });
  });

  it('rewrites raw network errors stored before to categories without addresses or ports', async () => {
    await dataSource.query('CREATE TEMP TABLE old_errors (n serial, error varchar(300))');
    const stored = [
      'ECONNREFUSED: connect ECONNREFUSED 10.0.0.5:8080',
      'ENOTFOUND: getaddrinfo ENOTFOUND internal.corp',
      'hooks.example.com resolves to 10.1.2.3, a private, loopback, link-local or metadata address',
      'no answer within 10000 ms',
      'ECONNRESET: socket hang up',
      'EHOSTUNREACH: connect EHOSTUNREACH 172.16.0.9:22',
      'DEPTH_ZERO_SELF_SIGNED_CERT: self-signed certificate',
      'HPE_INVALID_CONSTANT: Expected HTTP/',
      'EPROTO: something odd at 10.0.0.7:6379',
      'HTTP 500',
      'webhook switched off',
      'webhook disabled: the receiver answered 410 Gone',
    ];
    await dataSource.query('INSERT INTO old_errors (error) SELECT unnest($1::text[])', [stored]);
    await dataSource.query(categorizeDeliveryErrors('old_errors', 'error'));
    const rows: Array<{ error: string }> = await dataSource.query('SELECT error FROM old_errors ORDER BY n');
    expect(rows.map((r) => r.error)).toEqual([
      'connection refused',
      'DNS lookup failed',
      'blocked: private address',
      'timeout',
      'connection reset',
      'host unreachable',
      'TLS error',
      'invalid HTTP response',
      'network error',
      'HTTP 500',
      'webhook switched off',
      'webhook disabled: the receiver answered 410 Gone',
    ]);
  });
});
