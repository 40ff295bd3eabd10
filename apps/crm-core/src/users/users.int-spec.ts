import 'reflect-metadata';
import { newId } from '@crm/common';
import { ApiError, GetUserRequest, ListUsersRequest, ProvisionAccountMessage, parseContract, type Caller } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import { createTestDatabase, type TestDatabase } from '@crm/testing';
import type { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { UsersRepository } from './users.repository';
import { UsersService } from './users.service';
import { withContracts } from '../common/with-contracts.spec-helpers';

function provisionMessage(name: string): ProvisionAccountMessage {
  return {
    account: { id: newId(), name, region: 'us' },
    admin: {
      id: newId(),
      first_name: 'Ada',
      last_name: name,
      email: `${name.toLowerCase()}@example.test`,
      role: 'admin',
      account_rights: ['pipeline'],
      permissions: ['delete_contacts'],
    },
  };
}

const callerOf = (m: ProvisionAccountMessage): Caller => ({
  account_id: m.account.id,
  user_id: m.admin.id,
  role: 'admin',
  auth_method: 'api_key',
  scopes: ['crm'],
});

const parsedUsers = (service: UsersService) => withContracts(service, { get: GetUserRequest, list: ListUsersRequest });

describe('crm-core users and account provisioning (real PostgreSQL)', () => {
  let db: TestDatabase;
  let dataSource: DataSource;
  let accounts: AccountsService;
  let users: ReturnType<typeof parsedUsers>;

  beforeAll(async () => {
    db = await createTestDatabase('crm_users');
    const config = Object.assign(new CrmCoreConfig(), { DATABASE_URL: db.url });
    dataSource = crmDataSource(config);
    await runMigrations(dataSource);
    accounts = new AccountsService(dataSource, new AccountsRepository(), config);
    users = parsedUsers(new UsersService(dataSource, new UsersRepository(), config));
  });

  afterAll(async () => {
    if (dataSource?.isInitialized) await dataSource.destroy();
    await db?.drop();
  });

  it('migrations are idempotent: a second run applies nothing', async () => {
    await expect(runMigrations(dataSource)).resolves.toEqual([]);
  });

  it('provisions an account and its admin once, however often the message arrives', async () => {
    const message = provisionMessage('Acme');
    await accounts.provision(message);
    await accounts.provision(message);
    const [{ count }] = await dataSource.query('SELECT count(*)::int AS count FROM crm.users WHERE account_id = $1', [message.account.id]);
    expect(count).toBe(1);
    const { user } = await users.get(callerOf(message), { user_id: message.admin.id });
    expect(user).toMatchObject({
      id: message.admin.id,
      first_name: 'Ada',
      last_name: 'Acme',
      company_name: 'Acme',
      role: 'admin',
      account_rights: ['pipeline'],
    });
    expect(user.bcc_email).toMatch(new RegExp(`^${message.admin.id}@`));
    expect(user.google_contacts_email).toBe('');
  });

  it('rejects an invalid provisioning message with field errors', async () => {
    const message = provisionMessage('Broken');
    (message.admin as { email: string }).email = 'not-an-email';
    // The handler parses the message (the service takes it typed).
    expect(() => parseContract(ProvisionAccountMessage, message)).toThrow(
      expect.objectContaining({ errorName: 'invalid_request_data', errors: { 'admin.email': expect.any(String) } }),
    );
  });

  it("never shows another account's user, and hides private fields of other users", async () => {
    const a = provisionMessage('Alpha');
    const b = provisionMessage('Beta');
    await accounts.provision(a);
    await accounts.provision(b);
    await expect(users.get(callerOf(a), { user_id: b.admin.id })).rejects.toBeInstanceOf(ApiError);
    await expect(users.get(callerOf(a), { user_id: b.admin.id })).rejects.toMatchObject({ errorName: 'resource_not_found' });
    await expect(users.get(callerOf(a), { user_id: 'not-an-id' })).rejects.toMatchObject({ errorName: 'resource_not_found' });
    const asColleague = { ...callerOf(a), user_id: newId() };
    const { user } = await users.get(asColleague, { user_id: a.admin.id });
    expect(user).not.toHaveProperty('bcc_email');
    expect(user).not.toHaveProperty('google_contacts_email');
  });

  it('lists users of the account with paging fields', async () => {
    const a = provisionMessage('Gamma');
    await accounts.provision(a);
    const page = await users.list(callerOf(a), { page: '1', per_page: '500' });
    expect(page).toMatchObject({ total_count: 1, page: 1, per_page: 100, max_page: 1 });
    expect(page.users.map((u) => u.user.id)).toEqual([a.admin.id]);
    await expect(users.list(callerOf(a), { page: '0' })).rejects.toMatchObject({ errors: { page: expect.any(String) } });
  });
});
