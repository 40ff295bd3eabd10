import type { RouteDeclaration } from '../routes/route-declaration';
import {
  CreateWebhookRequest,
  ListWebhookDeliveriesRequest,
  ListWebhooksRequest,
  UpdateWebhookRequest,
  WebhookDeliveryIdRequest,
  WebhookIdRequest,
} from './webhook.requests';
import { WebhookSubjects } from './webhook.subjects';

const tag = 'Webhooks';
/** The refusal of a non-admin (the dispatcher checks it too). */
export const WEBHOOKS_ADMIN_ONLY = 'Only account administrators can manage webhooks';

const common = { apiKeyOnly: 'forbidden', adminOnly: WEBHOOKS_ADMIN_ONLY, tag } as const;

/** Webhook management (decisions.md "Webhooks"): admin only, API key only (bearer: 403). */
export const WEBHOOK_ROUTES: readonly RouteDeclaration[] = [
  {
    ...common,
    operationId: 'listWebhooks',
    method: 'GET',
    path: '/webhooks',
    subject: WebhookSubjects.WebhooksList,
    access: 'read',
    request: ListWebhooksRequest,
    successStatus: 200,
    summary: "List the account's webhooks (admin only)",
  },
  {
    ...common,
    operationId: 'createWebhook',
    method: 'POST',
    path: '/webhooks',
    subject: WebhookSubjects.WebhooksCreate,
    access: 'write',
    replyCarriesSecret: true,
    request: CreateWebhookRequest,
    successStatus: 201,
    summary: 'Register a webhook (admin only); the answer carries its signing_secret, shown only here and on rotation',
  },
  {
    ...common,
    operationId: 'getWebhook',
    method: 'GET',
    path: '/webhooks/{webhook_id}',
    subject: WebhookSubjects.WebhooksGet,
    access: 'read',
    request: WebhookIdRequest,
    successStatus: 200,
    summary: 'Get a webhook (admin only)',
  },
  {
    ...common,
    operationId: 'updateWebhook',
    method: 'PUT',
    path: '/webhooks/{webhook_id}',
    subject: WebhookSubjects.WebhooksUpdate,
    access: 'write',
    request: UpdateWebhookRequest,
    successStatus: 200,
    summary: "Replace a webhook's fields (admin only)",
  },
  {
    ...common,
    operationId: 'deleteWebhook',
    method: 'DELETE',
    path: '/webhooks/{webhook_id}',
    subject: WebhookSubjects.WebhooksDelete,
    access: 'write',
    request: WebhookIdRequest,
    successStatus: 200,
    summary: 'Delete a webhook (admin only)',
  },
  {
    ...common,
    operationId: 'rotateWebhookSecret',
    method: 'POST',
    path: '/webhooks/{webhook_id}/rotate_secret',
    subject: WebhookSubjects.WebhooksRotateSecret,
    access: 'write',
    replyCarriesSecret: true,
    request: WebhookIdRequest,
    successStatus: 200,
    summary: 'Issue a new signing_secret (admin only); the previous one keeps signing alongside it for 24 hours',
  },
  {
    ...common,
    operationId: 'listWebhookDeliveries',
    method: 'GET',
    path: '/webhooks/{webhook_id}/deliveries',
    subject: WebhookSubjects.WebhookDeliveriesList,
    access: 'read',
    request: ListWebhookDeliveriesRequest,
    successStatus: 200,
    summary: "A webhook's deliveries, newest first, with every attempt (status, response code, duration) and the next retry (admin only)",
  },
  {
    ...common,
    operationId: 'redeliverWebhookDelivery',
    method: 'POST',
    path: '/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver',
    subject: WebhookSubjects.WebhookDeliveriesRedeliver,
    access: 'write',
    request: WebhookDeliveryIdRequest,
    successStatus: 200,
    summary: 'Send a delivery again now, with a fresh retry schedule and the same webhook-id (admin only)',
  },
];
