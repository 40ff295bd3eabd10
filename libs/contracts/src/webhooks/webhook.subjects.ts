/** Subjects of the webhook context (issue 7); spread into {@link Subjects}. */
export const WebhookSubjects = {
  // gateway -> webhook-dispatcher: registrations
  WebhooksList: 'webhooks.registrations.list.v1',
  WebhooksCreate: 'webhooks.registrations.create.v1',
  WebhooksGet: 'webhooks.registrations.get.v1',
  WebhooksUpdate: 'webhooks.registrations.update.v1',
  WebhooksDelete: 'webhooks.registrations.delete.v1',
  WebhooksRotateSecret: 'webhooks.registrations.rotate-secret.v1',
  // gateway -> webhook-dispatcher: the delivery log and manual redelivery
  WebhookDeliveriesList: 'webhooks.deliveries.list.v1',
  WebhookDeliveriesRedeliver: 'webhooks.deliveries.redeliver.v1',
} as const;
