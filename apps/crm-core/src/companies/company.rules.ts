import {
  ApiError,
  ErrorName,
  type CompanyAddressDto,
  type CompanyDto,
  type CompanyFieldsInput,
  type CompanyFieldValueInput,
} from '@crm/contracts';

/**
 * The rules of companies, without I/O: what a PUT or PATCH leads to, when a write changes
 * nothing (decisions.md "Companies"; the list order is contact.rules listOrder). Creating and matching companies by name,
 * renaming them on their contacts and syncing are contact-side (contacts/contact.rules.ts).
 */

/** The columns of crm.companies that {@link CompanyState} maps to. */
export const COMPANY_COLUMNS = [
  'name',
  'description',
  'phone',
  'url',
  'photo_url',
  'image',
  'address',
  'company_fields',
  'syncing_status',
  'synced_status_id',
  'syncing_tags',
  'synced_tags',
] as const;

/** The stored, writable state of a company: company field values by field id. */
export type CompanyState = Omit<Pick<CompanyDto, Exclude<(typeof COMPANY_COLUMNS)[number], 'company_fields'>>, 'synced_status_id'> & {
  /** Stored: null when none (the API shows ''). */
  synced_status_id: string | null;
  company_fields: Record<string, unknown>;
};

export interface CompanyWritePlan {
  state: CompanyState;
  /** company_fields values to check and store (replacing all), or null to keep the current ones. */
  companyFields: CompanyFieldValueInput[] | null;
  /** synced_tags names to resolve (replacing all), or null to keep the current ones. */
  syncedTags: string[] | null;
  /** A synced status newly named: to be checked as a status of the account (else 404). */
  statusToCheck: string | null;
}

export function emptyAddress(): CompanyAddressDto {
  return { address: '', city: '', state: '', zip_code: '', country_code: '' };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}

/**
 * The state a write leads to. `replace` (PUT): `name` is required and every absent field is
 * cleared (syncing off, no synced status or tags, no company fields); PATCH and PUT
 * `partial=true`: absent fields are kept. A sent null clears a field; `name` cannot be cleared.
 */
export function planCompanyWrite(input: CompanyFieldsInput, current: CompanyState, replace: boolean): CompanyWritePlan {
  const pick = <K extends keyof CompanyState>(
    key: K,
    sent: unknown,
    fallback: CompanyState[K],
    map: (v: never) => CompanyState[K] = (v) => v,
  ): CompanyState[K] => {
    if (sent === undefined) return replace ? fallback : current[key];
    if (sent === null) return fallback;
    return map(sent as never);
  };
  if (replace && (input.name === undefined || input.name === null)) throw ApiError.invalid({ name: 'name is required' });
  if (input.name === null) throw ApiError.invalid({ name: 'name cannot be cleared' });
  const state: CompanyState = {
    name: input.name ?? current.name,
    description: pick('description', input.description, ''),
    phone: pick('phone', input.phone, ''),
    url: pick('url', input.url, ''),
    photo_url: pick('photo_url', input.photo_url, ''),
    image: pick('image', input.image, ''),
    address: pick('address', input.address, emptyAddress(), (a: Partial<CompanyAddressDto>) => ({ ...emptyAddress(), ...definedOnly(a) })),
    company_fields: current.company_fields,
    syncing_status: pick('syncing_status', input.syncing_status, false),
    synced_status_id: pick('synced_status_id', input.synced_status_id, null, (v: string) => v.toLowerCase()),
    syncing_tags: pick('syncing_tags', input.syncing_tags, false),
    synced_tags: current.synced_tags,
  };
  return {
    state,
    companyFields: input.company_fields !== undefined || replace ? (input.company_fields ?? []) : null,
    syncedTags: input.synced_tags !== undefined || replace ? (input.synced_tags ?? []) : null,
    statusToCheck: state.synced_status_id && state.synced_status_id !== current.synced_status_id ? state.synced_status_id : null,
  };
}

/** Same stored state? An unchanged write keeps modified_at and emits nothing. */
export function sameCompany(a: CompanyState, b: CompanyState): boolean {
  return JSON.stringify(COMPANY_COLUMNS.map((c) => a[c])) === JSON.stringify(COMPANY_COLUMNS.map((c) => b[c]));
}

/** A rename onto another company's name (letter case aside): 400 duplicated_entity. */
export function duplicatedName(): ApiError {
  return new ApiError(ErrorName.DuplicatedEntity, 'A company with this name already exists', {
    name: 'a company of the account already has this name (letter case aside)',
  });
}

/** Most contacts linked to one company (OnePageCRM's cap). */
export const MAX_LINKED_CONTACTS = 100;

/** Only a contact that does not belong to the company can be linked to it. */
export function assertLinkable(companyId: string, contactCompanyId: string | null): void {
  if (contactCompanyId === companyId)
    throw ApiError.invalid({ contact_id: 'the contact already belongs to this company; only contacts of other companies can be linked' });
}

/** A new link may not take the company past MAX_LINKED_CONTACTS (counted after it, in the linking transaction). */
export function assertLinkRoom(linksAfter: number): void {
  if (linksAfter > MAX_LINKED_CONTACTS)
    throw ApiError.invalid({ contact_id: `a company can have at most ${MAX_LINKED_CONTACTS} linked contacts` });
}
