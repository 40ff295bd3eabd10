import { Module } from '@nestjs/common';
import { LOGGER, REDIS, type RedisClient } from '@crm/service-kit';
import type { Logger } from 'pino';
import { DataSource } from 'typeorm';
import { AuthServerConfig } from '../config/auth-server.config';
import { IdentityModule } from '../identity/identity.module';
import { IdentityRepository } from '../identity/identity.repository';
import { OperatorGuard } from '../operator/operator.guard';
import { GrantRevocationService } from './grant-revocation.service';
import { InteractionController } from './interaction.controller';
import { LoginThrottleService } from './login-throttle.service';
import { BrowserOrigins } from './browser-origins';
import { OAuthClientsRepository } from './oauth-clients.repository';
import { OAuthClientsService } from './oauth-clients.service';
import { OIDC_PROVIDER } from './oauth.tokens';
import { OidcProviderHolder } from './oidc-provider.holder';
import { OidcKeysRepository } from './oidc-keys.repository';
import { OperatorClientsController } from './operator-clients.controller';
import { SigningKeysController } from './signing-keys.controller';
import { TokenEndpointPrecheck } from './token-endpoint.precheck';

/** The OAuth 2.1 authorization server (oidc-provider) with our storage, pages and policies. */
@Module({
  imports: [IdentityModule],
  controllers: [InteractionController, OperatorClientsController, SigningKeysController],
  providers: [
    OAuthClientsRepository,
    OAuthClientsService,
    BrowserOrigins,
    OidcKeysRepository,
    GrantRevocationService,
    LoginThrottleService,
    TokenEndpointPrecheck,
    OperatorGuard,
    {
      provide: OIDC_PROVIDER,
      inject: [
        AuthServerConfig,
        DataSource,
        REDIS,
        OAuthClientsRepository,
        IdentityRepository,
        GrantRevocationService,
        OidcKeysRepository,
        LOGGER,
      ],
      useFactory: (
        config: AuthServerConfig,
        dataSource: DataSource,
        redis: RedisClient,
        clients: OAuthClientsRepository,
        identity: IdentityRepository,
        revocations: GrantRevocationService,
        keys: OidcKeysRepository,
        logger: Logger,
      ) =>
        OidcProviderHolder.create(
          { config, dataSource, redis, clients, identity, revocations, logger },
          keys,
          { rotationSeconds: config.SIGNING_KEY_ROTATION_DAYS * 86400, publishAheadSeconds: config.SIGNING_KEY_PUBLISH_AHEAD_SECONDS },
          config.SIGNING_KEY_CHECK_INTERVAL_MS,
        ),
    },
  ],
  exports: [OIDC_PROVIDER, TokenEndpointPrecheck, GrantRevocationService],
})
export class OAuthModule {}
