import { isId, newId } from '@crm/common';
import { ApiError, type ContactAddressDto, type CustomFieldValueInput, type TypedValueDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { loadCompanyDtos } from '../companies/company-readers';
import { assertFieldValue } from '../fields/field-values';
import type { FieldDefinitionRow } from './contact-readers';
import { contactEventData } from './contact-readers';
import { letterOf, searchTextOf, sortNameOf } from './contact-columns';
import { writeEvent } from '../outbox/outbox';

/** The stored, writable state of a contact (what PUT replaces and PATCH merges into). */
export interface ContactState {
  title: string;
  first_name: string;
  last_name: string;
  job_title: string;
  starred: boolean;
  photo_url: string;
  company_id: string | null;
  company_name: string;
  urls: TypedValueDto[];
  phones: TypedValueDto[];
  emails: TypedValueDto[];
  address_list: ContactAddressDto[];
  status_id: string;
  lead_source_id: string | null;
  background: string;
  owner_id: string;
  custom_fields: Record<string, unknown>;
  /** Tag ids. */
  tag_ids: string[];
}

/** Columns of crm.contacts that {@link ContactState} maps to (tags live in crm.contact_tags). */
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
const JSON_COLUMNS = new Set(['urls', 'phones', 'emails', 'address_list', 'custom_fields']);

export const notFound = (what = 'Contact') => ApiError.notFound(`${what} not found`);

/** Lower-case id, or 404 when it is not a well-formed id (a path id never names a record then). */
export function pathId(value: string, what = 'Contact'): string {
  const id = value.trim().toLowerCase();
  if (!isId(id)) throw notFound(what);
  return id;
}

/** The contact's writable state, locked for update; 404 unless it is a non-deleted contact of the account. */
export async function lockContact(m: EntityManager, accountId: string, contactId: string): Promise<ContactState & { id: string }> {
  const id = pathId(contactId);
  const [row] = await m.query(
    `SELECT id, ${STATE_COLUMNS.join(', ')} FROM crm.contacts WHERE id = $1 AND account_id = $2 AND deleted_at IS NULL FOR UPDATE`,
    [id, accountId],
  );
  if (!row) throw notFound();
  const tags: Array<{ tag_id: string }> = await m.query('SELECT tag_id FROM crm.contact_tags WHERE contact_id = $1 ORDER BY tag_id', [id]);
  return { ...row, tag_ids: tags.map((t) => t.tag_id) };
}

export async function leadStatusId(m: EntityManager, accountId: string): Promise<string> {
  const [row] = await m.query('SELECT id FROM crm.statuses WHERE account_id = $1 AND is_lead', [accountId]);
  if (!row) throw new Error(`account ${accountId} has no lead status`);
  return row.id;
}

/** 404 unless the id names a record of the account in `table`. */
export async function assertInAccount(
  m: EntityManager,
  table: 'statuses' | 'lead_sources' | 'users' | 'companies',
  accountId: string,
  id: string,
  what: string,
): Promise<void> {
  const [row] = await m.query(`SELECT 1 FROM crm.${table} WHERE id = $1 AND account_id = $2`, [id, accountId]);
  if (!row) throw ApiError.notFound(`${what} not found`);
}

/**
 * Tag ids for names: an existing tag of that name in any letter case is used as spelled there; a
 * new name creates the tag (concurrent creators of one name end with the same tag).
 */
export async function resolveTags(m: EntityManager, accountId: string, names: readonly string[]): Promise<string[]> {
  const wanted = [...new Map(names.map((n) => [n.toLowerCase(), n])).values()];
  if (wanted.length === 0) return [];
  for (const name of wanted) {
    await m.query('INSERT INTO crm.tags (id, account_id, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING', [newId(), accountId, name]);
  }
  const rows: Array<{ id: string }> = await m.query(
    'SELECT id FROM crm.tags WHERE account_id = $1 AND lower(name) = ANY($2::text[]) ORDER BY id',
    [accountId, wanted.map((n) => n.toLowerCase())],
  );
  return rows.map((r) => r.id);
}

/**
 * The company of a contact by name: the account's company of that name in any letter case, or a
 * new one. Returns its id, canonical name and whether it was created (the caller writes its
 * `created` event once the contact is linked, so the event shows the company with its contact).
 */
export async function companyByName(
  m: EntityManager,
  accountId: string,
  name: string,
): Promise<{ id: string; name: string; created: boolean }> {
  const inserted: Array<{ id: string }> = await m.query(
    'WITH ins AS (INSERT INTO crm.companies (id, account_id, name) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING id) SELECT id FROM ins',
    [newId(), accountId, name],
  );
  const [row] = await m.query('SELECT id, name FROM crm.companies WHERE account_id = $1 AND lower(name) = lower($2)', [accountId, name]);
  return { id: row.id, name: row.name, created: inserted.length > 0 };
}

/** Writes a company `created` event with the company as GET /companies/{id} shows it. */
export async function writeCompanyCreatedEvent(m: EntityManager, accountId: string, companyId: string): Promise<void> {
  const company = (await loadCompanyDtos(m, accountId, [companyId], { withContacts: true, viewerId: null })).get(companyId);
  await writeEvent(m, { account_id: accountId, type: 'company', reason: 'created', record_id: companyId, data: { company } });
}

/** Checks custom field values against their definitions: unknown ids 404, bad values 400 keyed `custom_fields.<i>.value`. */
export function customFieldValues(
  inputs: readonly CustomFieldValueInput[],
  definitions: FieldDefinitionRow[],
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

/** Column values of a state, derived columns included, in STATE_COLUMNS order then sort_name, letter, search_text. */
export function rowValues(state: ContactState): unknown[] {
  const sortName = sortNameOf(state);
  return [
    ...STATE_COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(state[c]) : state[c])),
    sortName,
    letterOf(sortName),
    searchTextOf(state),
  ];
}

export async function insertContact(m: EntityManager, accountId: string, id: string, state: ContactState): Promise<void> {
  const columns = [...STATE_COLUMNS, 'sort_name', 'letter', 'search_text'];
  const values = rowValues(state);
  await m.query(
    `INSERT INTO crm.contacts (id, account_id, ${columns.join(', ')}) VALUES ($1, $2, ${columns.map((_, i) => `$${i + 3}`).join(', ')})`,
    [id, accountId, ...values],
  );
  await setTags(m, accountId, id, state.tag_ids);
}

export async function updateContact(m: EntityManager, id: string, accountId: string, state: ContactState): Promise<void> {
  const columns = [...STATE_COLUMNS, 'sort_name', 'letter', 'search_text'];
  const values = rowValues(state);
  await m.query(
    `UPDATE crm.contacts SET ${columns.map((c, i) => `${c} = $${i + 3}`).join(', ')}, modified_at = now() WHERE id = $1 AND account_id = $2`,
    [id, accountId, ...values],
  );
  await setTags(m, accountId, id, state.tag_ids);
}

async function setTags(m: EntityManager, accountId: string, contactId: string, tagIds: string[]): Promise<void> {
  await m.query('DELETE FROM crm.contact_tags WHERE contact_id = $1 AND NOT (tag_id = ANY($2::varchar[]))', [contactId, tagIds]);
  if (tagIds.length > 0) {
    await m.query(
      'INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) SELECT $1, t, $2 FROM unnest($3::varchar[]) AS t ON CONFLICT DO NOTHING',
      [contactId, accountId, tagIds],
    );
  }
}

/** Writes a contact `created`/`updated` event with the full payload (spec Events rule 2). */
export async function writeContactEvent(
  m: EntityManager,
  accountId: string,
  contactId: string,
  reason: 'created' | 'updated',
): Promise<void> {
  const data = await contactEventData(m, accountId, contactId);
  await writeEvent(m, {
    account_id: accountId,
    type: 'contact',
    reason,
    record_id: contactId,
    contact_status_id: data.contact.status_id,
    data: { ...data },
  });
}

/** Writes a contact `deleted` event: `data` is flat `{ id }` (spec Events rule 3). */
export async function writeContactDeletedEvent(m: EntityManager, accountId: string, contactId: string, statusId: string): Promise<void> {
  await writeEvent(m, {
    account_id: accountId,
    type: 'contact',
    reason: 'deleted',
    record_id: contactId,
    contact_status_id: statusId,
    data: { id: contactId },
  });
}

/** Same state (tags compared as sets)? An unchanged write keeps modified_at and emits nothing. */
export function sameState(a: ContactState, b: ContactState): boolean {
  for (const c of STATE_COLUMNS) {
    if (JSON.stringify(a[c]) !== JSON.stringify(b[c])) return false;
  }
  return JSON.stringify([...a.tag_ids].sort()) === JSON.stringify([...b.tag_ids].sort());
}
