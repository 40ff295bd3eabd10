import { isId } from '@crm/common';
import {
  ApiError,
  CONTACT_LIMITS,
  CONTACT_LIST_RESOURCES,
  ErrorName,
  splitIds,
  type ClosedSaleDto,
  type ContactAddressDto,
  type ContactDto,
  type ContactFieldsInput,
  type ContactListResource,
  type CustomFieldValueInput,
  type HttpOrigin,
  type SortOrder,
  type TypedValueDto,
} from '@crm/contracts';
import { assertFieldValue, type FieldDefinition } from '../fields/field-values';
import { letterOf, searchTextOf, sortNameOf } from './contact-columns';

/**
 * The rules of contacts, without I/O: what a POST, PUT or PATCH leads to, the derived columns
 * (contact-columns.ts), the sales cycle, tags, deleting, the list order and the cascade's links.
 * The service loads, applies these, and saves (decisions.md "Contacts and companies").
 */

/** Deleted contacts can be restored for this long (decisions.md "Contacts"). */
export const UNDELETE_DAYS = 30;
/** Contacts in one cascade batch (spec "Limits"). */
export const CASCADE_BATCH = 100;

/** The stored columns of crm.contacts that {@link ContactState} maps to (tags live in crm.contact_tags). */
export const STATE_COLUMNS = [
  'title',
  'first_name',
  'last_name',
  'job_title',
  'starred',
  'photo_url',
  'company_id',
  'company_name',
  'urls',
  'phones',
  'emails',
  'address_list',
  'status_id',
  'lead_source_id',
  'background',
  'owner_id',
  'custom_fields',
] as const;

/** The stored, writable state of a contact (what PUT replaces and PATCH merges into): custom field values by field id, tag ids. */
export type ContactState = Omit<
  Pick<ContactDto, Exclude<(typeof STATE_COLUMNS)[number], 'custom_fields'>>,
  'company_id' | 'lead_source_id'
> & {
  /** Stored: null when none (the API shows ''). */
  company_id: string | null;
  lead_source_id: string | null;
  custom_fields: Record<string, unknown>;
  tag_ids: string[];
};

/** create: defaults for what is absent; replace (PUT): absent fields cleared or defaulted; merge (PATCH, PUT partial=true): absent fields kept. */
export type WriteMode = 'create' | 'replace' | 'merge';

/** How a write changes the contact's company (decisions.md "Companies"). */
export type CompanyLink =
  | { kind: 'keep' }
  | { kind: 'none' }
  /** An existing company of the account, by id (wins over company_name). */
  | { kind: 'id'; id: string }
  /** The account's company of that name in any letter case, or a new one. */
  | { kind: 'name'; name: string };

/** What a write leads to before its references are resolved (the I/O the service does next). */
export interface ContactWritePlan {
  /** The next state; `status_id` is '' when the lead status is to be filled in. */
  state: ContactState;
  /** Ids the write newly points to, each to be checked as a record of the account (else 404). */
  references: Array<{ table: 'statuses' | 'users' | 'lead_sources'; id: string; what: string }>;
  /** Custom field values to check and store (replacing all), or null to keep the current ones. */
  customFields: CustomFieldValueInput[] | null;
  /** Tag names to resolve (replacing all), or null to keep the current tags. */
  tags: string[] | null;
  company: CompanyLink;
}

export const contactNotFound = (what = 'Contact') => ApiError.notFound(`${what} not found`);

/** Lower-case id, or 404 when it is not a well-formed id (a path id never names a record then). */
export function pathId(value: string, what = 'Contact'): string {
  const id = value.trim().toLowerCase();
  if (!isId(id)) throw contactNotFound(what);
  return id;
}

function typedValues(values: ReadonlyArray<{ type?: string; value: string }>): TypedValueDto[] {
  return values.map((v) => ({ type: v.type || 'other', value: v.value }));
}

function addresses(values: ReadonlyArray<Partial<ContactAddressDto>>): ContactAddressDto[] {
  return values.map((a) => ({
    address: a.address ?? '',
    city: a.city ?? '',
    state: a.state ?? '',
    zip_code: a.zip_code ?? '',
    country_code: a.country_code ?? '',
    type: a.type || 'other',
  }));
}

/**
 * The state a write leads to. Absent (undefined) fields: create takes the defaults (status: the
 * lead status, owner: the caller, company: none), replace (PUT) clears them or takes those same
 * defaults, merge (PATCH, PUT `partial=true`) keeps them. A sent null clears a field as absence
 * does in replace mode. References are checked only when they change.
 */
export function planContactWrite(
  input: ContactFieldsInput,
  current: ContactState | null,
  mode: WriteMode,
  callerId: string,
): ContactWritePlan {
  const keep = mode === 'merge' && current !== null;
  const pick = <K extends keyof ContactState>(
    key: K,
    sent: unknown,
    fallback: ContactState[K],
    map: (v: never) => ContactState[K] = (v) => v,
  ): ContactState[K] => {
    if (sent === undefined) return keep ? current[key] : fallback;
    if (sent === null) return fallback;
    return map(sent as never);
  };
  const state: ContactState = {
    title: pick('title', input.title, ''),
    first_name: pick('first_name', input.first_name, ''),
    last_name: pick('last_name', input.last_name, ''),
    job_title: pick('job_title', input.job_title, ''),
    starred: pick('starred', input.starred, false),
    photo_url: pick('photo_url', input.photo_url, ''),
    company_id: current?.company_id ?? null,
    company_name: current?.company_name ?? '',
    urls: pick('urls', input.urls, [], typedValues),
    phones: pick('phones', input.phones, [], typedValues),
    emails: pick('emails', input.emails, [], typedValues),
    address_list: pick('address_list', input.address_list, [], addresses),
    // Status and owner are always set: absent (or null) keeps the current one when merging, else
    // the create default (lead status, the caller): PUT replaces every writable field.
    status_id: input.status_id ? input.status_id.toLowerCase() : keep ? current.status_id : '',
    lead_source_id: pick('lead_source_id', input.lead_source_id, null, (v: string) => v.toLowerCase()),
    background: pick('background', input.background, ''),
    owner_id: input.owner_id ? input.owner_id.toLowerCase() : keep ? current.owner_id : callerId,
    custom_fields: current && keep ? current.custom_fields : {},
    tag_ids: current && keep ? current.tag_ids : [],
  };

  const references: ContactWritePlan['references'] = [];
  if (input.status_id && state.status_id !== current?.status_id)
    references.push({ table: 'statuses', id: state.status_id, what: 'Status' });
  if (input.owner_id && state.owner_id !== current?.owner_id) references.push({ table: 'users', id: state.owner_id, what: 'User' });
  if (state.lead_source_id && state.lead_source_id !== current?.lead_source_id)
    references.push({ table: 'lead_sources', id: state.lead_source_id, what: 'Lead source' });

  return {
    state,
    references,
    customFields: input.custom_fields !== undefined || !keep ? (input.custom_fields ?? []) : null,
    tags: input.tags !== undefined || !keep ? (input.tags ?? []) : null,
    company: companyLinkOf(input, current, keep),
  };
}

/** company_id wins; else company_name (""/null: none) unless it names the current company (any letter case). */
function companyLinkOf(input: ContactFieldsInput, current: ContactState | null, keep: boolean): CompanyLink {
  if (input.company_id) return { kind: 'id', id: input.company_id.toLowerCase() };
  if (input.company_name === undefined && input.company_id !== null && keep) return { kind: 'keep' };
  const name = input.company_name ?? '';
  if (name === '') return { kind: 'none' };
  if (current?.company_id && current.company_name.toLowerCase() === name.toLowerCase()) return { kind: 'keep' };
  return { kind: 'name', name };
}

/** POST /contacts (and every write) needs `last_name` or `company_name`. */
export function assertNamed(state: Pick<ContactState, 'last_name' | 'company_name'>): void {
  if (!state.last_name && !state.company_name) {
    throw ApiError.invalid({ last_name: 'last_name or company_name is required', company_name: 'last_name or company_name is required' });
  }
}

/** The derived columns of a state: sort_name, letter, search_text (contact-columns.ts). */
export function derivedColumns(state: Parameters<typeof searchTextOf>[0]): { sort_name: string; letter: string; search_text: string } {
  const sortName = sortNameOf(state);
  return { sort_name: sortName, letter: letterOf(sortName), search_text: searchTextOf(state) };
}

/** Same state (tags compared as sets)? An unchanged write keeps modified_at and emits nothing. */
export function sameState(a: ContactState, b: ContactState): boolean {
  for (const c of STATE_COLUMNS) {
    if (JSON.stringify(a[c]) !== JSON.stringify(b[c])) return false;
  }
  return JSON.stringify([...a.tag_ids].sort()) === JSON.stringify([...b.tag_ids].sort());
}

/**
 * Checks custom (or company) field values against their definitions: unknown ids 404, bad values
 * 400 keyed `<key>.<i>.value`; a null value removes the field's value. The stored map field id -> value.
 */
export function customFieldValues(
  inputs: readonly CustomFieldValueInput[],
  definitions: ReadonlyArray<FieldDefinition & { id: string }>,
  key = 'custom_fields',
  ref: 'custom_field' | 'company_field' = 'custom_field',
): Record<string, unknown> {
  const byId = new Map(definitions.map((d) => [d.id, d]));
  const out: Record<string, unknown> = {};
  inputs.forEach((input, i) => {
    const fieldId = (input as unknown as Record<string, { id: string }>)[ref].id.trim().toLowerCase();
    const def = byId.get(fieldId);
    if (!def) throw ApiError.notFound(`The ${ref === 'custom_field' ? 'custom field' : 'company field'} of ${key}.${i} was not found`);
    const value = assertFieldValue(def, input.value, `${key}.${i}.value`);
    if (value === null) delete out[fieldId];
    else out[fieldId] = value;
  });
  return out;
}

/**
 * Tag names as sent, one per name in any letter case (the last spelling sent). An existing tag of
 * that name is used with its own spelling; a new name creates the tag.
 */
export function distinctTagNames(names: readonly string[]): string[] {
  return [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
}

/** close_sales_cycle: one `{ user_id, closed_at, comment }` per user; a repeat replaces the user's entry, moved last. */
export function closeSalesCycle(
  closed: readonly ClosedSaleDto[],
  userId: string,
  comment: string | null | undefined,
  now: Date,
): ClosedSaleDto[] {
  const sale: ClosedSaleDto = { user_id: userId, closed_at: Math.floor(now.getTime() / 1000), comment: comment ?? '' };
  return [...closed.filter((s) => s.user_id !== userId), sale];
}

/** Reopens the user's sales cycle: their closing entry goes (none: nothing changes). */
export function reopenSalesCycle(closed: readonly ClosedSaleDto[], userId: string): ClosedSaleDto[] {
  return closed.filter((s) => s.user_id !== userId);
}

/** Deleting (and undeleting) contacts needs the `delete_contacts` permission; the role alone is not enough. */
export function assertCanDelete(permissions: readonly string[] | undefined): void {
  if (!permissions?.includes('delete_contacts'))
    throw new ApiError(ErrorName.NoPermission, 'Deleting contacts needs the delete_contacts permission');
}

/** The distinct ids of a bulk delete or undelete: at most 100. */
export function bulkIds(raw: string): string[] {
  const ids = splitIds(raw);
  if (ids.length > CONTACT_LIMITS.bulkIds)
    throw ApiError.invalid({ ids: `ids must be 1 to ${CONTACT_LIMITS.bulkIds} contact ids separated by commas` });
  return ids;
}

/** The resources `fields=` names (`deals(all),notes(all)`), in their canonical order. */
export function requestedResources(fields: string | undefined): ContactListResource[] {
  if (!fields) return [];
  const named = new Set(fields.split(',').map((part) => part.trim().replace(/\(all\)$/, '')));
  return CONTACT_LIST_RESOURCES.filter((r) => named.has(r));
}

interface TimeRange {
  date_filter?: string;
  since?: string;
  until?: string;
  modified_since?: string;
  unmodified_since?: string;
}

/** The column a time range applies to (since/until: date_filter, default created_at; modified_*: modified_at), or null. */
export function rangedColumn(input: TimeRange): 'created_at' | 'modified_at' | null {
  if (input.modified_since || input.unmodified_since) return 'modified_at';
  if (input.since || input.until) return input.date_filter === 'modified_at' ? 'modified_at' : 'created_at';
  return null;
}

/**
 * The order of a list (GET /contacts, GET /companies): by `byDefault` (name) unless `sort_by`; a
 * created_at or modified_at range without sort_by orders by that field, newest first (or as
 * `order` says). The repository breaks ties by name, then id, in the same direction.
 */
export function listOrder<K extends string>(
  sortBy: K | undefined,
  order: SortOrder | undefined,
  ranged: 'created_at' | 'modified_at' | null,
  byDefault: K,
): { key: K | 'created_at' | 'modified_at'; direction: SortOrder } {
  if (!sortBy && ranged) return { key: ranged, direction: order ?? 'desc' };
  return { key: sortBy ?? byDefault, direction: order ?? 'asc' };
}

/** The cascade's `last_id`: null for the first batch (absent, empty or `0`), else the contact id (404 when malformed). */
export function cascadeAfterId(lastId: string | undefined): string | null {
  const id = lastId?.trim();
  if (id === undefined || id === '' || id === '0') return null;
  return pathId(id);
}

/** `next_set_url`: the next batch's absolute URL with the same query, or null when nothing is left. */
export function nextSetUrl(origin: HttpOrigin | undefined, itemsLeft: number, lastId: string | null): string | null {
  if (itemsLeft <= 0 || !lastId) return null;
  const query = origin?.query ? `?${origin.query}` : '';
  return `${origin?.base_url ?? ''}/contacts/cascade/${lastId}${query}`;
}

/** A company's syncing settings (crm.companies). */
export interface CompanySyncSettings {
  syncing_status: boolean;
  synced_status_id: string | null;
  syncing_tags: boolean;
  synced_tags: string[];
}

/**
 * What a company's syncing gives its non-deleted contacts: with `syncing_status` and a
 * `synced_status_id`, that status; with `syncing_tags`, every tag of `synced_tags` (added, never
 * removed). Tag names lower-cased for matching.
 */
export function companySync(settings: CompanySyncSettings): { statusId: string | null; tagNames: string[] } {
  return {
    statusId: settings.syncing_status && settings.synced_status_id ? settings.synced_status_id : null,
    tagNames: settings.syncing_tags ? (settings.synced_tags ?? []).map((t) => t.toLowerCase()) : [],
  };
}
