/**
 * The services that answer NATS requests, and which one answers a subject. Apart from
 * nats-permissions.ts (no import of the contracts), so rpc-signature.ts and the scripts that load
 * it from dist/ (tools/dev-run.mjs, scripts/caller-keys.mjs) stay light.
 */
export const RPC_CONSUMERS = ['auth-server', 'crm-core', 'webhook-dispatcher'] as const;
export type RpcConsumer = (typeof RPC_CONSUMERS)[number];

/** Who answers a subject: by its first token (crm.*: crm-core, auth.*: the auth-server, webhooks.*: the dispatcher). */
const CONSUMER_BY_PREFIX: Record<string, RpcConsumer> = { crm: 'crm-core', auth: 'auth-server', webhooks: 'webhook-dispatcher' };

/** The consumer of a subject; throws for a subject no service is known to answer. */
export function consumerOf(subject: string): RpcConsumer {
  const consumer = CONSUMER_BY_PREFIX[subject.split('.', 1)[0]!];
  if (!consumer) throw new Error(`no service answers ${subject}: add its prefix to CONSUMER_BY_PREFIX (rpc-consumers.ts)`);
  return consumer;
}

/**
 * The consumer of a subject as published, `<namespace>.<subject>` (namespacedSubject): a namespace
 * has no dot (CRM_NAMESPACE), so the subject starts after the first one.
 */
export function consumerOfPublished(subject: string): RpcConsumer {
  return consumerOf(subject.slice(subject.indexOf('.') + 1));
}
