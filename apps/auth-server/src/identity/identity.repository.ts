import { Injectable } from '@nestjs/common';
import type { BillingStatus, CredentialRecord } from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { PasswordHashing } from '../security/password-hashing';
import { AccountEntity } from './entities/account.entity';
import { UserEntity } from './entities/user.entity';

export interface NewAccount {
  account: Pick<AccountEntity, 'id' | 'name' | 'region' | 'provisioningPayload'>;
  admin: Pick<UserEntity, 'id' | 'email' | 'passwordHash' | 'apiKeyHash'>;
}

const UNIQUE_VIOLATION = '23505';
const DUMMY_HASH = 'scrypt$32768$8$1$AAAAAAAAAAAAAAAAAAAAAA$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';

export class EmailTakenError extends Error {}

@Injectable()
export class IdentityRepository {
  constructor(
    private readonly dataSource: DataSource,
    private readonly hashing: PasswordHashing,
  ) {}

  findUserByEmail(email: string): Promise<(UserEntity & { account: AccountEntity }) | null> {
    return this.dataSource
      .createQueryBuilder(UserEntity, 'u')
      .innerJoinAndMapOne('u.account', AccountEntity, 'a', 'a.id = u.account_id')
      .where('lower(u.email) = lower(:email)', { email })
      .getOne() as Promise<(UserEntity & { account: AccountEntity }) | null>;
  }

  /** A new account in `provisioning` with its admin, in one transaction. */
  async createProvisioning({ account, admin }: NewAccount): Promise<void> {
    try {
      await this.dataSource.transaction(async (m) => {
        await m.insert(AccountEntity, { ...account, status: 'provisioning', billingStatus: 'active' });
        await m.insert(UserEntity, { ...admin, accountId: account.id, role: 'admin', apiKeyCreatedAt: new Date() });
      });
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new EmailTakenError();
      throw error;
    }
  }

  /** A repeated request for an account still in `provisioning`: take its new details and key. */
  async restartProvisioning({ account, admin }: NewAccount): Promise<void> {
    await this.dataSource.transaction(async (m) => {
      await m.update(
        AccountEntity,
        { id: account.id, status: 'provisioning' },
        { name: account.name, region: account.region, provisioningPayload: account.provisioningPayload },
      );
      await m.update(
        UserEntity,
        { id: admin.id },
        { passwordHash: admin.passwordHash, apiKeyHash: admin.apiKeyHash, apiKeyCreatedAt: new Date() },
      );
    });
  }

  async activate(accountId: string, m: EntityManager = this.dataSource.manager): Promise<void> {
    await m.update(AccountEntity, { id: accountId }, { status: 'active', provisioningPayload: null });
  }

  /**
   * Runs `work` on accounts stuck in provisioning for longer than `olderThanMs`, each row locked
   * (SKIP LOCKED) so replicas never resume the same account at once.
   */
  async withStuckProvisioning(olderThanMs: number, work: (account: AccountEntity, m: EntityManager) => Promise<void>): Promise<number> {
    return this.dataSource.transaction(async (m) => {
      const stuck = await m
        .createQueryBuilder(AccountEntity, 'a')
        .setLock('pessimistic_write')
        .setOnLocked('skip_locked')
        .where("a.status = 'provisioning'")
        .andWhere('a.updated_at < :before', { before: new Date(Date.now() - olderThanMs) })
        .orderBy('a.updated_at', 'ASC')
        .limit(10)
        .getMany();
      for (const account of stuck) await work(account, m);
      return stuck.length;
    });
  }

  findAccount(accountId: string): Promise<AccountEntity | null> {
    return this.dataSource.manager.findOneBy(AccountEntity, { id: accountId });
  }

  async setBillingStatus(accountId: string, billingStatus: AccountEntity['billingStatus']): Promise<void> {
    await this.dataSource.manager.update(AccountEntity, { id: accountId }, { billingStatus });
  }

  async userIdsOfAccount(accountId: string): Promise<string[]> {
    const users = await this.dataSource.manager.find(UserEntity, { where: { accountId }, select: { id: true } });
    return users.map((u) => u.id);
  }

  /** A user that cannot authenticate yet (no API key) until its CRM profile exists. */
  async insertPendingUser(user: Pick<UserEntity, 'id' | 'accountId' | 'email' | 'passwordHash' | 'role'>): Promise<void> {
    try {
      await this.dataSource.manager.insert(UserEntity, { ...user, apiKeyHash: null });
    } catch (error) {
      if ((error as { code?: string }).code === UNIQUE_VIOLATION) throw new EmailTakenError();
      throw error;
    }
  }

  async updatePending(userId: string, passwordHash: string, role: UserEntity['role']): Promise<void> {
    await this.dataSource.manager.update(UserEntity, { id: userId }, { passwordHash, role });
  }

  async setApiKeyHash(userId: string, apiKeyHash: string): Promise<void> {
    await this.dataSource.manager.update(UserEntity, { id: userId }, { apiKeyHash, apiKeyCreatedAt: new Date() });
  }

  /** The active user with this email and password, or null. */
  async verifyLogin(email: string, password: string): Promise<(UserEntity & { account: AccountEntity }) | null> {
    const user = await this.findUserByEmail(email);
    if (!user || user.account.status !== 'active') {
      // Same cost whether or not the email exists: no account enumeration by timing.
      await this.hashing.verify(password, DUMMY_HASH);
      return null;
    }
    return (await this.hashing.verify(password, user.passwordHash)) ? user : null;
  }

  /** An active user (account active) with the account's region, or null. */
  async findActiveUser(userId: string): Promise<(UserEntity & { account: AccountEntity }) | null> {
    return this.dataSource
      .createQueryBuilder(UserEntity, 'u')
      .innerJoinAndMapOne('u.account', AccountEntity, 'a', 'a.id = u.account_id')
      .where('u.id = :userId', { userId })
      .andWhere("a.status = 'active'")
      .getOne() as Promise<(UserEntity & { account: AccountEntity }) | null>;
  }

  /**
   * What the gateway needs to check an API key; `found: false` unless the account is active. The
   * version comes with it from the same row (0 when there is no such user).
   */
  async credentialRecord(userId: string, manager: EntityManager = this.dataSource.manager): Promise<CredentialRecord> {
    const rows: Array<{
      user_id: string;
      account_id: string;
      role: 'admin' | 'user';
      api_key_hash: string | null;
      billing_status: BillingStatus;
      status: string;
      version: string;
    }> = await manager.query(
      `SELECT u.id AS user_id, u.account_id, u.role, u.api_key_hash, a.billing_status, a.status, u.credentials_version AS version
       FROM auth.users u JOIN auth.accounts a ON a.id = u.account_id
       WHERE u.id = $1`,
      [userId],
    );
    const row = rows[0];
    if (!row) return { found: false, user_id: userId, version: 0 };
    const version = Number(row.version);
    if (row.status !== 'active') return { found: false, user_id: userId, version };
    const { user_id, account_id, role, api_key_hash, billing_status } = row;
    return { found: true, user_id, account_id, role, api_key_hash, billing_status, version };
  }
}
