import { Module, type DynamicModule } from '@nestjs/common';
import { ConfigModule } from '@crm/config';
import { DatabaseModule } from '@crm/database';
import { NatsClientModule } from '@crm/messaging';
import { ServiceKitModule, type ServiceKitOptions } from '@crm/service-kit';
import type { DispatcherConfig } from './config/dispatcher.config';
import { webhooksDataSource } from './database/webhooks-data-source';
import { DeliveriesModule } from './deliveries/deliveries.module';
import { WebhooksModule } from './webhooks/webhooks.module';

@Module({})
export class AppModule {
  static forRoot(config: DispatcherConfig, kit: ServiceKitOptions): DynamicModule {
    return {
      module: AppModule,
      imports: [
        ServiceKitModule.forRoot(kit),
        ConfigModule.forRoot(config),
        DatabaseModule.forRoot(() => webhooksDataSource(config)),
        NatsClientModule.forRoot({
          url: config.NATS_URL,
          name: `webhook-dispatcher-${process.pid}`,
          namespace: config.CRM_NAMESPACE,
          timeoutMs: 5000,
        }),
        WebhooksModule,
        DeliveriesModule,
      ],
    };
  }
}
