import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule } from '@crm/config';
import { DatabaseModule } from '@crm/database';
import { NatsClientModule } from '@crm/messaging';
import { ApiExceptionFilter, RedisModule, ServiceKitModule, type ServiceKitOptions } from '@crm/service-kit';
import type { AuthServerConfig } from './config/auth-server.config';
import { authDataSource } from './database/auth-data-source';
import { IdentityModule } from './identity/identity.module';
import { ApiKeysModule } from './api-keys/api-keys.module';
import { OAuthModule } from './oauth/oauth.module';
import { RegistrationController } from './oauth/registration.controller';
import { OperatorPortServer } from './operator/operator-port';
import { TestClockController } from './operator/test-clock.controller';

@Module({})
export class AppModule {
  static forRoot(config: AuthServerConfig, kit: ServiceKitOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot(kit),
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(() => authDataSource(config)),
        RedisModule.forRoot({ url: config.REDIS_URL, cluster: config.REDIS_CLUSTER, requiredForReadiness: true }),
        NatsClientModule.forRoot({
          url: config.NATS_URL,
          name: `auth-server-client-${process.pid}`,
          namespace: config.CRM_NAMESPACE,
          timeoutMs: config.RPC_TIMEOUT_MS,
          signingKey: config.CALLER_SIGNING_KEY,
        }),
        IdentityModule,
        OAuthModule,
        ApiKeysModule,
      ],
      controllers: [RegistrationController, ...(config.ENABLE_TEST_CLOCK ? [TestClockController] : [])],
      providers: [{ provide: APP_FILTER, useClass: ApiExceptionFilter }, OperatorPortServer],
    };
  }
}
