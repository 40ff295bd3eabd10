/**
 * Shared checks of the black-box conformance suites (conformance-*.e2e-spec.ts). Written from
 * /work/shared/spec/crm-service-spec.md and /work/shared/spec/decisions.md only: every assertion
 * here quotes a rule of one of them; details they leave open are not asserted.
 */
import { randomBytes } from 'node:crypto';
import { type ApiResponse, type CreatedAccount, type ServicesHandle } from '@crm/testing';
import { calls, type Caller, type Json } from './setup';

export type { Caller, Json } from './setup';

export const HEX24 = /^[0-9a-f]{24}$/;
export const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|\+00:00)$/;
export const YMD = /^\d{4}-\d{2}-\d{2}$/;
/** A syntactically valid id that names no record anywhere. */
export const UNKNOWN_ID = 'f'.repeat(24);
/** Ids that are not 24-hex: decisions.md "an id ... that names no record ...: 404". */
export const BAD_IDS = ['123', 'not-an-id', 'z'.repeat(24)];

/** Spec "Contact wrapper" + decisions.md "Contacts": exactly these keys. */
export const WRAPPER_KEYS = ['company', 'contact', 'next_action', 'next_action_conflicts', 'next_actions', 'queued_actions'];
/** Spec "Resources and their fields / Contact". */
export const CONTACT_FIELDS = [
  'id',
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
  'status',
  'status_id',
  'tags',
  'lead_source_id',
  'lead_source',
  'background',
  'owner_id',
  'custom_fields',
  'letter',
  'pending_deal',
  'total_pendings',
  'total_deals_count',
  'company_size',
  'sales_closed_for',
  'closed_sales',
  'google_contacts_data',
  'created_at',
  'modified_at',
];
/** Spec "Company" fields (contacts and pending_deals included). */
export const COMPANY_FIELDS = [
  'id',
  'image',
  'name',
  'description',
  'phone',
  'photo_url',
  'url',
  'address',
  'company_fields',
  'syncing_status',
  'synced_status_id',
  'syncing_tags',
  'synced_tags',
  'contacts_count',
  'won_deals_count',
  'pending_deals_count',
  'total_won_amount',
  'total_pending_amount',
  'contacts',
  'pending_deals',
  'created_at',
  'modified_at',
];
/** Spec "Deal" fields, without previous_pipeline_stages (only with include_history=true). */
export const DEAL_FIELDS = [
  'id',
  'contact_id',
  'owner_id',
  'pipeline_id',
  'sales_pipeline_id',
  'name',
  'text',
  'stage',
  'status',
  'expected_close_date',
  'close_date',
  'date',
  'amount',
  'months',
  'cost',
  'margin',
  'total_amount',
  'total_cost',
  'commission_base',
  'commission_type',
  'commission',
  'commission_percentage',
  'reason_lost_id',
  'deal_fields',
  'has_deal_items',
  'deal_items',
  'author',
  'has_related_notes',
  'attachments',
  'contact_info',
  'owner',
  'created_at',
  'modified_at',
  'linked_contacts',
];
/** Spec "Action" fields (`date` is absent on completed actions). */
export const ACTION_FIELDS = [
  'id',
  'assignee_id',
  'contact_id',
  'text',
  'status',
  'date',
  'exact_time',
  'position',
  'done',
  'done_at',
  'externally_controlled',
  'created_at',
  'modified_at',
];
/** Spec "Note". */
export const NOTE_FIELDS = [
  'id',
  'contact_id',
  'text',
  'date',
  'linked_deal_id',
  'linked_deal_name',
  'author',
  'attachments',
  'created_at',
  'modified_at',
];
/** Spec "Call" + decisions.md "Call fields add to the spec's". */
export const CALL_FIELDS = [
  'id',
  'contact_id',
  'text',
  'call_result',
  'call_time_int',
  'via',
  'phone_number',
  'recording_link',
  'author',
  'attachments',
  'created_at',
  'modified_at',
];
/** decisions.md "Meeting fields". */
export const MEETING_FIELDS = [
  'id',
  'contact_id',
  'text',
  'meeting_time_int',
  'place',
  'author',
  'attachments',
  'created_at',
  'modified_at',
];
/** decisions.md "Summary blocks (all five ...)". */
export const SUMMARY_BLOCKS = ['contacts_count', 'lead_sources', 'statuses', 'tags', 'team_stream'];
export const SUCCESS_KEYS = ['data', 'message', 'status', 'timestamp'];
export const ERROR_KEYS = ['error_message', 'error_name', 'errors', 'message', 'status'];
export const PAGING_KEYS = ['max_page', 'page', 'per_page', 'total_count'];
const LETTER_KEYS = ['1', ...'abcdefghijklmnopqrstuvwxyz'.split('')];

export const todayUtc = (): string => new Date().toISOString().slice(0, 10);
export const dayOffset = (days: number): string => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);
export const nowSeconds = (): number => Math.floor(Date.now() / 1000);
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
export const sortedKeys = (o: object): string[] => Object.keys(o).sort();
export const unique = (prefix: string): string => `${prefix}${randomBytes(4).toString('hex')}`;

export const caller = (services: ServicesHandle, who: CreatedAccount): Caller => calls(services).call(who);

function describeRes(res: ApiResponse<Json>): string {
  return `HTTP ${res.status}: ${res.text.slice(0, 600)}`;
}

/** Success envelope: exactly status 0, message, timestamp (Unix seconds), data (+ named summary blocks). */
export function expectSuccess(res: ApiResponse<Json>, http = 200, extraTopLevel: string[] = []): Json {
  if (res.status !== http) throw new Error(`expected HTTP ${http}, got ${describeRes(res)}`);
  expect(sortedKeys(res.body)).toEqual([...SUCCESS_KEYS, ...extraTopLevel].sort());
  expect(res.body.status).toBe(0);
  expect(typeof res.body.message).toBe('string');
  expect(Number.isInteger(res.body.timestamp)).toBe(true);
  expect(Math.abs(res.body.timestamp - nowSeconds())).toBeLessThan(120);
  return res.body.data;
}

/** Error envelope: exactly status, message, error_name, error_message, errors; body status = HTTP status. */
export function expectError(res: ApiResponse<Json>, http: number, errorName: string): Json {
  if (res.status !== http) throw new Error(`expected HTTP ${http} ${errorName}, got ${describeRes(res)}`);
  expect(sortedKeys(res.body)).toEqual(ERROR_KEYS);
  expect(res.body.error_name).toBe(errorName);
  expect(res.body.status).toBe(http);
  expect(typeof res.body.message).toBe('string');
  expect(typeof res.body.error_message).toBe('string');
  expect(res.body.errors !== null && typeof res.body.errors === 'object' && !Array.isArray(res.body.errors)).toBe(true);
  return res.body.errors;
}

/** 400 invalid_request_data with `errors` keyed by each named field (a key equal to it or starting with `field.`/`field[`). */
export function expectInvalid(res: ApiResponse<Json>, ...fields: string[]): Json {
  const errors = expectError(res, 400, 'invalid_request_data');
  const keys = Object.keys(errors);
  for (const field of fields) {
    const hit = keys.some((k) => k === field || k.startsWith(`${field}.`) || k.startsWith(`${field}[`));
    if (!hit) throw new Error(`errors should name "${field}", got ${JSON.stringify(errors)}`);
  }
  return errors;
}

export const expectNotFound = (res: ApiResponse<Json>): Json => expectError(res, 404, 'resource_not_found');

export function expectPaging(data: Json, expected: { total_count?: number; page?: number; per_page?: number } = {}): void {
  for (const k of PAGING_KEYS) expect(Number.isInteger(data[k])).toBe(true);
  expect(data.max_page).toBe(Math.ceil(data.total_count / data.per_page));
  expect(data).toMatchObject(expected);
}

const isStringOrNull = (v: unknown): boolean => v === null || typeof v === 'string';
const isIntegerNumber = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v);

/** Every spec Contact field present with the spec's type (unset optional strings may be null). */
export function expectContact(c: Json): void {
  for (const f of CONTACT_FIELDS) if (!(f in c)) throw new Error(`contact lacks "${f}": ${JSON.stringify(c)}`);
  expect(c.id).toMatch(HEX24);
  for (const f of [
    'title',
    'first_name',
    'last_name',
    'job_title',
    'photo_url',
    'company_id',
    'company_name',
    'status',
    'status_id',
    'lead_source_id',
    'lead_source',
    'background',
    'owner_id',
  ]) {
    if (!isStringOrNull(c[f])) throw new Error(`contact.${f} should be a string, got ${JSON.stringify(c[f])}`);
  }
  expect(typeof c.status).toBe('string');
  expect(c.status_id).toMatch(HEX24);
  expect(c.owner_id).toMatch(HEX24);
  expect(typeof c.starred).toBe('boolean');
  for (const f of ['urls', 'phones', 'emails']) {
    expect(Array.isArray(c[f])).toBe(true);
    for (const e of c[f]) expect(sortedKeys(e)).toEqual(expect.arrayContaining(['type', 'value']));
  }
  expect(Array.isArray(c.address_list)).toBe(true);
  for (const a of c.address_list)
    expect(sortedKeys(a)).toEqual(expect.arrayContaining(['address', 'city', 'state', 'zip_code', 'country_code', 'type']));
  expect(Array.isArray(c.tags)).toBe(true);
  for (const t of c.tags) expect(typeof t).toBe('string');
  expect(Array.isArray(c.custom_fields)).toBe(true);
  expect(typeof c.letter).toBe('string');
  expect(typeof c.pending_deal).toBe('boolean');
  expect(typeof c.total_pendings).toBe('number');
  expect(isIntegerNumber(c.total_deals_count)).toBe(true);
  expect(isIntegerNumber(c.company_size)).toBe(true);
  expect(Array.isArray(c.sales_closed_for)).toBe(true);
  for (const u of c.sales_closed_for) expect(typeof u).toBe('string');
  expect(Array.isArray(c.closed_sales)).toBe(true);
  for (const s of c.closed_sales) {
    expect(sortedKeys(s)).toEqual(expect.arrayContaining(['closed_at', 'comment', 'user_id']));
    expect(isIntegerNumber(s.closed_at)).toBe(true);
  }
  if (c.google_contacts_data !== null)
    expect(sortedKeys(c.google_contacts_data)).toEqual(expect.arrayContaining(['account_email', 'id', 'saved_at']));
  expect(c.created_at).toMatch(ISO_UTC);
  expect(c.modified_at).toMatch(ISO_UTC);
}

/** Spec "Company" fields with their types. */
export function expectCompany(co: Json, { withContacts = true } = {}): void {
  const fields = withContacts ? COMPANY_FIELDS : COMPANY_FIELDS.filter((f) => f !== 'contacts');
  for (const f of fields) if (!(f in co)) throw new Error(`company lacks "${f}": ${JSON.stringify(co).slice(0, 800)}`);
  expect(co.id).toMatch(HEX24);
  expect(typeof co.name).toBe('string');
  expect(sortedKeys(co.address)).toEqual(expect.arrayContaining(['address', 'city', 'state', 'zip_code', 'country_code']));
  expect(Array.isArray(co.company_fields)).toBe(true);
  expect(typeof co.syncing_status).toBe('boolean');
  expect(typeof co.syncing_tags).toBe('boolean');
  expect(Array.isArray(co.synced_tags)).toBe(true);
  for (const f of ['contacts_count', 'won_deals_count', 'pending_deals_count']) expect(isIntegerNumber(co[f])).toBe(true);
  for (const f of ['total_won_amount', 'total_pending_amount']) expect(typeof co[f]).toBe('number');
  if (withContacts) {
    expect(Array.isArray(co.contacts)).toBe(true);
    for (const w of co.contacts) expectWrapper(w, { nestedCompany: true });
  }
  expect(Array.isArray(co.pending_deals)).toBe(true);
  for (const d of co.pending_deals) expect(d).toHaveProperty('deal');
  expect(co.created_at).toMatch(ISO_UTC);
  expect(co.modified_at).toMatch(ISO_UTC);
}

/** decisions.md: the wrapper `contact`, `next_actions`, `next_action` (null when none), `queued_actions`, `next_action_conflicts`, `company` (null when none). */
export function expectWrapper(w: Json, { extra = [] as string[], nestedCompany = false } = {}): void {
  expect(sortedKeys(w)).toEqual([...WRAPPER_KEYS, ...extra].sort());
  expectContact(w.contact);
  expect(Array.isArray(w.next_actions)).toBe(true);
  expect(Array.isArray(w.queued_actions)).toBe(true);
  expect(Array.isArray(w.next_action_conflicts)).toBe(true);
  expect(w.next_action === null || typeof w.next_action === 'object').toBe(true);
  if (w.next_action !== null) expect(w.next_action.id).toMatch(HEX24);
  if (w.company === null) {
    expect(w.contact.company_id === null || w.contact.company_id === '').toBe(true);
  } else {
    // A company nested in a contact wrapper: its `contacts` (wrappers again) would recurse, not asserted.
    if (!nestedCompany) expectCompany(w.company, { withContacts: false });
    expect(w.company.id).toBe(w.contact.company_id);
  }
}

function expectCounts(counts: Json): void {
  for (const k of LETTER_KEYS) expect(isIntegerNumber(counts[k])).toBe(true);
  expect(isIntegerNumber(counts.total_count)).toBe(true);
}

/** Spec "Summary blocks": the five top-level siblings of data with their shapes. */
export function expectSummaryBlocks(body: Json): void {
  for (const b of SUMMARY_BLOCKS) expect(body).toHaveProperty(b);
  expect(Array.isArray(body.lead_sources)).toBe(true);
  expect(Array.isArray(body.statuses)).toBe(true);
  expect(sortedKeys(body.tags)).toEqual(['system_tags', 'tags']);
  for (const list of [body.tags.tags, body.tags.system_tags]) {
    expect(Array.isArray(list)).toBe(true);
    for (const t of list) {
      expect(sortedKeys(t)).toEqual(expect.arrayContaining(['action_stream_count', 'counts', 'name', 'total_count']));
      expect(typeof t.name).toBe('string');
    }
  }
  expect(sortedKeys(body.contacts_count)).toEqual(['all', 'users']);
  expect(Array.isArray(body.contacts_count.all)).toBe(true);
  for (const e of body.contacts_count.all) expectCounts(e);
  expect(Array.isArray(body.contacts_count.users)).toBe(true);
  for (const e of body.contacts_count.users) {
    expectCounts(e);
    expect(typeof e.user_id).toBe('string');
  }
  expect(body.team_stream).toHaveProperty('all');
  expect(Array.isArray(body.team_stream.users)).toBe(true);
  for (const e of body.team_stream.users) expect(sortedKeys(e)).toEqual(expect.arrayContaining(['counts', 'user_id']));
}

/** A success answer carrying the summary blocks (decisions.md "Paging and lists"). */
export function expectSuccessWithSummary(res: ApiResponse<Json>, http = 200): Json {
  const data = expectSuccess(res, http, SUMMARY_BLOCKS);
  expectSummaryBlocks(res.body);
  return data;
}

/** "empty `data`": {} or []. */
export function expectEmptyData(data: Json): void {
  expect(data !== null && typeof data === 'object').toBe(true);
  expect(Object.keys(data)).toEqual([]);
}

/** POST /operator/accounts/{id}/users with explicit permissions (decisions.md "Operator interface"). */
export async function createUserWith(
  services: ServicesHandle,
  account: CreatedAccount,
  body: { role: 'admin' | 'user'; permissions?: string[] },
): Promise<CreatedAccount> {
  const res = await fetch(`${services.operatorUrl}/operator/accounts/${account.account.id}/users`, {
    method: 'POST',
    headers: { authorization: `Bearer ${services.operatorToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      first_name: 'Perm',
      last_name: 'User',
      email: `${unique('perm-')}@example.test`,
      password: 'correct horse battery staple',
      ...body,
    }),
  });
  const text = await res.text();
  if (res.status !== 201) throw new Error(`POST /operator/accounts/{id}/users answered ${res.status}: ${text}`);
  return { account: account.account, user: (JSON.parse(text) as { user: CreatedAccount['user'] }).user };
}

/** Creates a contact (201 expected) and returns the wrapper. */
export async function newContact(call: Caller, body: Record<string, unknown>): Promise<Json> {
  const res = await call('POST', '/contacts', body);
  if (res.status !== 201) throw new Error(`POST /contacts ${describeRes(res)}`);
  return res.body.data;
}

/** Creates a deal on a contact (201 expected) and returns data.deal. */
export async function newDeal(call: Caller, contactId: string, body: Record<string, unknown>): Promise<Json> {
  const res = await call('POST', `/contacts/${contactId}/deals`, body);
  if (res.status !== 201) throw new Error(`POST /contacts/${contactId}/deals ${describeRes(res)}`);
  return res.body.data.deal;
}

export async function getContact(call: Caller, id: string): Promise<Json> {
  const res = await call('GET', `/contacts/${id}`);
  if (res.status !== 200) throw new Error(`GET /contacts/${id} ${describeRes(res)}`);
  return res.body.data;
}

/** The built-in lead status of the caller's account (GET /statuses, the one named Lead). */
export async function statuses(call: Caller): Promise<Json[]> {
  const res = await call('GET', '/statuses?per_page=100');
  if (res.status !== 200) throw new Error(`GET /statuses ${describeRes(res)}`);
  return res.body.data.statuses.map((s: Json) => s.status);
}
