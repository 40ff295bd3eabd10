import { Injectable } from '@nestjs/common';
import {
  ApiError,
  type AccountSettingsReply,
  type ProvisionAccountMessage,
  type ProvisionAccountReply,
  type ProvisionUserMessage,
  type UpdateAccountSettingsMessage,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import { CrmCoreConfig } from '../config/crm-core.config';
import { bccEmailOf, changedSettings, settingsOf } from './account.rules';
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

  /** The operator's change of an account's settings (only the keys sent), under the account row's lock. */
  async updateSettings({ account_id, ...change }: UpdateAccountSettingsMessage): Promise<AccountSettingsReply> {
    const accountId = account_id.toLowerCase();
    const row = await this.dataSource.transaction(async (tx) => {
      const current = await this.accounts.lockSettings(tx, accountId);
      if (!current) throw ApiError.notFound('Account not found');
      const next = changedSettings(current, change);
      await this.accounts.writeSettings(tx, accountId, next);
      return next;
    });
    return { account_id: accountId, ...settingsOf(row) };
  }
}
