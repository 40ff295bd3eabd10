import { ConfigurationSubjects } from '../configuration/configuration.subjects';
import { ContactSubjects } from '../contacts/contact.subjects';
import { RecordSubjects } from '../records/record.subjects';
import { WebhookSubjects } from '../webhooks/webhook.subjects';

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
  /** gateway -> crm-core: /custom_fields (contact custom fields); one subject per set and operation. */
  CustomFieldsList: 'crm.custom-fields.list.v1',
  CustomFieldsGet: 'crm.custom-fields.get.v1',
  CustomFieldsCreate: 'crm.custom-fields.create.v1',
  CustomFieldsUpdate: 'crm.custom-fields.update.v1',
  CustomFieldsPatch: 'crm.custom-fields.patch.v1',
  CustomFieldsDelete: 'crm.custom-fields.delete.v1',
  /** gateway -> crm-core: /company_fields. */
  CompanyFieldsList: 'crm.company-fields.list.v1',
  CompanyFieldsGet: 'crm.company-fields.get.v1',
  CompanyFieldsCreate: 'crm.company-fields.create.v1',
  CompanyFieldsUpdate: 'crm.company-fields.update.v1',
  CompanyFieldsPatch: 'crm.company-fields.patch.v1',
  CompanyFieldsDelete: 'crm.company-fields.delete.v1',
  /** gateway -> crm-core: /deal_fields. */
  DealFieldsList: 'crm.deal-fields.list.v1',
  DealFieldsGet: 'crm.deal-fields.get.v1',
  DealFieldsCreate: 'crm.deal-fields.create.v1',
  DealFieldsUpdate: 'crm.deal-fields.update.v1',
  DealFieldsPatch: 'crm.deal-fields.patch.v1',
  DealFieldsDelete: 'crm.deal-fields.delete.v1',
  // --- relationship types, predefined actions and groups (issue 4) ---
  RelationshipTypesList: 'crm.relationship-types.list.v1',
  RelationshipTypesCreate: 'crm.relationship-types.create.v1',
  RelationshipTypesGet: 'crm.relationship-types.get.v1',
  RelationshipTypesUpdate: 'crm.relationship-types.update.v1',
  RelationshipTypesDelete: 'crm.relationship-types.delete.v1',
  PredefinedActionsList: 'crm.predefined-actions.list.v1',
  PredefinedActionsCreate: 'crm.predefined-actions.create.v1',
  PredefinedActionsGet: 'crm.predefined-actions.get.v1',
  PredefinedActionsDelete: 'crm.predefined-actions.delete.v1',
  PredefinedActionGroupsList: 'crm.predefined-action-groups.list.v1',
  PredefinedActionGroupsCreate: 'crm.predefined-action-groups.create.v1',
  PredefinedActionGroupsGet: 'crm.predefined-action-groups.get.v1',
  PredefinedActionGroupsDelete: 'crm.predefined-action-groups.delete.v1',
  // Each bounded context below declares its subjects in its own folder (one owner per file).
  ...ContactSubjects,
  ...ConfigurationSubjects,
  ...RecordSubjects,
  ...WebhookSubjects,
} as const;

export type Subject = (typeof Subjects)[keyof typeof Subjects];

/** Queue groups: one per consuming service, so replicas share the work. */
export const QueueGroups = {
  crmCore: 'crm-core',
  authServer: 'auth-server',
  webhookDispatcher: 'webhook-dispatcher',
} as const;

export function namespacedSubject(namespace: string, subject: string): string {
  return `${namespace}.${subject}`;
}
