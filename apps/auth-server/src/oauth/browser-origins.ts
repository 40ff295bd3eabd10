import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { CacheKeys } from '@crm/contracts';
import { LOGGER, REDIS, type RedisClient } from '@crm/service-kit';
import type { Logger } from 'pino';
import { AuthServerConfig } from '../config/auth-server.config';
import { OAuthClientsRepository } from './oauth-clients.repository';

/** The origins of redirect URIs: where a public client's pages run. */
export function redirectOrigins(uris: readonly string[]): string[] {
  const origins = new Set<string>();
  for (const uri of uris) {
    try {
      const { origin } = new URL(uri);
      if (origin.startsWith('http')) origins.add(origin);
    } catch {
      // Registered URIs are validated; nothing else can be here.
    }
  }
  return [...origins];
}

/**
 * Publishes the browser origins the API answers with CORS: those of public clients' redirect
 * URIs (a single-page app gets its token with PKCE and calls the API from that origin). Rebuilt
 * from the database at start-up, extended when the operator registers a public client.
 */
@Injectable()
export class BrowserOrigins implements OnApplicationBootstrap {
  constructor(
    private readonly clients: OAuthClientsRepository,
    @Inject(REDIS) private readonly redis: RedisClient,
    private readonly config: AuthServerConfig,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  private get key(): string {
    return CacheKeys.browserOrigins(this.config.CRM_NAMESPACE);
  }

  async onApplicationBootstrap(): Promise<void> {
    try {
      const origins = redirectOrigins(await this.clients.publicRedirectUris());
      const multi = this.redis.multi().del(this.key);
      if (origins.length > 0) multi.sadd(this.key, ...origins);
      await multi.exec();
    } catch (error) {
      this.logger.warn(
        { detail: (error as Error).message },
        'could not publish the browser origins; CORS waits for the next start or registration',
      );
    }
  }

  async add(redirectUris: readonly string[]): Promise<void> {
    const origins = redirectOrigins(redirectUris);
    if (origins.length > 0) await this.redis.sadd(this.key, ...origins);
  }
}
