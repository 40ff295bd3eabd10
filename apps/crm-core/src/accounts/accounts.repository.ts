import { Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { UserEntity } from '../users/entities/user.entity';
import { seedAccountDefaults } from './account-defaults';
import { AccountEntity } from './entities/account.entity';

/** Creation of an account aggregate: the account row and its first admin, in one transaction. */
@Injectable()
export class AccountsRepository {
  constructor(private readonly dataSource: DataSource) {}

  /** A user of an existing account (idempotent); false when the account does not exist. */
  async provisionUser(
    admin: Omit<UserEntity, 'createdAt' | 'modifiedAt' | 'companyName' | 'bccEmail'>,
    bccDomain: string,
  ): Promise<boolean> {
    const result: unknown[] = await this.dataSource.query(
      `INSERT INTO crm.users (id, account_id, first_name, last_name, email, role, account_rights, permissions, company_name, photo_url, country_code, bcc_email, google_contacts_email)
       SELECT $1::varchar, a.id, $3, $4, $5, $6, $7, $8, a.name, '', '', $1::varchar || '@' || $9::varchar, '' FROM crm.accounts a WHERE a.id = $2
       ON CONFLICT (id) DO UPDATE SET first_name = EXCLUDED.first_name, last_name = EXCLUDED.last_name, email = EXCLUDED.email, role = EXCLUDED.role,
         account_rights = EXCLUDED.account_rights, permissions = EXCLUDED.permissions, modified_at = now()
       RETURNING id`,
      [
        admin.id,
        admin.accountId,
        admin.firstName,
        admin.lastName,
        admin.email,
        admin.role,
        admin.accountRights,
        admin.permissions,
        bccDomain,
      ],
    );
    return result.length > 0;
  }

  async provision(
    account: Pick<AccountEntity, 'id' | 'name' | 'region'>,
    admin: Omit<UserEntity, 'createdAt' | 'modifiedAt'>,
  ): Promise<void> {
    await this.dataSource.transaction(async (manager) => {
      // Idempotent: a retried provisioning request changes nothing that was already made.
      await manager.createQueryBuilder().insert().into(AccountEntity).values(account).orIgnore().execute();
      await manager
        .createQueryBuilder()
        .insert()
        .into(UserEntity)
        .values(admin)
        .orUpdate(['first_name', 'last_name', 'email', 'role', 'account_rights', 'permissions'], ['id'])
        .execute();
      await seedAccountDefaults(manager, account.id);
    });
  }
}
