import { Injectable } from '@nestjs/common';
import { ApiError, parseContract, ProvisionAccountMessage, ProvisionUserMessage, type ProvisionAccountReply } from '@crm/contracts';
import { CrmCoreConfig } from '../config/crm-core.config';
import { AccountsRepository } from './accounts.repository';

@Injectable()
export class AccountsService {
  constructor(
    private readonly accounts: AccountsRepository,
    private readonly config: CrmCoreConfig,
  ) {}

  /** Creates the CRM profile of a user of an existing account; safe to repeat. */
  async provisionUser(payload: unknown): Promise<{ user_id: string }> {
    const { account_id, user } = parseContract(ProvisionUserMessage, payload);
    const made = await this.accounts.provisionUser(
      {
        id: user.id,
        accountId: account_id,
        firstName: user.first_name,
        lastName: user.last_name,
        email: user.email,
        role: user.role,
        accountRights: user.account_rights,
        permissions: user.permissions,
        photoUrl: '',
        countryCode: '',
        googleContactsEmail: '',
      },
      this.config.BCC_EMAIL_DOMAIN,
    );
    if (!made) throw ApiError.notFound('Account not found');
    return { user_id: user.id };
  }

  /** Creates the CRM half of an account and its admin; safe to repeat. */
  async provision(payload: unknown): Promise<ProvisionAccountReply> {
    const { account, admin } = parseContract(ProvisionAccountMessage, payload);
    await this.accounts.provision(account, {
      id: admin.id,
      accountId: account.id,
      firstName: admin.first_name,
      lastName: admin.last_name,
      email: admin.email,
      role: admin.role,
      accountRights: admin.account_rights,
      permissions: admin.permissions,
      companyName: account.name,
      photoUrl: '',
      countryCode: '',
      bccEmail: `${admin.id}@${this.config.BCC_EMAIL_DOMAIN}`,
      googleContactsEmail: '',
    });
    return { account_id: account.id, user_id: admin.id };
  }
}
