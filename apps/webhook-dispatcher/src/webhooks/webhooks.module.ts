import { Module } from '@nestjs/common';
import { WebhooksHandler } from './webhooks.handler';
import { WebhooksRepository } from './webhooks.repository';
import { WebhooksService } from './webhooks.service';

/** Webhook registrations, served to the gateway over NATS. */
@Module({
  controllers: [WebhooksHandler],
  providers: [WebhooksService, WebhooksRepository],
})
export class WebhooksModule {}
