import { newId } from '@crm/common';
import { runMigrations } from '@crm/database';
import type { DataSource, EntityManager } from 'typeorm';
import { DispatcherConfig } from '../config/dispatcher.config';
import { newSigningSecret } from '../webhooks/webhook.rules';
import { WebhooksRepository, type WebhookWrite } from '../webhooks/webhooks.repository';
import { webhooksDataSource } from './webhooks-data-source';

export interface WebhooksMediumDatabase {
  dataSource: DataSource;
  /** The data source's manager: one pooled connection per statement. */
  db: EntityManager;
  url: string;
  /** Registers a webhook of `accountId` through the repository; returns its id. */
  newWebhook(accountId: string, over?: Partial<WebhookWrite>): Promise<string>;
  close(): Promise<void>;
}

/** A medium spec's own database (libs/testing createTestDatabase) with the webhooks schema migrated; `close` drops it. */
export async function openWebhooksDatabase(database: { url: string; drop(): Promise<void> }): Promise<WebhooksMediumDatabase> {
  const config = Object.assign(new DispatcherConfig(), { DATABASE_URL: database.url });
  const dataSource = webhooksDataSource(config);
  await runMigrations(dataSource);
  const webhooks = new WebhooksRepository();
  return {
    dataSource,
    db: dataSource.manager,
    url: database.url,
    async newWebhook(accountId, over = {}) {
      const id = newId();
      await webhooks.insert(dataSource.manager, {
        id,
        account_id: accountId,
        name: `Hook ${id}`,
        hook_url: `https://hooks.example.com/${id}`,
        secretkey: '',
        types: [],
        status_id: null,
        active: true,
        signing_secret: newSigningSecret(),
        ...over,
      });
      return id;
    },
    async close() {
      if (dataSource.isInitialized) await dataSource.destroy();
      await database.drop();
    },
  };
}
