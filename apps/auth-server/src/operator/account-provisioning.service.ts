import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { generateApiKey, hashApiKey, newId } from '@crm/common';
import { ApiError, ErrorName, Subjects, type ProvisionAccountMessage, type ProvisionAccountReply } from '@crm/contracts';
import { RpcClient } from '@crm/messaging';
import { LOGGER } from '@crm/service-kit';
import type { Logger } from 'pino';
import { AuthServerConfig } from '../config/auth-server.config';
import { CredentialsService } from '../credentials/credentials.service';
import { EmailTakenError, IdentityRepository } from '../identity/identity.repository';
import { PasswordHashing } from '../security/password-hashing';
import type { CreateAccountRequest, CreateAccountResponse } from './dto/create-account.request';

/**
 * Creating an account is a short saga over two contexts: (1) the auth half is written in
 * `provisioning` state, (2) crm-core makes its half (idempotent upsert), (3) the account becomes
 * `active` and its credentials are published. Until step 3 no credential authenticates, so a
 * half-made account is never usable. A failed step 2 is resumed by the same operator request
 * (which issues a fresh API key, the old one never having been usable) or by the background
 * resumer on any replica.
 */
@Injectable()
export class AccountProvisioningService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;
  private resuming: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly identity: IdentityRepository,
    private readonly credentials: CredentialsService,
    private readonly rpc: RpcClient,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly hashing: PasswordHashing,
  ) {}

  async createAccount(request: CreateAccountRequest): Promise<CreateAccountResponse> {
    const email = request.admin.email.trim().toLowerCase();
    const region = request.region ?? this.config.DEFAULT_REGION;
    const baseUrl = this.config.regionBaseUrls.get(region);
    if (!baseUrl) throw ApiError.invalid({ region: `unknown region; configured: ${[...this.config.regionBaseUrls.keys()].join(', ')}` });

    const existing = await this.identity.findUserByEmail(email);
    if (existing && existing.account.status === 'active') {
      throw new ApiError(ErrorName.ResourceAlreadyExists, 'A user with this email already exists', { 'admin.email': 'already exists' });
    }
    const accountId = existing?.accountId ?? newId();
    const userId = existing?.id ?? newId();
    const apiKey = generateApiKey();
    const message: ProvisionAccountMessage = {
      account: { id: accountId, name: request.name, region },
      admin: {
        id: userId,
        first_name: request.admin.first_name,
        last_name: request.admin.last_name,
        email,
        role: 'admin',
        account_rights: [],
        permissions: ['delete_contacts'],
      },
    };
    const fresh = {
      account: { id: accountId, name: request.name, region, provisioningPayload: message },
      admin: {
        id: userId,
        email,
        passwordHash: await this.hashing.hash(request.admin.password),
        apiKeyHash: hashApiKey(this.config.API_KEY_PEPPER, apiKey),
      },
    };
    try {
      if (existing) await this.identity.restartProvisioning(fresh);
      else await this.identity.createProvisioning(fresh);
    } catch (error) {
      if (error instanceof EmailTakenError)
        throw new ApiError(ErrorName.ResourceAlreadyExists, 'A user with this email already exists', { 'admin.email': 'already exists' });
      throw error;
    }

    try {
      await this.complete(accountId, message);
    } catch (error) {
      this.logger.warn({ accountId, detail: (error as Error).message }, 'account provisioning incomplete; it will be resumed');
      throw new ApiError(
        ErrorName.ServiceUnavailable,
        'The account could not be completed yet (crm-core did not answer). Repeat the same request to finish it; no half-made account is usable.',
      );
    }
    this.logger.info({ accountId, userId, region }, 'account created');
    return { account: { id: accountId, name: request.name, region, base_url: baseUrl }, user: { id: userId, email, api_key: apiKey } };
  }

  /** Steps 2 and 3; each is idempotent, so repeating them is always safe. */
  private async complete(accountId: string, message: ProvisionAccountMessage): Promise<void> {
    await this.rpc.request<ProvisionAccountReply>(Subjects.AccountsProvision, message);
    await this.identity.activate(accountId);
    await this.publish(accountId, message.admin.id);
  }

  /** Step 3's cache write, once the activation is committed (a record read before would still say `found: false`). */
  private async publish(accountId: string, userId: string): Promise<void> {
    try {
      await this.credentials.publish(userId);
    } catch (error) {
      // The gateway falls back to the auth-server when the cache has no entry.
      this.logger.warn({ accountId, detail: (error as Error).message }, 'credentials not cached; the gateway will ask the auth-server');
    }
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.resuming = this.resumeStuck().catch((error) =>
        this.logger.warn({ detail: (error as Error).message }, 'provisioning resumer failed; will retry'),
      );
    }, this.config.PROVISIONING_RETRY_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.resuming;
  }

  /** Finishes accounts whose operator request gave up half-way. */
  async resumeStuck(): Promise<number> {
    const resumed: Array<{ accountId: string; userId: string }> = [];
    const count = await this.identity.withStuckProvisioning(this.config.PROVISIONING_RETRY_MS, async (account, manager) => {
      if (!account.provisioningPayload) return;
      const message = account.provisioningPayload as ProvisionAccountMessage;
      await this.rpc.request<ProvisionAccountReply>(Subjects.AccountsProvision, message);
      await this.identity.activate(account.id, manager);
      resumed.push({ accountId: account.id, userId: message.admin.id });
      this.logger.info({ accountId: account.id }, 'resumed account provisioning');
    });
    for (const { accountId, userId } of resumed) await this.publish(accountId, userId);
    return count;
  }
}
