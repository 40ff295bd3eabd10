import { Type } from 'class-transformer';
import { IsBoolean, IsIn, IsInt, IsNumber, IsOptional, IsString, Length, Max, Min, ValidateNested } from 'class-validator';
import { LIST_FORMATS, type ListFormat } from '../paging/list-format';
import { valueRule } from '../validation/validators';

/**
 * The account settings OnePageCRM's bootstrap documents (`settings`, `cost_setup`, `account_type`;
 * docs/decisions.md "Account settings"). OnePageCRM has no endpoint that changes them: the operator
 * sets them (PATCH /operator/accounts/{id}/settings on the auth-server, which sends
 * {@link UpdateAccountSettingsMessage} to crm-core).
 */

export const ACCOUNT_TYPES = ['pro', 'trial', 'free'] as const;
export type AccountType = (typeof ACCOUNT_TYPES)[number];

/** strftime patterns OnePageCRM's clients format dates with. */
export const DATE_FORMATS = ['%d/%m/%Y', '%m/%d/%Y', '%Y-%m-%d', '%d.%m.%Y', '%d-%m-%Y', '%Y/%m/%d'] as const;
export const NOT_WORKING_DAYS = ['none', 'weekend', 'sunday'] as const;
export const REMINDER_TYPES = ['never', 'every_day', 'new_task'] as const;
export const CONTACT_TYPES = ['company', 'individual'] as const;
export const DECIMAL_SEPARATORS = ['.', ','] as const;
export const THOUSANDS_DELIMITERS = [',', '.', ' ', "'", ''] as const;
export const COST_SETUP_COMMISSION_BASES = ['amount', 'margin'] as const;

/** The stored, editable part of OnePageCRM's `settings`. */
export type StoredAccountSettings = {
  reminder: { type: (typeof REMINDER_TYPES)[number]; hour: number };
  time_zone: string;
  not_working_days: (typeof NOT_WORKING_DAYS)[number];
  date_format: (typeof DATE_FORMATS)[number];
  time_with_ampm: boolean;
  listing_size: number;
  currency: string;
  currency_symbol: string;
  separator: (typeof DECIMAL_SEPARATORS)[number];
  delimiter: (typeof THOUSANDS_DELIMITERS)[number];
  default_contact_type: (typeof CONTACT_TYPES)[number];
  show_tidy_stream: boolean;
  show_company_fields_with_contact: boolean;
  company_phone_enabled: boolean;
  company_url_enabled: boolean;
  company_address_enabled: boolean;
  company_description_enabled: boolean;
  send_push_notifications: boolean;
  clipper_beta: boolean;
  bcc_email_enabled: boolean;
  /**
   * Ours, not OnePageCRM's: how GET /users, /statuses, /lead_sources and /call_results answer
   * `data` unless a request's X-List-Format header says otherwise (`paged`, the spec's object, or
   * `onepagecrm`, OnePageCRM's bare array; libs/contracts list-format.ts).
   */
  list_format: ListFormat;
};

/** OnePageCRM's `cost_setup`: how deal cost and commission are set up (disabled by default). */
export type CostSetup = {
  cost_enabled: boolean;
  cost_required: boolean;
  commission_base: (typeof COST_SETUP_COMMISSION_BASES)[number];
  commission_percentage: number;
};

/**
 * Defaults of every account: a key the operator never set reads as its default here (crm.accounts
 * stores only what was set; migration 1764800200000). OnePageCRM's documented defaults where it has one (listing_size
 * 25, not_working_days none, commission 10 %, cost disabled), else its examples.
 */
export const DEFAULT_ACCOUNT_SETTINGS: Readonly<StoredAccountSettings> = {
  reminder: { type: 'new_task', hour: 6 },
  time_zone: 'UTC',
  not_working_days: 'none',
  date_format: '%d/%m/%Y',
  time_with_ampm: false,
  listing_size: 25,
  currency: 'USD',
  currency_symbol: '$',
  separator: '.',
  delimiter: ',',
  default_contact_type: 'individual',
  show_tidy_stream: false,
  show_company_fields_with_contact: true,
  company_phone_enabled: true,
  company_url_enabled: true,
  company_address_enabled: true,
  company_description_enabled: true,
  send_push_notifications: true,
  clipper_beta: false,
  bcc_email_enabled: true,
  list_format: 'paged',
};

export const DEFAULT_COST_SETUP: Readonly<CostSetup> = {
  cost_enabled: false,
  cost_required: false,
  commission_base: 'amount',
  commission_percentage: 10,
};

export const DEFAULT_ACCOUNT_TYPE: AccountType = 'pro';

const IANA_NAME = /^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/;

/** The canonical IANA name of a time zone (`europe/dublin` -> `Europe/Dublin`), undefined when Intl does not know it. */
export function canonicalTimeZone(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length > 64 || !IANA_NAME.test(value)) return undefined;
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return undefined;
  }
}

/** An IANA time zone name Intl knows (`Europe/Dublin`, `UTC`); offsets and abbreviations are refused. */
export const IsTimeZone = valueRule(
  'isTimeZone',
  'an IANA time zone name such as Europe/Dublin',
  (value) => canonicalTimeZone(value) !== undefined,
);

const CURRENCIES = new Set(Intl.supportedValuesOf('currency'));

/** An ISO 4217 currency code Intl knows (`USD`, `EUR`). */
export const IsCurrencyCode = valueRule(
  'isCurrencyCode',
  'an ISO 4217 currency code such as USD',
  (value) => typeof value === 'string' && CURRENCIES.has(value),
);

const oneOf = (name: string, values: readonly string[]) => ({
  message: `${name} must be one of: ${values.map((v) => (v === '' ? "'' (none)" : `'${v}'`)).join(', ')}`,
});

export class ReminderSettingsInput {
  @IsOptional() @IsIn(REMINDER_TYPES, oneOf('type', REMINDER_TYPES)) type?: StoredAccountSettings['reminder']['type'];
  @IsOptional() @IsInt({ message: 'hour must be an integer 0-23' }) @Min(0) @Max(23) hour?: number;
}

/** A partial change of `settings`: only the keys sent change. */
export class AccountSettingsInput {
  @IsOptional() @ValidateNested() @Type(() => ReminderSettingsInput) reminder?: ReminderSettingsInput;
  @IsOptional() @IsTimeZone() time_zone?: string;
  @IsOptional()
  @IsIn(NOT_WORKING_DAYS, oneOf('not_working_days', NOT_WORKING_DAYS))
  not_working_days?: StoredAccountSettings['not_working_days'];
  @IsOptional() @IsIn(DATE_FORMATS, oneOf('date_format', DATE_FORMATS)) date_format?: StoredAccountSettings['date_format'];
  @IsOptional() @IsBoolean() time_with_ampm?: boolean;
  @IsOptional() @IsInt({ message: 'listing_size must be an integer 1-100' }) @Min(1) @Max(100) listing_size?: number;
  @IsOptional() @IsCurrencyCode() currency?: string;
  @IsOptional() @IsString() @Length(1, 5) currency_symbol?: string;
  @IsOptional() @IsIn(DECIMAL_SEPARATORS, oneOf('separator', DECIMAL_SEPARATORS)) separator?: StoredAccountSettings['separator'];
  @IsOptional() @IsIn(THOUSANDS_DELIMITERS, oneOf('delimiter', THOUSANDS_DELIMITERS)) delimiter?: StoredAccountSettings['delimiter'];
  @IsOptional()
  @IsIn(CONTACT_TYPES, oneOf('default_contact_type', CONTACT_TYPES))
  default_contact_type?: StoredAccountSettings['default_contact_type'];
  @IsOptional() @IsBoolean() show_tidy_stream?: boolean;
  @IsOptional() @IsBoolean() show_company_fields_with_contact?: boolean;
  @IsOptional() @IsBoolean() company_phone_enabled?: boolean;
  @IsOptional() @IsBoolean() company_url_enabled?: boolean;
  @IsOptional() @IsBoolean() company_address_enabled?: boolean;
  @IsOptional() @IsBoolean() company_description_enabled?: boolean;
  @IsOptional() @IsBoolean() send_push_notifications?: boolean;
  @IsOptional() @IsBoolean() clipper_beta?: boolean;
  @IsOptional() @IsBoolean() bcc_email_enabled?: boolean;
  @IsOptional() @IsIn(LIST_FORMATS, oneOf('list_format', LIST_FORMATS)) list_format?: ListFormat;
}

/** A partial change of `cost_setup`. */
export class CostSetupInput {
  @IsOptional() @IsBoolean() cost_enabled?: boolean;
  @IsOptional() @IsBoolean() cost_required?: boolean;
  @IsOptional()
  @IsIn(COST_SETUP_COMMISSION_BASES, oneOf('commission_base', COST_SETUP_COMMISSION_BASES))
  commission_base?: CostSetup['commission_base'];
  @IsOptional()
  @IsNumber({ allowNaN: false, allowInfinity: false, maxDecimalPlaces: 2 }, { message: 'commission_percentage must be a number' })
  @Min(0.01, { message: 'commission_percentage must be above 0 and below 100' })
  @Max(99.99, { message: 'commission_percentage must be above 0 and below 100' })
  commission_percentage?: number;
}

/** Body of PATCH /operator/accounts/{account_id}/settings: any of the three parts, each partial. */
export class UpdateAccountSettingsRequest {
  @IsOptional() @IsIn(ACCOUNT_TYPES, oneOf('account_type', ACCOUNT_TYPES)) account_type?: AccountType;
  @IsOptional() @ValidateNested() @Type(() => AccountSettingsInput) settings?: AccountSettingsInput;
  @IsOptional() @ValidateNested() @Type(() => CostSetupInput) cost_setup?: CostSetupInput;
}

/** auth-server -> crm-core (subject crm.accounts.settings.update.v1). */
export class UpdateAccountSettingsMessage extends UpdateAccountSettingsRequest {
  @IsString() @Length(24, 24) account_id: string;
}

/** The settings of an account after a change (the reply of the subject and of the operator route). */
export interface AccountSettingsReply {
  account_id: string;
  account_type: AccountType;
  settings: StoredAccountSettings;
  cost_setup: CostSetup;
}
