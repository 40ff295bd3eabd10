/** Subjects of provisioning: auth-server -> crm-core; spread into {@link Subjects}. */
export const AccountSubjects = {
  /** auth-server -> crm-core: create (idempotently) the CRM half of a new account. */
  AccountsProvision: 'crm.accounts.provision.v1',
  /** auth-server -> crm-core: create (idempotently) the CRM profile of a new user. */
  UsersProvision: 'crm.users.provision.v1',
  /** auth-server -> crm-core: change an account's settings, account type or cost setup (the operator's). */
  AccountsSettingsUpdate: 'crm.accounts.settings.update.v1',
} as const;
