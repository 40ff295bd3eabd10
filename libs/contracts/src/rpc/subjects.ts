/**
 * NATS subjects: the only names services know of each other. A published subject is never
 * changed; a new version gets a `.v2` subject. At run time every subject is prefixed with the
 * deployment namespace (CRM_NAMESPACE), see {@link namespacedSubject}.
 */
export const Subjects = {
  /** gateway -> crm-core: GET /users/{user_id}. */
  UsersGet: 'crm.users.get.v1',
  /** gateway -> crm-core: GET /users. */
  UsersList: 'crm.users.list.v1',
  /** auth-server -> crm-core: create (idempotently) the CRM half of a new account. */
  AccountsProvision: 'crm.accounts.provision.v1',
  /** auth-server -> crm-core: create (idempotently) the CRM profile of a new user. */
  UsersProvision: 'crm.users.provision.v1',
  /** gateway -> auth-server: API-key record of a user when Redis cannot answer. */
  CredentialsResolve: 'auth.credentials.resolve.v1',
  /** gateway -> auth-server: a bearer token's user record and grant status when Redis cannot answer. */
  TokenStatus: 'auth.tokens.status.v1',
  /** gateway -> auth-server: POST /change_auth_key. */
  ApiKeyRotate: 'auth.api-keys.rotate.v1',
  // --- custom, company and deal fields (issue 4) ---
  // --- relationship types, predefined actions and groups (issue 4) ---
} as const;

export type Subject = (typeof Subjects)[keyof typeof Subjects];

/** Queue groups: one per consuming service, so replicas share the work. */
export const QueueGroups = {
  crmCore: 'crm-core',
  authServer: 'auth-server',
} as const;

export function namespacedSubject(namespace: string, subject: string): string {
  return `${namespace}.${subject}`;
}
