import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { ConfigModule } from '@crm/config';
import { NatsClientModule } from '@crm/messaging';
import { RedisModule, ServiceKitModule, type ServiceKitOptions } from '@crm/service-kit';
import { StorageModule } from '@crm/storage';
import { ApiModule } from './api/api.module';
import { BrowserOriginPolicy } from './cors/browser-origins';
import { ApiEdge } from './edge/api-edge';
import { McpModule } from './mcp/mcp.module';
import { GatewayExceptionFilter } from './routing/gateway-exception.filter';
import type { GatewayConfig } from './config/gateway.config';

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig, kit: ServiceKitOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot(kit),
        ConfigModule.forRoot(config),
        StorageModule.forRoot(config),
        // The gateway degrades without Redis (authentication asks the auth-server instead).
        RedisModule.forRoot({ url: config.REDIS_URL, cluster: config.REDIS_CLUSTER, requiredForReadiness: false, autoPipelining: true }),
        NatsClientModule.forRoot({
          url: config.NATS_URL,
          name: `api-gateway-${process.pid}`,
          namespace: config.CRM_NAMESPACE,
          timeoutMs: config.RPC_TIMEOUT_MS,
          signingKey: config.CALLER_SIGNING_KEY,
        }),
        ApiModule,
        McpModule,
      ],
      providers: [GatewayExceptionFilter, { provide: APP_FILTER, useExisting: GatewayExceptionFilter }, BrowserOriginPolicy, ApiEdge],
    };
  }
}
