import { Inject, Injectable } from '@nestjs/common';
import { generateApiKey, hashApiKey, isId, newId } from '@crm/common';
import {
  AccountSettingsInput,
  ApiError,
  CostSetupInput,
  ErrorName,
  Subjects,
  UpdateAccountSettingsRequest,
  contractProperties,
  parseContract,
  type AccountSettingsReply,
  type ProvisionUserMessage,
  type UpdateAccountSettingsMessage,
} from '@crm/contracts';
import { RpcClient } from '@crm/messaging';
import { LOGGER } from '@crm/service-kit';
import type { Logger } from 'pino';
import { AuthServerConfig } from '../config/auth-server.config';
import { CredentialsService } from '../credentials/credentials.service';
import { EmailTakenError, IdentityRepository } from '../identity/identity.repository';
import { PasswordHashing } from '../security/password-hashing';
import type { CreateUserRequest, CreateUserResponse } from './dto/create-user.request';
import type { UpdateAccountRequest } from './dto/update-account.request';

/** Keys of the settings body no contract takes, by their path (a typo must not be ignored silently). */
function unknownSettingsKeys(body: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  const check = (value: unknown, cls: new () => object, prefix: string) => {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return;
    const known = contractProperties(cls);
    for (const key of Object.keys(value).slice(0, 100))
      if (!known.has(key)) out[`${prefix}${key}`] = `${prefix}${key} is not an account setting`;
  };
  check(body, UpdateAccountSettingsRequest, '');
  check(body.settings, AccountSettingsInput, 'settings.');
  check(body.cost_setup, CostSetupInput, 'cost_setup.');
  return out;
}

/**
 * Users added by the operator, and account billing. A new user is written without an API key
 * (it cannot authenticate), crm-core makes the profile, then the key is set and published: an
 * interrupted creation leaves nothing usable, and repeating the request finishes it.
 */
@Injectable()
export class UserProvisioningService {
  constructor(
    private readonly identity: IdentityRepository,
    private readonly credentials: CredentialsService,
    private readonly rpc: RpcClient,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
    private readonly hashing: PasswordHashing,
  ) {}

  async createUser(accountId: string, request: CreateUserRequest): Promise<CreateUserResponse> {
    const account = isId(accountId) ? await this.identity.findAccount(accountId.toLowerCase()) : null;
    if (!account || account.status !== 'active') throw ApiError.notFound('Account not found');
    const email = request.email.trim().toLowerCase();
    const existing = await this.identity.findUserByEmail(email);
    const halfMade = existing && existing.accountId === account.id && existing.apiKeyHash === null;
    if (existing && !halfMade)
      throw new ApiError(ErrorName.ResourceAlreadyExists, 'A user with this email already exists', { email: 'already exists' });
    const userId = existing?.id ?? newId();
    const passwordHash = await this.hashing.hash(request.password);
    try {
      if (halfMade) await this.identity.updatePending(userId, passwordHash, request.role);
      else await this.identity.insertPendingUser({ id: userId, accountId: account.id, email, passwordHash, role: request.role });
    } catch (error) {
      if (error instanceof EmailTakenError)
        throw new ApiError(ErrorName.ResourceAlreadyExists, 'A user with this email already exists', { email: 'already exists' });
      throw error;
    }
    const message: ProvisionUserMessage = {
      account_id: account.id,
      user: {
        id: userId,
        first_name: request.first_name,
        last_name: request.last_name,
        email,
        role: request.role,
        account_rights: request.account_rights ?? [],
        permissions: request.permissions ?? [],
      },
    };
    try {
      await this.rpc.request(Subjects.UsersProvision, message);
    } catch (error) {
      if (error instanceof ApiError && error.errorName !== ErrorName.ServiceUnavailable) throw error;
      throw new ApiError(
        ErrorName.ServiceUnavailable,
        'The user could not be completed yet (crm-core did not answer). Repeat the same request to finish it.',
      );
    }
    const apiKey = generateApiKey();
    await this.identity.setApiKeyHash(userId, hashApiKey(this.config.API_KEY_PEPPER, apiKey));
    await this.credentials
      .publish(userId)
      .catch((error) =>
        this.logger.warn({ detail: (error as Error).message }, 'credentials not cached; the gateway will ask the auth-server'),
      );
    return { user: { id: userId, email, api_key: apiKey } };
  }

  /** Billing stopped or resumed: every user's cached record changes at once (402 at the gateway). */
  async updateAccount(accountId: string, request: UpdateAccountRequest): Promise<{ account: { id: string; billing_status: string } }> {
    const account = isId(accountId) ? await this.identity.findAccount(accountId.toLowerCase()) : null;
    if (!account) throw ApiError.notFound('Account not found');
    await this.identity.setBillingStatus(account.id, request.billing_status);
    for (const userId of await this.identity.userIdsOfAccount(account.id)) {
      try {
        await this.credentials.publish(userId);
      } catch {
        throw new ApiError(
          ErrorName.ServiceUnavailable,
          'Billing status saved but not yet effective at the gateway (Redis unavailable); repeat the request.',
        );
      }
    }
    return { account: { id: account.id, billing_status: request.billing_status } };
  }

  /**
   * The operator sets an account's type, settings and cost setup (OnePageCRM has no endpoint for
   * them; docs/decisions.md "Account settings"): validated here and again by crm-core, which
   * applies only the keys sent.
   */
  async updateSettings(accountId: string, body: unknown): Promise<AccountSettingsReply> {
    const request = parseContract(UpdateAccountSettingsRequest, body);
    const unknown = unknownSettingsKeys(body as Record<string, unknown>);
    if (Object.keys(unknown).length > 0) throw ApiError.invalid(unknown);
    const account = isId(accountId) ? await this.identity.findAccount(accountId.toLowerCase()) : null;
    if (!account || account.status !== 'active') throw ApiError.notFound('Account not found');
    const message: UpdateAccountSettingsMessage = { ...request, account_id: account.id };
    return this.rpc.request<AccountSettingsReply>(Subjects.AccountsSettingsUpdate, message);
  }
}
