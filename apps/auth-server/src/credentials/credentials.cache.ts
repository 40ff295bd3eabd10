import { Inject, Injectable } from '@nestjs/common';
import {
  CacheInvalidation,
  CacheKeys,
  CREDENTIALS_TTL_SECONDS,
  sealCredentialRecord,
  UNKNOWN_CREDENTIALS_TTL_SECONDS,
  type CredentialRecord,
} from '@crm/contracts';
import { isCluster, LOGGER, REDIS, type RedisClient } from '@crm/service-kit';
import type { Logger } from 'pino';
import { AuthServerConfig } from '../config/auth-server.config';

/**
 * The highest version written is kept beside the record, longer than any record lives, so an
 * older record is refused even once the newer one has expired or been withdrawn.
 */
const VERSION_TTL_SECONDS = CREDENTIALS_TTL_SECONDS * 2;

// KEYS: record, version[, legacy version]. ARGV: record JSON, record TTL, version, version TTL,
// invalidation channel, message. 1: written, 0: older than the cached version. A newer version
// than the cached one is announced on the channel in the same script, so the announcement goes out
// exactly when the write happened. The legacy version key (single server only) is read and kept
// in step, so a refill by an auth-server of the previous release is refused as before.
const WRITE = `
local cached = tonumber(redis.call('GET', KEYS[2]) or '-1')
if KEYS[3] then cached = math.max(cached, tonumber(redis.call('GET', KEYS[3]) or '-1')) end
local version = tonumber(ARGV[3])
if version < cached then return 0 end
redis.call('SET', KEYS[2], ARGV[3], 'EX', ARGV[4])
if KEYS[3] then redis.call('SET', KEYS[3], ARGV[3], 'EX', ARGV[4]) end
redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
if version > cached then redis.call('PUBLISH', ARGV[5], ARGV[6]) end
return 1`;

// KEYS: record, version[, legacy version]. ARGV: the version to withdraw, invalidation channel,
// message. Only if nothing newer was written since.
const WITHDRAW = `
local current = redis.call('GET', KEYS[2])
if KEYS[3] and not current then current = redis.call('GET', KEYS[3]) end
if current == ARGV[1] then
  redis.call('DEL', unpack(KEYS))
  redis.call('PUBLISH', ARGV[2], ARGV[3])
  return 1
end
return 0`;

/**
 * The Redis mirror of API-key hashes that the gateway reads on every request. The database stays
 * the source of truth. Records are sealed with an HMAC keyed by the pepper, so a process that can
 * write Redis cannot mint credentials. Every record carries the version the database gave the change, and a write
 * never replaces a newer version: a refill that read the database just before a change, and
 * writes just after the change was published, is dropped however the two interleave.
 *
 * Every write of a newer version, and every withdrawal, is announced on the invalidation channel
 * by the same script, after the write: gateways keep opened records in memory and drop a user's
 * record when they hear of it (decisions.md "Credential cache in the gateway (issue 17)"). A
 * write of the version already cached carries the same record, so it is not announced.
 */
@Injectable()
export class CredentialsCache {
  constructor(
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /**
   * The record and its version key, one slot on a cluster; on a single server also the version
   * key's previous name, kept in step for one release (decisions.md "Redis Cluster").
   */
  private keys(userId: string): string[] {
    const ns = this.config.CRM_NAMESPACE;
    const keys = [CacheKeys.credentials(ns, userId), CacheKeys.credentialsVersion(ns, userId)];
    if (!isCluster(this.redis)) keys.push(CacheKeys.legacyCredentialsVersion(ns, userId));
    return keys;
  }

  private channel(): string {
    return CacheKeys.invalidations(this.config.CRM_NAMESPACE);
  }

  private ttl(record: CredentialRecord): number {
    return record.found ? CREDENTIALS_TTL_SECONDS : UNKNOWN_CREDENTIALS_TTL_SECONDS;
  }

  private write(record: CredentialRecord): Promise<unknown> {
    const version = record.version ?? 0;
    const sealed = sealCredentialRecord(this.config.API_KEY_PEPPER, record);
    const keys = this.keys(record.user_id);
    return this.redis.eval(
      WRITE,
      keys.length,
      ...keys,
      sealed,
      this.ttl(record),
      version,
      VERSION_TTL_SECONDS,
      this.channel(),
      CacheInvalidation.user(record.user_id),
    );
  }

  /** After a change of a user's credentials: must reach Redis, so failures propagate. */
  async store(record: CredentialRecord): Promise<void> {
    await this.write(record);
  }

  /** After a database read: best effort (a refill that fails only costs the next request another lookup). */
  async refill(record: CredentialRecord): Promise<void> {
    try {
      await this.write(record);
    } catch (error) {
      this.logger.warn({ detail: (error as Error).message }, 'could not refill the credentials cache');
    }
  }

  /**
   * Takes back a record stored ahead of a transaction that then did not commit, unless a newer
   * version has been written since; the next lookup reads the database again.
   */
  async withdraw(userId: string, version: number): Promise<void> {
    const keys = this.keys(userId);
    await this.redis.eval(WITHDRAW, keys.length, ...keys, version, this.channel(), CacheInvalidation.user(userId));
  }
}
