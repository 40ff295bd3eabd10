import { Injectable } from '@nestjs/common';
import { ApiError, type ProvisionAccountMessage, type ProvisionAccountReply, type ProvisionUserMessage } from '@crm/contracts';
import { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { bccEmailOf } from './account.rules';
import { AccountsRepository } from './accounts.repository';

/** Provisioning from the auth-server: the CRM half of accounts and the profiles of their users. */
@Injectable()
export class AccountsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly accounts: AccountsRepository,
    private readonly config: CrmCoreConfig,
  ) {}

  /** Creates the CRM profile of a user of an existing account; safe to repeat. */
  async provisionUser({ account_id, user }: ProvisionUserMessage): Promise<{ user_id: string }> {
    const made = await this.dataSource.transaction((tx) =>
      this.accounts.upsertUser(tx, { ...user, account_id }, bccEmailOf(user.id, this.config.BCC_EMAIL_DOMAIN)),
    );
    if (!made) throw ApiError.notFound('Account not found');
    return { user_id: user.id };
  }

  /** Creates the CRM half of an account, its admin and its defaults in one transaction; safe to repeat. */
  async provision({ account, admin }: ProvisionAccountMessage): Promise<ProvisionAccountReply> {
    await this.dataSource.transaction(async (tx) => {
      await this.accounts.insertAccount(tx, { id: account.id, name: account.name, region: account.region });
      await this.accounts.upsertUser(tx, { ...admin, account_id: account.id }, bccEmailOf(admin.id, this.config.BCC_EMAIL_DOMAIN));
      await this.accounts.seedDefaults(tx, account.id);
    });
    return { account_id: account.id, user_id: admin.id };
  }
}
