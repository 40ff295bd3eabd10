import {
  ApiError,
  DEFAULT_ACCOUNT_SETTINGS,
  DEFAULT_COST_SETUP,
  canonicalTimeZone,
  type AccountType,
  type CostSetup,
  type StoredAccountSettings,
  type UpdateAccountSettingsRequest,
} from '@crm/contracts';

/**
 * Statuses every new account starts with; the first is the built-in lead status (never deleted).
 * `status` is the type key (OnePageCRM's; Trial has none of its own, so it is the first custom
 * status), `text` the name.
 */
export const DEFAULT_STATUSES: ReadonlyArray<{ status: string; text: string; description: string; color: string }> = [
  { status: 'lead', text: 'Lead', description: 'New contacts you have not qualified yet', color: '#8EA0B1' },
  { status: 'prospect', text: 'Prospect', description: 'Qualified contacts you are working to close', color: '#F9A825' },
  { status: 'custom1', text: 'Trial', description: 'Contacts trying your product or service', color: '#29B6F6' },
  { status: 'customer', text: 'Customer', description: 'Contacts who bought from you', color: '#43A047' },
  { status: 'inactive', text: 'Inactive', description: 'Contacts you are not working with now', color: '#9E9E9E' },
];

/** How many custom type keys the default statuses use (a new account's next custom status is the one after). */
export const DEFAULT_CUSTOM_STATUSES = DEFAULT_STATUSES.filter((s) => /^custom\d+$/.test(s.status)).length;

/** Stages of the default deal pipeline ({ stage, label }, 0 < stage < 100). */
export const DEFAULT_PIPELINE_STAGES = [
  { stage: 10, label: 'Qualification' },
  { stage: 25, label: 'Needs analysis' },
  { stage: 50, label: 'Proposal' },
  { stage: 75, label: 'Negotiation' },
  { stage: 90, label: 'Verbal agreement' },
];

/** The default pipelines every account has: the deal pipeline and the sales pipeline. */
export const DEFAULT_PIPELINES: ReadonlyArray<{ kind: 'pipeline' | 'sales'; name: string }> = [
  { kind: 'pipeline', name: 'Default pipeline' },
  { kind: 'sales', name: 'Sales pipeline' },
];

/** The address a user BCCs to log e-mails: the user's id at the deployment's BCC domain. */
export function bccEmailOf(userId: string, bccDomain: string): string {
  return `${userId}@${bccDomain}`;
}

/** The stored account settings columns (crm.accounts). */
export interface StoredSettingsRow {
  account_type: AccountType;
  settings: Partial<StoredAccountSettings>;
  cost_setup: Partial<CostSetup>;
}

/** A row's settings with the current defaults under every key it lacks (keys added after its migration). */
export function settingsOf(row: StoredSettingsRow): { account_type: AccountType; settings: StoredAccountSettings; cost_setup: CostSetup } {
  return {
    account_type: row.account_type,
    settings: {
      ...DEFAULT_ACCOUNT_SETTINGS,
      ...row.settings,
      reminder: { ...DEFAULT_ACCOUNT_SETTINGS.reminder, ...row.settings.reminder },
    },
    cost_setup: { ...DEFAULT_COST_SETUP, ...row.cost_setup },
  };
}

/** Keys sent (not undefined) of a validated partial input. */
function sent<T extends object>(input: T | undefined): Partial<T> {
  return Object.fromEntries(Object.entries(input ?? {}).filter(([, value]) => value !== undefined)) as Partial<T>;
}

/**
 * A validated change applied to what the account has set: only the keys sent change (they are
 * stored, the others keep reading their defaults); the time zone is stored under its canonical
 * IANA name. The decimal separator and the thousands delimiter in effect must differ (400 naming
 * the one sent).
 */
export function changedSettings(current: StoredSettingsRow, change: UpdateAccountSettingsRequest): StoredSettingsRow {
  const { reminder, ...flat } = sent(change.settings);
  if (flat.time_zone !== undefined) flat.time_zone = canonicalTimeZone(flat.time_zone) ?? flat.time_zone;
  const settings: Partial<StoredAccountSettings> = { ...current.settings, ...flat };
  if (reminder !== undefined) settings.reminder = { ...DEFAULT_ACCOUNT_SETTINGS.reminder, ...current.settings.reminder, ...sent(reminder) };
  const next: StoredSettingsRow = {
    account_type: change.account_type ?? current.account_type,
    settings,
    cost_setup: { ...current.cost_setup, ...sent(change.cost_setup) },
  };
  const effective = settingsOf(next).settings;
  if (effective.separator === effective.delimiter) {
    const field = flat.separator !== undefined ? 'settings.separator' : 'settings.delimiter';
    throw ApiError.invalid({ [field]: 'the decimal separator and the thousands delimiter must differ' });
  }
  return next;
}
