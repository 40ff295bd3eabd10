import { Injectable } from '@nestjs/common';
import { isId } from '@crm/common';
import { parseContract, ResolveCredentialsRequest, type CredentialRecord } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { IdentityRepository } from '../identity/identity.repository';
import { CredentialsCache } from './credentials.cache';

@Injectable()
export class CredentialsService {
  constructor(
    private readonly identity: IdentityRepository,
    private readonly cache: CredentialsCache,
  ) {}

  /** Reads a user's credential record from the database and refills the gateway's cache. */
  async resolve(payload: unknown): Promise<CredentialRecord> {
    const { user_id } = parseContract(ResolveCredentialsRequest, payload);
    if (!isId(user_id)) return { found: false, user_id };
    const record = await this.identity.credentialRecord(user_id.toLowerCase());
    // Versioned: dropped if a change was published since the read (credentials.cache.ts).
    await this.cache.refill(record);
    return record;
  }

  /** Publishes a user's current credentials after a change (creation, new key). */
  async publish(userId: string): Promise<void> {
    await this.cache.store(await this.identity.credentialRecord(userId));
  }

  /**
   * Same, reading through a transaction that has not committed yet; `onVersion` learns the
   * version before it is written, so a transaction that then fails can {@link withdraw} it.
   */
  async publishWith(userId: string, manager: EntityManager, onVersion?: (version: number) => void): Promise<void> {
    const record = await this.identity.credentialRecord(userId, manager);
    onVersion?.(record.version ?? 0);
    await this.cache.store(record);
  }

  /** Takes back what {@link publishWith} stored for a transaction that did not commit. */
  async withdraw(userId: string, version: number): Promise<void> {
    await this.cache.withdraw(userId, version);
  }
}
