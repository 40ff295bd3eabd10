import { newId } from '@crm/common';
import type { ProvisionAccountMessage } from '@crm/contracts';
import { runMigrations } from '@crm/database';
import type { DataSource } from 'typeorm';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AccountsService } from '../accounts/accounts.service';
import { CrmCoreConfig } from '../config/crm-core.config';
import { crmDataSource } from '../database/crm-data-source';

/** An account provisioned with its admin (and the default statuses) for a repository test. */
export interface TestAccount {
  accountId: string;
  userId: string;
}

/**
 * A medium spec's own database (libs/testing createTestDatabase), migrated, with two accounts;
 * `close` drops it.
 */
export async function openMediumDatabase(db: {
  url: string;
  drop(): Promise<void>;
}): Promise<{ dataSource: DataSource; accounts: [TestAccount, TestAccount]; close: () => Promise<void> }> {
  const config = Object.assign(new CrmCoreConfig(), { DATABASE_URL: db.url });
  const dataSource = crmDataSource(config);
  await runMigrations(dataSource);
  const service = new AccountsService(dataSource, new AccountsRepository(), config);
  const accounts = [] as unknown as [TestAccount, TestAccount];
  for (const name of ['Acme', 'Other']) {
    const message: ProvisionAccountMessage = {
      account: { id: newId(), name, region: 'us' },
      admin: {
        id: newId(),
        first_name: 'Ada',
        last_name: name,
        email: `${name.toLowerCase()}-${newId()}@example.test`,
        role: 'admin',
        account_rights: [],
        permissions: ['delete_contacts'],
      },
    };
    await service.provision(message);
    accounts.push({ accountId: message.account.id, userId: message.admin.id });
  }
  return {
    dataSource,
    accounts,
    close: async () => {
      if (dataSource.isInitialized) await dataSource.destroy();
      await db.drop();
    },
  };
}
