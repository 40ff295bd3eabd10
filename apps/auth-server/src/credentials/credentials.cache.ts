import { Inject, Injectable } from '@nestjs/common';
import { CacheKeys, CREDENTIALS_TTL_SECONDS, UNKNOWN_CREDENTIALS_TTL_SECONDS, type CredentialRecord } from '@crm/contracts';
import { LOGGER, REDIS } from '@crm/service-kit';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { AuthServerConfig } from '../config/auth-server.config';

// Writes after a change: bump the generation, then store the new record.
const STORE = `redis.call('INCR', KEYS[2]); redis.call('EXPIRE', KEYS[2], ARGV[2] * 2); redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]); return 1`;
// Refill after a database read: only if no change happened since the generation was read.
const REFILL = `local g = redis.call('GET', KEYS[2]) or '0'; if g == ARGV[3] then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]); return 1 end; return 0`;

/**
 * The Redis mirror of API-key hashes that the gateway reads on every request. The database stays
 * the source of truth; a generation counter keeps a slow refill from overwriting a newer change.
 */
@Injectable()
export class CredentialsCache {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  private keys(userId: string): [string, string] {
    const ns = this.config.CRM_NAMESPACE;
    return [CacheKeys.credentials(ns, userId), CacheKeys.credentialsGeneration(ns, userId)];
  }

  private ttl(record: CredentialRecord): number {
    return record.found ? CREDENTIALS_TTL_SECONDS : UNKNOWN_CREDENTIALS_TTL_SECONDS;
  }

  /** After a change of a user's credentials: must reach Redis, so failures propagate. */
  async store(record: CredentialRecord): Promise<void> {
    await this.redis.eval(STORE, 2, ...this.keys(record.user_id), JSON.stringify(record), this.ttl(record));
  }

  /** The generation to pass to {@link refill}; null when Redis cannot answer. */
  async generation(userId: string): Promise<string | null> {
    try {
      return (await this.redis.get(this.keys(userId)[1])) ?? '0';
    } catch {
      return null;
    }
  }

  /** Best effort: a refill that fails only costs the next request another lookup. */
  async refill(record: CredentialRecord, generation: string): Promise<void> {
    try {
      await this.redis.eval(REFILL, 2, ...this.keys(record.user_id), JSON.stringify(record), this.ttl(record), generation);
    } catch (error) {
      this.logger.warn({ detail: (error as Error).message }, 'could not refill the credentials cache');
    }
  }
}
