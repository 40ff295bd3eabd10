import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CacheInvalidation, CacheKeys } from '@crm/contracts';
import { groupBySlot, LOGGER, REDIS, type RedisClient } from '@crm/service-kit';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AuthServerConfig } from '../config/auth-server.config';

/** Access tokens live an hour; a revoked grant id must be refused at least that long (+ skew). */
export const REVOKED_GRANT_TTL_SECONDS = 3600 + 120;

// KEYS: revoked-grant flags. ARGV: TTL, invalidation channel, then one message per key.
const MIRROR = `
for i, key in ipairs(KEYS) do
  local fresh = redis.call('EXISTS', key) == 0
  redis.call('SET', key, '1', 'EX', ARGV[1])
  if fresh then redis.call('PUBLISH', ARGV[2], ARGV[i + 2]) end
end
return #KEYS`;

/** Flags per script run: the minute's full reconcile must not hold Redis for long at once. */
const MIRROR_BATCH = 500;

/**
 * Revoked OAuth grant ids (token families): stored durably in the auth schema and mirrored to
 * Redis, where every gateway replica checks them on each bearer request. A reconciler copies the
 * recent revocations to Redis every second, so a revocation whose Redis write failed still
 * reaches the gateways quickly.
 */
@Injectable()
export class GrantRevocationService implements OnApplicationBootstrap, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly dataSource: DataSource,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async markRevoked(grantIds: string[]): Promise<void> {
    if (grantIds.length === 0) return;
    await this.dataSource.query(
      `INSERT INTO auth.revoked_grants (grant_id, expires_at) SELECT unnest($1::text[]), now() + make_interval(secs => $2)
       ON CONFLICT (grant_id) DO UPDATE SET revoked_at = now(), expires_at = EXCLUDED.expires_at`,
      [grantIds, REVOKED_GRANT_TTL_SECONDS],
    );
    await this.mirror(grantIds).catch((error) =>
      this.logger.warn({ detail: (error as Error).message }, 'revocation not yet mirrored to Redis; the reconciler retries'),
    );
  }

  async isRevoked(grantId: string): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query('SELECT 1 FROM auth.revoked_grants WHERE grant_id = $1 AND expires_at > now()', [
      grantId,
    ]);
    return rows.length > 0;
  }

  /** Every grant (token family) of a user, e.g. after a new API key or a deleted user. */
  async grantIdsOfUser(userId: string): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      "SELECT id FROM auth.oidc_artifacts WHERE model = 'Grant' AND account_id = $1",
      [userId],
    );
    return rows.map((r) => r.id);
  }

  /**
   * Sets the revoked flags in Redis; a flag that was not there yet is announced on the
   * invalidation channel by the same script, after the write, so gateways drop a cached "not
   * revoked" (decisions.md "Credential cache in the gateway (issue 17)"). Re-mirroring a flag that
   * is already set announces nothing. Rejects if Redis cannot be written.
   */
  async mirror(grantIds: string[]): Promise<void> {
    const ns = this.config.CRM_NAMESPACE;
    for (let start = 0; start < grantIds.length; start += MIRROR_BATCH) {
      const batch = grantIds.slice(start, start + MIRROR_BATCH);
      // Each grant's flag is its own key: on a Redis Cluster one script per slot (a script's keys
      // must share one), all of a batch sent at once; on a single server one script per batch.
      await Promise.all(
        groupBySlot(this.redis, batch, (id) => CacheKeys.revokedGrant(ns, id)).map((group) =>
          this.redis.eval(
            MIRROR,
            group.length,
            ...group.map((id) => CacheKeys.revokedGrant(ns, id)),
            REVOKED_GRANT_TTL_SECONDS,
            CacheKeys.invalidations(ns),
            ...group.map((id) => CacheInvalidation.grant(id)),
          ),
        ),
      );
    }
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.reconcile(), 1000);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private ticks = 0;

  /** Each second: the last few seconds' revocations; each minute: every unexpired one. */
  private async reconcile(): Promise<void> {
    const everything = this.ticks++ % 60 === 0;
    try {
      const rows: Array<{ grant_id: string }> = await this.dataSource.query(
        everything
          ? 'SELECT grant_id FROM auth.revoked_grants WHERE expires_at > now()'
          : "SELECT grant_id FROM auth.revoked_grants WHERE revoked_at > now() - interval '5 seconds'",
      );
      if (rows.length > 0) await this.mirror(rows.map((r) => r.grant_id));
    } catch {
      // Redis or PostgreSQL away: the next tick tries again.
    }
  }
}
