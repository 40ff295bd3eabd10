import { createDataSource } from '@crm/database';
import type { DataSource } from 'typeorm';
import type { DispatcherConfig } from '../config/dispatcher.config';
import { InitWebhooks1763800000000 } from '../migrations/1763800000000-init-webhooks';
import { WebhookSigning1764000300000 } from '../migrations/1764000300000-webhook-signing';
import { WebhookDeliveries1764200000000 } from '../migrations/1764200000000-webhook-deliveries';
import { DeliveryLastAttempt1764200100000 } from '../migrations/1764200100000-delivery-last-attempt';
import { WebhookChangeNotify1764200200000 } from '../migrations/1764200200000-webhook-change-notify';
import { DeliveriesDueByWebhook1764200300000 } from '../migrations/1764200300000-deliveries-due-by-webhook';
import { DeliveryErrorCategories1764300000000 } from '../migrations/1764300000000-delivery-error-categories';
import { EventTraceContext1764300100000 } from '../migrations/1764300100000-event-trace-context';

export const WEBHOOKS_SCHEMA = 'webhooks';

/** The webhooks schema: its migrations and pool (no entities). */
export function webhooksDataSource(config: DispatcherConfig): DataSource {
  return createDataSource({
    url: config.databaseUrl,
    schema: WEBHOOKS_SCHEMA,
    // No TypeORM entities: every statement is an sql`` template in a repository; TypeORM runs the
    // migrations and holds the pool.
    entities: [],
    migrations: [
      InitWebhooks1763800000000,
      WebhookSigning1764000300000,
      WebhookDeliveries1764200000000,
      DeliveryLastAttempt1764200100000,
      WebhookChangeNotify1764200200000,
      DeliveriesDueByWebhook1764200300000,
      DeliveryErrorCategories1764300000000,
      EventTraceContext1764300100000,
    ],
    poolSize: config.DATABASE_POOL_SIZE,
    applicationName: 'webhook-dispatcher',
  });
}
