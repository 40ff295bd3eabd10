import type {
  ActionDto,
  ClosedSaleDto,
  CompanyDto,
  ContactActionsDto,
  ContactDto,
  ContactEventSiblings,
  ContactWrapperDto,
  CustomFieldValueDto,
  FieldRefDto,
  FieldType,
} from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { loadCompanyDtos } from '../companies/company-readers';
import { contactActionsOf } from '../records/record-readers';
import { preparedQuery } from './prepared-query';

/**
 * Reading contacts as the API shows them, in batches: a list of 100 costs the same handful of
 * queries as one contact (contacts with their computed fields, custom field definitions, open
 * actions, companies). Plain functions over an EntityManager, so other modules (deals'
 * `fields=contacts(all)`, events) and transactions can use them.
 */

interface ContactRow {
  id: string;
  owner_id: string;
  title: string;
  first_name: string;
  last_name: string;
  job_title: string;
  starred: boolean;
  photo_url: string;
  company_id: string | null;
  company_name: string;
  urls: ContactDto['urls'];
  phones: ContactDto['phones'];
  emails: ContactDto['emails'];
  address_list: ContactDto['address_list'];
  status_id: string;
  status: string;
  lead_source_id: string | null;
  lead_source: string | null;
  background: string;
  custom_fields: Record<string, unknown>;
  closed_sales: ClosedSaleDto[];
  google_contacts_data: ContactDto['google_contacts_data'];
  letter: string;
  tags: string[];
  total_deals_count: number;
  pending_count: number;
  total_pendings: number;
  company_size: number;
  created_at: Date;
  modified_at: Date;
}

export interface FieldDefinitionRow {
  id: string;
  name: string;
  type: FieldType;
  position: number;
  choices: string[] | null;
}

const CONTACT_SELECT = `
  SELECT c.id, c.owner_id, c.title, c.first_name, c.last_name, c.job_title, c.starred, c.photo_url, c.company_id, c.company_name,
         c.urls, c.phones, c.emails, c.address_list, c.status_id, s.status, c.lead_source_id, ls.text AS lead_source, c.background,
         c.custom_fields, c.closed_sales, c.google_contacts_data, c.letter, c.created_at, c.modified_at,
         coalesce((SELECT array_agg(t.name ORDER BY lower(t.name)) FROM crm.contact_tags ct JOIN crm.tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id), '{}') AS tags,
         dl.total_deals_count, dl.pending_count, dl.total_pendings,
         CASE WHEN c.company_id IS NULL THEN 0
              ELSE (SELECT count(*)::int FROM crm.contacts c2 WHERE c2.company_id = c.company_id AND c2.deleted_at IS NULL) END AS company_size
  FROM crm.contacts c
  JOIN crm.statuses s ON s.id = c.status_id
  LEFT JOIN crm.lead_sources ls ON ls.id = c.lead_source_id
  LEFT JOIN LATERAL (
    SELECT count(*)::int AS total_deals_count,
           count(*) FILTER (WHERE d.status = 'pending')::int AS pending_count,
           coalesce(sum(d.amount * d.months) FILTER (WHERE d.status = 'pending'), 0)::float8 AS total_pendings
    FROM crm.deals d WHERE d.contact_id = c.id
  ) dl ON true`;

const CONTACTS_BY_ID_ANY = `${CONTACT_SELECT} WHERE c.account_id = $1 AND c.id = ANY($2::varchar[])`;
const CONTACTS_BY_ID = `${CONTACTS_BY_ID_ANY} AND c.deleted_at IS NULL`;

/** A field's definition as shown beside a value: `choices` only for the two choice types. */
export function toFieldRef(row: FieldDefinitionRow): FieldRefDto {
  const ref: FieldRefDto = { id: row.id, name: row.name, type: row.type, position: row.position };
  if (row.choices !== null) ref.choices = row.choices;
  return ref;
}

/** Definitions of one field set of the account, in display order. */
export function fieldDefinitions(
  m: EntityManager,
  accountId: string,
  set: 'custom_fields' | 'company_fields',
): Promise<FieldDefinitionRow[]> {
  return m.query(
    'SELECT id, name, type, position, choices FROM crm.fields WHERE account_id = $1 AND field_set = $2 ORDER BY position, created_at, id',
    [accountId, set],
  );
}

/** Stored values (field id -> value) as the API's `[{ <key>: field, value }]`, in field order; values of deleted fields vanish. */
export function fieldValues<K extends string>(
  stored: Record<string, unknown>,
  definitions: FieldDefinitionRow[],
  key: K,
): Array<Record<K, FieldRefDto> & { value: unknown }> {
  const out: Array<Record<K, FieldRefDto> & { value: unknown }> = [];
  for (const def of definitions) {
    const value = stored[def.id];
    if (value === undefined || value === null) continue;
    out.push({ [key]: toFieldRef(def), value } as Record<K, FieldRefDto> & { value: unknown });
  }
  return out;
}

function toContactDto(row: ContactRow, definitions: FieldDefinitionRow[]): ContactDto {
  const closed = Array.isArray(row.closed_sales) ? row.closed_sales : [];
  return {
    id: row.id,
    title: row.title,
    first_name: row.first_name,
    last_name: row.last_name,
    job_title: row.job_title,
    starred: row.starred,
    photo_url: row.photo_url,
    company_id: row.company_id,
    company_name: row.company_name,
    urls: row.urls,
    phones: row.phones,
    emails: row.emails,
    address_list: row.address_list,
    status: row.status,
    status_id: row.status_id,
    tags: row.tags,
    lead_source_id: row.lead_source_id,
    lead_source: row.lead_source,
    background: row.background,
    owner_id: row.owner_id,
    custom_fields: fieldValues(row.custom_fields ?? {}, definitions, 'custom_field') as CustomFieldValueDto[],
    letter: row.letter,
    pending_deal: row.pending_count > 0,
    total_pendings: Number(row.total_pendings),
    total_deals_count: row.total_deals_count,
    company_size: row.company_size,
    sales_closed_for: closed.map((sale) => sale.user_id),
    closed_sales: closed,
    google_contacts_data: row.google_contacts_data ?? null,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}

/**
 * Full Contact objects (computed fields included) of the given ids in the account, keyed by id;
 * ids that name no (non-deleted, unless `includeDeleted`) contact of the account are absent.
 */
export async function loadContactDtos(
  m: EntityManager,
  accountId: string,
  ids: string[],
  options: { includeDeleted?: boolean } = {},
): Promise<Map<string, ContactDto>> {
  const out = new Map<string, ContactDto>();
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return out;
  const rows = await preparedQuery<ContactRow>(m, options.includeDeleted ? CONTACTS_BY_ID_ANY : CONTACTS_BY_ID, [accountId, wanted]);
  const needsFields = rows.some((row) => row.custom_fields && Object.keys(row.custom_fields).length > 0);
  const definitions = needsFields ? await fieldDefinitions(m, accountId, 'custom_fields') : [];
  for (const row of rows) out.set(row.id, toContactDto(row, definitions));
  return out;
}

/** Next actions, most urgent first: dated (overdue, today, future) by date and exact_time, then waiting. */
export function compareUrgency(a: ActionDto, b: ActionDto): number {
  const waitA = a.status === 'waiting' ? 1 : 0;
  const waitB = b.status === 'waiting' ? 1 : 0;
  if (waitA !== waitB) return waitA - waitB;
  const dateA = a.date ?? '9999-12-31';
  const dateB = b.date ?? '9999-12-31';
  if (dateA !== dateB) return dateA < dateB ? -1 : 1;
  const timeA = a.exact_time ?? Number.MAX_SAFE_INTEGER;
  const timeB = b.exact_time ?? Number.MAX_SAFE_INTEGER;
  if (timeA !== timeB) return timeA - timeB;
  return a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : 1;
}

/**
 * Contact wrappers of the given ids, in the order of `ids` (missing ones skipped). `viewerId` is the
 * user whose next action and queued actions the wrapper shows (the caller); null: each contact's owner.
 */
export async function loadContactWrappers(
  m: EntityManager,
  accountId: string,
  ids: string[],
  viewerId: string | null,
): Promise<ContactWrapperDto[]> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return [];
  // The contacts and their open actions (the records module's reader, as the viewer sees them)
  // in parallel; then the companies, only when some contact has one.
  const [contacts, viewerActions] = await Promise.all([
    loadContactDtos(m, accountId, wanted),
    viewerId ? contactActionsOf(m, accountId, viewerId, wanted) : Promise.resolve(null),
  ]);
  const found = wanted.map((id) => contacts.get(id)).filter((c): c is ContactDto => c !== undefined);
  const companyIds = [...new Set(found.map((c) => c.company_id).filter((id): id is string => id !== null))];
  const companyMap =
    companyIds.length > 0
      ? await loadCompanyDtos(m, accountId, companyIds, { withContacts: false, viewerId })
      : new Map<string, CompanyDto>();
  let byOwner: Map<string, Map<string, ContactActionsDto>> | null = null;
  if (!viewerId) {
    const owners = [...new Set(found.map((c) => c.owner_id))];
    const maps = await Promise.all(
      owners.map((owner) =>
        contactActionsOf(
          m,
          accountId,
          owner,
          found.filter((c) => c.owner_id === owner).map((c) => c.id),
        ),
      ),
    );
    byOwner = new Map(owners.map((owner, i) => [owner, maps[i]]));
  }
  const none: ContactActionsDto = { next_actions: [], next_action: null, queued_actions: [], next_action_conflicts: [] };
  return found.map((contact) => ({
    contact,
    ...((viewerActions ?? byOwner?.get(contact.owner_id))?.get(contact.id) ?? none),
    company: contact.company_id ? (companyMap.get(contact.company_id) ?? null) : null,
  }));
}

/**
 * The siblings of `contact` in a contact webhook event: every assignee's next actions, the
 * contact owner's next action and queued actions, and the most urgent next action over every
 * assignee (overdue, today, future by date and exact_time, then waiting; null when none).
 */
export async function contactEventSiblings(m: EntityManager, accountId: string, contactId: string): Promise<ContactEventSiblings> {
  const [owner] = await m.query('SELECT owner_id FROM crm.contacts WHERE id = $1 AND account_id = $2', [contactId, accountId]);
  const parts = (await contactActionsOf(m, accountId, owner?.owner_id ?? '', [contactId])).get(contactId);
  const next = parts?.next_actions ?? [];
  return {
    next_actions: next,
    next_action: parts?.next_action ?? null,
    queued_actions: parts?.queued_actions ?? [],
    most_urgent_action: [...next].sort(compareUrgency)[0] ?? null,
  };
}

/** The `data` of a contact created/updated event: `{ contact, next_actions, next_action, queued_actions, most_urgent_action }`. */
export async function contactEventData(
  m: EntityManager,
  accountId: string,
  contactId: string,
): Promise<{ contact: ContactDto } & ContactEventSiblings> {
  const contact = (await loadContactDtos(m, accountId, [contactId], { includeDeleted: true })).get(contactId);
  if (!contact) throw new Error(`contactEventData: contact ${contactId} not found`);
  return { contact, ...(await contactEventSiblings(m, accountId, contactId)) };
}
