import type { CompanyDto, ContactActionsDto, ContactDto, ContactEventSiblings, ContactWrapperDto } from '@crm/contracts';
import { sharedJson, stringifyWithFragments } from '@crm/messaging';
import type { Db } from '../common/sql';
import { QUEUED_ACTIONS_CAP, WRAPPER_COMPANY_CONTACTS_CAP, WRAPPER_COMPANY_CONTACTS_MAX_BYTES } from './caps';
import { companySummariesFrom, loadCompanySummaries } from './company-summary.read-model';
import { currentDocumentRows } from './contact-documents.repository';
import { contactDocument } from './contact.document';
import { contactWrapperParts, type ContactPageSql } from './contact-wrapper.repository';
import { companyMatesOf } from './company.repository';
import { contactOwnerId, contactRows } from './contact.repository';
import { compareUrgency, toContactDto } from './contact.view';
import { fieldDefinitions } from './fields.repository';
import { contactActionsFrom, contactActionsOf } from './records.read-model';

/**
 * Reading contacts as the API shows them, in batches: a list of 100 costs the same handful of
 * queries as one contact (contacts with their stored counters, custom field definitions, open
 * actions, companies). Plain functions over a Db, so other modules (deals'
 * `fields=contacts(all)`, events) and transactions use them.
 */

/**
 * Full Contact objects (computed fields included) of the given ids in the account, keyed by id;
 * ids that name no (non-deleted, unless `includeDeleted`) contact of the account are absent.
 */
export async function loadContactDtos(
  db: Db,
  accountId: string,
  ids: string[],
  options: { includeDeleted?: boolean } = {},
): Promise<Map<string, ContactDto>> {
  const out = new Map<string, ContactDto>();
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return out;
  const rows = await contactRows(db, accountId, wanted, options.includeDeleted === true);
  const needsFields = rows.some((row) => row.custom_fields && Object.keys(row.custom_fields).length > 0);
  const definitions = needsFields ? await fieldDefinitions(db, accountId, 'custom_fields') : [];
  for (const row of rows) out.set(row.id, toContactDto(row, definitions));
  return out;
}

/** Options of loadContactWrappers for list pages: their wrappers' companies carry no `contacts`. */
export const LIST_ENTRIES = { companyContacts: false } as const;

/**
 * Contact wrappers of the given ids, in the order of `ids` (missing ones skipped). `viewerId` is the
 * user whose next action and queued actions the wrapper shows (the caller); null: each contact's owner.
 * A single-contact reply's `company` carries `contacts`: the company's first
 * WRAPPER_COMPANY_CONTACTS_CAP contacts by name, as OnePageCRM's Company documents them
 * (`{ contact, next_actions, next_action, queued_actions, next_action_conflicts }`, without their
 * own `company`). List pages (`companyContacts: false`) leave them out: a page of 100 wrappers would
 * carry 300 more, nearly NATS's 1 MiB (decisions.md "A contact wrapper's company carries contacts").
 */
export function loadContactWrappers(
  db: Db,
  accountId: string,
  ids: string[],
  viewerId: string | null,
  options: { companyContacts: boolean } = { companyContacts: true },
): Promise<ContactWrapperDto[]> {
  return contactWrappers(db, accountId, ids, viewerId, new Map(), options.companyContacts);
}

/**
 * {@link loadContactWrappers}, given companies already read (without `contacts`), which are not
 * read again: a company view passes itself for its own contacts' wrappers (`companyContacts`
 * false: the company around them holds its contacts). With a viewer, ONE statement reads every
 * part (contactWrapperParts); each contact as its owner sees it (no viewer: events) takes two
 * rounds of queries.
 */
export async function contactWrappers(
  db: Db,
  accountId: string,
  ids: string[],
  viewerId: string | null,
  known: ReadonlyMap<string, CompanyDto>,
  companyContacts: boolean,
): Promise<ContactWrapperDto[]> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return [];
  const parts = viewerId
    ? await viewerParts(db, accountId, { ids: wanted }, viewerId, known, companyContacts)
    : await ownerParts(db, accountId, wanted, known, companyContacts);
  return assembleWrappers(wanted, parts, known, companyContacts);
}

/**
 * One page of a contact list as `viewerId` sees it, with the list's total, in ONE statement
 * (contactWrapperParts with `page`): the page's ids, its wrappers (their companies without
 * `contacts`, as LIST_ENTRIES) and the total (plus the pending deals of companies that have some).
 */
export async function contactWrapperPage(
  db: Db,
  accountId: string,
  page: ContactPageSql,
  viewerId: string,
): Promise<{ ids: string[]; total: number; wrappers: ContactWrapperDto[] }> {
  const parts = await viewerParts(db, accountId, { page }, viewerId, new Map(), LIST_ENTRIES.companyContacts);
  const ids = parts.ids ?? [];
  return { ids, total: parts.total ?? 0, wrappers: assembleWrappers(ids, parts, new Map(), LIST_ENTRIES.companyContacts) };
}

/** The wrappers of `wanted` (lower-case ids, in that order; missing ones skipped) from their parts. */
function assembleWrappers(
  wanted: readonly string[],
  parts: WrapperParts,
  known: ReadonlyMap<string, CompanyDto>,
  companyContacts: boolean,
): ContactWrapperDto[] {
  const { contacts, mates, actionsOf } = parts;
  const found = wanted.map((id) => contacts.get(id)).filter((c): c is ContactDto => c !== undefined);
  const companyMap = new Map([...known, ...parts.companies]);
  const none: ContactActionsDto = { next_actions: [], next_action: null, queued_actions: [], next_action_conflicts: [] };
  if (companyContacts) {
    // One company object per company, shared by its wrappers, with its first contacts.
    for (const [id, company] of parts.companies) {
      const entries = mates.filter((m) => m.company_id === id).map((m) => contacts.get(m.id));
      const inner = withinBytes(
        entries.filter((c): c is ContactDto => c !== undefined).map((contact) => ({ contact, ...(actionsOf(contact) ?? none) })),
        WRAPPER_COMPANY_CONTACTS_MAX_BYTES,
      );
      companyMap.set(id, { ...company, contacts: inner });
    }
  }
  // A company shown by several wrappers (a page's contacts of one company) is serialized once.
  const shared = new Map([...companyMap].map(([id, company]) => [id, sharedJson(company)]));
  return found.map((contact) => ({
    contact,
    ...(actionsOf(contact) ?? none),
    company: contact.company_id ? (shared.get(contact.company_id) ?? null) : null,
  }));
}

/** What wrappers are made of: the contacts (wanted and their companies' first ones), those first ones, the companies not known, each contact's actions. */
interface WrapperParts {
  contacts: Map<string, ContactDto>;
  mates: Array<{ id: string; company_id: string }>;
  companies: Map<string, CompanyDto>;
  actionsOf: (contact: ContactDto) => ContactActionsDto | undefined;
  /** A page's ids in its order and its list total (read with a page). */
  ids?: string[];
  total?: number;
}

/** Every part as `viewerId` sees it, in one statement (plus the pending deals of companies that have some). */
async function viewerParts(
  db: Db,
  accountId: string,
  which: { ids: string[] } | { page: ContactPageSql },
  viewerId: string,
  known: ReadonlyMap<string, CompanyDto>,
  companyContacts: boolean,
): Promise<WrapperParts> {
  const row = await contactWrapperParts(db, {
    ...which,
    accountId,
    viewerId,
    mateLimit: companyContacts ? WRAPPER_COMPANY_CONTACTS_CAP : 0,
    actionLimit: QUEUED_ACTIONS_CAP,
    knownCompanyIds: [...known.keys()],
  });
  // Contacts with a current document splice it into the reply; the others (rare: just written, or
  // in a sweep) are read as rows by a second statement and rendered. One deleted in between is
  // left out, as if it had been deleted before.
  const contacts = row.stale.length > 0 ? await loadContactDtos(db, accountId, row.stale) : new Map<string, ContactDto>();
  for (const d of currentDocumentRows(row.documents)) contacts.set(d.id, contactDocument(d));
  const actions = contactActionsFrom(viewerId, [...contacts.keys()], row.actions);
  const companies = await companySummariesFrom(db, accountId, row.companies, row.company_fields);
  // A contact's company_size is its company's contacts_count (the same counter slots, summed once).
  for (const contact of contacts.values())
    if (contact.company_id)
      contact.company_size = (companies.get(contact.company_id) ?? known.get(contact.company_id))?.contacts_count ?? 0;
  return { contacts, mates: row.mates, companies, actionsOf: (contact) => actions.get(contact.id), ids: row.ids, total: row.total };
}

/** Every part with each contact's actions as its owner sees them: two rounds of queries, each in parallel. */
async function ownerParts(
  db: Db,
  accountId: string,
  wanted: string[],
  known: ReadonlyMap<string, CompanyDto>,
  companyContacts: boolean,
): Promise<WrapperParts> {
  const [mates, contacts] = await Promise.all([
    companyContacts ? companyMatesOf(db, accountId, wanted, WRAPPER_COMPANY_CONTACTS_CAP) : Promise.resolve([]),
    loadContactDtos(db, accountId, wanted),
  ]);
  const found = wanted.map((id) => contacts.get(id)).filter((c): c is ContactDto => c !== undefined);
  const companyIds = [...new Set(found.map((c) => c.company_id).filter((id): id is string => !!id && !known.has(id)))];
  const others = [...new Set(mates.map((m) => m.id))].filter((id) => !contacts.has(id));
  const [companies, otherContacts] = await Promise.all([
    loadCompanySummaries(db, accountId, companyIds),
    loadContactDtos(db, accountId, others),
  ]);
  for (const [id, contact] of otherContacts) contacts.set(id, contact);
  return { contacts, mates, companies, actionsOf: await ownersActions(db, accountId, [...contacts.values()]) };
}

/** The first `entries` whose JSON (UTF-8 bytes) adds up to at most `maxBytes`. */
function withinBytes<T>(entries: T[], maxBytes: number): T[] {
  let used = 0;
  const kept: T[] = [];
  for (const entry of entries) {
    used += Buffer.byteLength(stringifyWithFragments(entry));
    if (used > maxBytes) break;
    kept.push(entry);
  }
  return kept;
}

/** The open actions of each contact as its owner sees them: one read per owner among `contacts`. */
async function ownersActions(
  db: Db,
  accountId: string,
  contacts: ContactDto[],
): Promise<(contact: ContactDto) => ContactActionsDto | undefined> {
  const owners = [...new Set(contacts.map((c) => c.owner_id))];
  const maps = await Promise.all(
    owners.map((owner) =>
      contactActionsOf(
        db,
        accountId,
        owner,
        contacts.filter((c) => c.owner_id === owner).map((c) => c.id),
      ),
    ),
  );
  const byOwner = new Map(owners.map((owner, i) => [owner, maps[i]]));
  return (contact) => byOwner.get(contact.owner_id)?.get(contact.id);
}

/**
 * The siblings of `contact` in a contact webhook event: every assignee's next actions, the
 * contact owner's next action and queued actions (capped as in a wrapper), and the most urgent next
 * action over every assignee (asap, overdue, today, future by date and exact_time, then waiting; null when none).
 */
export async function contactEventSiblings(db: Db, accountId: string, contactId: string): Promise<ContactEventSiblings> {
  const owner = await contactOwnerId(db, accountId, contactId);
  const parts = (await contactActionsOf(db, accountId, owner ?? '', [contactId])).get(contactId);
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
  db: Db,
  accountId: string,
  contactId: string,
): Promise<{ contact: ContactDto } & ContactEventSiblings> {
  const contact = (await loadContactDtos(db, accountId, [contactId], { includeDeleted: true })).get(contactId);
  if (!contact) throw new Error(`contactEventData: contact ${contactId} not found`);
  return { contact, ...(await contactEventSiblings(db, accountId, contactId)) };
}
