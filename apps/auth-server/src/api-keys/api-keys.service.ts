import { Inject, Injectable } from '@nestjs/common';
import { generateApiKey, hashApiKey, isId } from '@crm/common';
import {
  ApiError,
  ErrorName,
  parseContract,
  TokenStatusRequest,
  type Caller,
  type ChangeAuthKeyReply,
  type TokenStatusReply,
} from '@crm/contracts';
import { LOGGER } from '@crm/service-kit';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AuthServerConfig } from '../config/auth-server.config';
import { CredentialsService } from '../credentials/credentials.service';
import { IdentityRepository } from '../identity/identity.repository';
import { GrantRevocationService, REVOKED_GRANT_TTL_SECONDS } from '../oauth/grant-revocation.service';

@Injectable()
export class ApiKeysService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly identity: IdentityRepository,
    private readonly credentials: CredentialsService,
    private readonly revocations: GrantRevocationService,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * POST /change_auth_key: a new key, the old one dead at once on every gateway replica, every
   * OAuth grant of the user revoked. Redis is updated before the database commits; if Redis
   * cannot be updated nothing changes (503), so no gateway keeps accepting the old key. The record
   * written ahead carries the change's version, so a concurrent cache refill that read the old key
   * cannot write it back; if the commit then fails, the record is withdrawn again.
   */
  async rotate(caller: Caller): Promise<ChangeAuthKeyReply> {
    const apiKey = generateApiKey();
    const grantIds = await this.revocations.grantIdsOfUser(caller.user_id);
    let published: number | undefined;
    try {
      await this.dataSource.transaction(async (m) => {
        await m.query('UPDATE auth.users SET api_key_hash = $2, api_key_created_at = now(), updated_at = now() WHERE id = $1', [
          caller.user_id,
          hashApiKey(this.config.API_KEY_PEPPER, apiKey),
        ]);
        if (grantIds.length > 0) {
          await m.query(
            `INSERT INTO auth.revoked_grants (grant_id, expires_at) SELECT unnest($1::text[]), now() + make_interval(secs => $2)
             ON CONFLICT (grant_id) DO UPDATE SET revoked_at = now(), expires_at = EXCLUDED.expires_at`,
            [grantIds, REVOKED_GRANT_TTL_SECONDS],
          );
          await m.query('DELETE FROM auth.oidc_artifacts WHERE grant_id = ANY($1)', [grantIds]);
        }
        try {
          await this.revocations.mirror(grantIds);
          await this.credentials.publishWith(caller.user_id, m, (version) => (published = version));
        } catch (error) {
          this.logger.error({ detail: (error as Error).message }, 'API key not changed: Redis unavailable');
          throw new ApiError(
            ErrorName.ServiceUnavailable,
            'The API key could not be changed right now; nothing was changed. Retry shortly.',
          );
        }
      });
    } catch (error) {
      if (published !== undefined) await this.withdraw(caller.user_id, published);
      throw error;
    }
    this.logger.info({ userId: caller.user_id, revokedGrants: grantIds.length }, 'API key changed');
    return { auth_key: apiKey };
  }

  private async withdraw(userId: string, version: number): Promise<void> {
    try {
      await this.credentials.withdraw(userId, version);
    } catch (error) {
      // The record of the new key then lives out its TTL: the old key is refused until then (fails closed).
      this.logger.error({ detail: (error as Error).message }, 'could not withdraw the cached record of an API key change that failed');
    }
  }

  /** The gateway's fallback for bearer tokens when Redis cannot answer. */
  async tokenStatus(payload: unknown): Promise<TokenStatusReply> {
    const { user_id, grant_id } = parseContract(TokenStatusRequest, payload);
    const record = isId(user_id) ? await this.identity.credentialRecord(user_id.toLowerCase()) : { found: false as const, user_id };
    return { record, revoked: await this.revocations.isRevoked(grant_id) };
  }
}
