import {
  API_ROUTES,
  eventsStreamConfig,
  eventsStreamSubjects,
  namespacedSubject,
  RPC_REPLY_LIMITS,
  Subjects,
  WEBHOOK_DISPATCHER_CONSUMER,
  type Subject,
} from '@crm/contracts';
import { consumerOf } from './rpc-consumers';

/**
 * One NATS user per service, each allowed to publish and subscribe to what it needs and no more
 * (decisions.md "NATS trust boundary"). Derived from the subjects in libs/contracts, namespaced as
 * the services do, so the deployment's nats.conf (deploy/k8s/base/nats-config.yaml, written by
 * scripts/nats-config.mjs) and the tests that run the services against a private NATS with these
 * permissions come from this one place.
 */
export const NATS_SERVICES = ['api-gateway', 'auth-server', 'crm-core', 'webhook-dispatcher'] as const;
export type NatsService = (typeof NATS_SERVICES)[number];

export interface NatsUserPermissions {
  user: NatsService;
  /** Environment variable the server reads the user's password from (`password: $VAR` in nats.conf). */
  passwordVariable: string;
  publish: string[];
  subscribe: string[];
  /**
   * The service answers requests: it may publish to the reply subject of a request it received, up
   * to RPC_REPLY_LIMITS.maxParts times (a reply larger than one NATS message goes in parts).
   */
  allowResponses: boolean;
}

/** Who sends the subjects that are not API routes (API routes are the gateway's). */
const INTERNAL_SENDERS: Partial<Record<Subject, NatsService>> = {
  [Subjects.CredentialsResolve]: 'api-gateway',
  [Subjects.TokenStatus]: 'api-gateway',
  [Subjects.AccountsProvision]: 'auth-server',
  [Subjects.UsersProvision]: 'auth-server',
  [Subjects.AccountsSettingsUpdate]: 'auth-server',
};

/** The sender of a subject; throws for a subject that is neither an API route nor listed as internal. */
export function senderOf(subject: string): NatsService {
  if (API_ROUTES.some((route) => route.subject === subject)) return 'api-gateway';
  const sender = INTERNAL_SENDERS[subject as Subject];
  if (!sender) throw new Error(`no service sends ${subject}: declare it as an API route or in INTERNAL_SENDERS (nats-permissions.ts)`);
  return sender;
}

/** The prefix of a service's reply inboxes: `_INBOX.<NATS user>` (see natsClientOptions). */
export function inboxPrefixOf(user: string): string {
  return `_INBOX.${user}`;
}

/** NATS_PASSWORD_API_GATEWAY, ...: where nats.conf reads each user's password from. */
export function passwordVariableOf(service: NatsService): string {
  return `NATS_PASSWORD_${service.toUpperCase().replace(/-/g, '_')}`;
}

/** The JetStream API subjects one stream's owner (crm-core) or its consumer (the dispatcher) calls. */
function jetStreamApi(namespace: string, role: 'stream' | 'consumer'): string[] {
  const stream = eventsStreamConfig(namespace).name;
  const consumer = WEBHOOK_DISPATCHER_CONSUMER;
  // Both sides create the stream if it is missing (whichever starts first); only crm-core updates it.
  const common = ['$JS.API.INFO', `$JS.API.STREAM.INFO.${stream}`, `$JS.API.STREAM.CREATE.${stream}`];
  if (role === 'stream') return [...common, `$JS.API.STREAM.UPDATE.${stream}`];
  return [
    ...common,
    `$JS.API.CONSUMER.INFO.${stream}.${consumer}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${consumer}`,
    `$JS.API.CONSUMER.CREATE.${stream}.${consumer}.>`,
    `$JS.API.CONSUMER.DURABLE.CREATE.${stream}.${consumer}`,
    `$JS.API.CONSUMER.MSG.NEXT.${stream}.${consumer}`,
    `$JS.ACK.${stream}.${consumer}.>`,
  ];
}

/** Every service's NATS user and permissions for one deployment namespace (CRM_NAMESPACE). */
export function natsPermissions(namespace: string): NatsUserPermissions[] {
  const subjects = [...new Set(Object.values(Subjects))].sort();
  const sends = (service: NatsService) => subjects.filter((s) => senderOf(s) === service).map((s) => namespacedSubject(namespace, s));
  const answers = (service: NatsService) => subjects.filter((s) => consumerOf(s) === service).map((s) => namespacedSubject(namespace, s));
  const extraPublish: Record<NatsService, string[]> = {
    'api-gateway': [],
    'auth-server': [],
    'crm-core': [...eventsStreamSubjects(namespace), ...jetStreamApi(namespace, 'stream')],
    'webhook-dispatcher': jetStreamApi(namespace, 'consumer'),
  };
  return NATS_SERVICES.map((service) => {
    const subscribe = [...answers(service), `${inboxPrefixOf(service)}.>`];
    return {
      user: service,
      passwordVariable: passwordVariableOf(service),
      publish: [...sends(service), ...extraPublish[service]],
      subscribe,
      allowResponses: subscribe.length > 1,
    };
  });
}

const quote = (value: string) => JSON.stringify(value);
const list = (items: string[], indent: string) => `[\n${items.map((i) => `${indent}  ${quote(i)}`).join(',\n')}\n${indent}]`;

/**
 * The `authorization` block of nats.conf for `namespace`: one user per service, each password read
 * from the server's environment ({@link passwordVariableOf}). No other user exists, so a client
 * without a password of these is refused.
 */
export function natsAuthorizationConfig(namespace: string): string {
  const users = natsPermissions(namespace).map((p) =>
    [
      '    {',
      `      user: ${quote(p.user)}`,
      `      password: $${p.passwordVariable}`,
      '      permissions: {',
      `        publish: { allow: ${list(p.publish, '        ')} }`,
      `        subscribe: { allow: ${list(p.subscribe, '        ')} }`,
      ...(p.allowResponses ? [`        allow_responses: { max: ${RPC_REPLY_LIMITS.maxParts} }`] : []),
      '      }',
      '    }',
    ].join('\n'),
  );
  return [
    `# NATS users of the CRM services (namespace ${namespace}), generated from libs/contracts by`,
    '# libs/messaging/src/nats-permissions.ts (scripts/nats-config.mjs writes it): do not edit by hand.',
    'authorization {',
    '  users: [',
    users.join(',\n'),
    '  ]',
    '}',
    '',
  ].join('\n');
}

/**
 * The whole nats.conf of a deployment: the users ({@link natsAuthorizationConfig}) and, commented
 * out, the TLS block production turns on. Address, port, JetStream and the cluster are set by
 * whoever includes it (deploy/k8s/base/nats.yaml's nats-server.conf, the tests' private servers).
 */
export function natsServerConfig(namespace: string): string {
  return [
    natsAuthorizationConfig(namespace).trimEnd(),
    '',
    '# Production: encrypt every client connection. Mount a certificate for the name the services',
    '# dial (nats, nats.<k8s namespace>.svc) from a Secret at /etc/nats/tls and uncomment the block; the',
    '# services upgrade to TLS when the server requires it and check the certificate against the',
    "# system's CAs plus NODE_EXTRA_CA_CERTS (a PEM file of your CA, mounted into their pods).",
    '# tls {',
    '#   cert_file: "/etc/nats/tls/tls.crt"',
    '#   key_file: "/etc/nats/tls/tls.key"',
    '#   timeout: 2',
    '# }',
    '',
  ].join('\n');
}
