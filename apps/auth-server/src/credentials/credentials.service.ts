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
    const userId = user_id.toLowerCase();
    const generation = await this.cache.generation(userId);
    const record = await this.identity.credentialRecord(userId);
    if (generation !== null) await this.cache.refill(record, generation);
    return record;
  }

  /** Publishes a user's current credentials after a change (creation, new key). */
  async publish(userId: string): Promise<void> {
    await this.cache.store(await this.identity.credentialRecord(userId));
  }

  /** Same, reading through a transaction that has not committed yet. */
  async publishWith(userId: string, manager: EntityManager): Promise<void> {
    await this.cache.store(await this.identity.credentialRecord(userId, manager));
  }
}
