import { newId } from '@crm/common';
import type { Caller } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import type { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';
import { AccountsRepository } from './accounts.repository';
import { AccountsService } from './accounts.service';

export interface MediumDatabase {
  dataSource: DataSource;
  /** A new account provisioned as the auth-server does (default statuses and pipelines); its admin as the caller. */
  newAccount(name?: string): Promise<Caller>;
  /** Another user of the caller's account. */
  newUser(admin: Caller, lastName: string): Promise<Caller>;
  close(): Promise<void>;
}

/** A medium spec's own database (libs/testing createTestDatabase), migrated; `close` drops it. */
export async function openMediumDatabase(db: { url: string; drop(): Promise<void> }): Promise<MediumDatabase> {
  const config = Object.assign(new CrmCoreConfig(), { DATABASE_URL: db.url });
  const dataSource = crmDataSource(config);
  await runMigrations(dataSource);
  const accounts = new AccountsService(dataSource, new AccountsRepository(), config);
  const callerOf = (account_id: string, user_id: string, role: 'admin' | 'user'): Caller => ({
    account_id,
    user_id,
    role,
    auth_method: 'api_key',
    scopes: ['crm'],
  });
  return {
    dataSource,
    async newAccount(accountName = 'Acme') {
      const id = newId();
      const admin = { id: newId(), first_name: 'Ada', last_name: accountName, email: `${id}@example.test`, role: 'admin' as const };
      await accounts.provision({
        account: { id, name: accountName, region: 'us' },
        admin: { ...admin, account_rights: [], permissions: [] },
      });
      return callerOf(id, admin.id, 'admin');
    },
    async newUser(admin, lastName) {
      const id = newId();
      await accounts.provisionUser({
        account_id: admin.account_id,
        user: {
          id,
          first_name: 'Uma',
          last_name: lastName,
          email: `${id}@example.test`,
          role: 'user',
          account_rights: [],
          permissions: [],
        },
      });
      return callerOf(admin.account_id, id, 'user');
    },
    async close() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await db.drop();
    },
  };
}
