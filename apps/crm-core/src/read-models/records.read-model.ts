import type {
  ActionDto,
  AttachmentDto,
  CallDto,
  ContactActionsDto,
  ContactListResource,
  DealDto,
  DealEntryDto,
  MeetingDto,
  NoteDto,
} from '@crm/contracts';
import { isNext } from '../actions/action.rules';
import { toActionDto } from '../actions/action.view';
import { toCallDto } from '../calls/call.view';
import type { Db } from '../common/sql';
import type { DealFieldDefinition } from '../deals/deal.rules';
import { toDealDto } from '../deals/deal.view';
import { dealFieldDefinitions, type DealRow } from '../deals/deals.repository';
import { toMeetingDto } from '../meetings/meeting.view';
import { toNoteDto } from '../notes/note.view';
import { toAttachmentDtos } from '../records/attachment.view';
import { COMPANY_PENDING_DEALS_CAP, CONTACT_RECORDS_CAP, QUEUED_ACTIONS_CAP } from './caps';
import {
  openActionRows,
  pendingDealRowsOfCompanies,
  pinnedAttachmentRows,
  recordRowsOfContacts,
  type OpenActionRow,
} from './records.repository';

/**
 * The records that contact and company responses embed (GET /contacts?fields=deals(all),...,
 * a company's pending_deals, the wrapper's actions), one query per resource for a whole page (no
 * N+1) and bounded per contact or company (caps.ts). Entries nest the record under its entity
 * key, newest first; a contact without records is absent from the map.
 */

function group<T>(ids: readonly string[], items: Array<{ key: string; value: T }>): Map<string, T[]> {
  const out = new Map<string, T[]>();
  const wanted = new Set(ids);
  for (const { key, value } of items) {
    if (!wanted.has(key)) continue;
    const list = out.get(key);
    if (list) list.push(value);
    else out.set(key, [value]);
  }
  return out;
}

async function dealDtos(db: Db, accountId: string, rows: DealRow[]): Promise<DealDto[]> {
  const needsFields = rows.some((row) => row.deal_fields && Object.keys(row.deal_fields).length > 0);
  const definitions = needsFields ? await dealFieldDefinitions(db, accountId) : new Map<string, DealFieldDefinition>();
  return rows.map((row) => toDealDto(row, definitions));
}

/** Deals whose primary contact is one of `contactIds` (every status), newest date first, at most CONTACT_RECORDS_CAP each. */
export async function dealsOfContacts(
  db: Db,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, Array<{ deal: DealDto }>>> {
  if (contactIds.length === 0) return new Map();
  const deals = await dealDtos(db, accountId, await recordRowsOfContacts(db, 'deals', accountId, contactIds, CONTACT_RECORDS_CAP));
  return group(
    contactIds,
    deals.map((deal) => ({ key: deal.contact_id, value: { deal } })),
  );
}

/** Pending deals of each company (those whose primary contact, not deleted, belongs to it), at most COMPANY_PENDING_DEALS_CAP each. */
export async function pendingDealsOfCompanies(
  db: Db,
  accountId: string,
  companyIds: readonly string[],
): Promise<Map<string, Array<{ deal: DealDto }>>> {
  if (companyIds.length === 0) return new Map();
  const rows = await pendingDealRowsOfCompanies(db, accountId, companyIds, COMPANY_PENDING_DEALS_CAP);
  const deals = await dealDtos(db, accountId, rows);
  return group(
    companyIds,
    deals.map((deal, i) => ({ key: rows[i].k_company_id, value: { deal } })),
  );
}

/** Pending deals of each company (its non-deleted contacts' deals), as `{ deal }` entries. */
export function pendingDealsOfCompanyIds(db: Db, accountId: string, companyIds: string[]): Promise<Map<string, DealEntryDto[]>> {
  return pendingDealsOfCompanies(db, accountId, companyIds);
}

/**
 * Rows of the contacts as `{ <key>: dto }` entries per contact, in the rows' order; `toDto` gets
 * the row's 1-based place in its contact's array (calls' and meetings' `index` in that result set).
 */
function entries<R extends { contact_id: string }, K extends string, D>(
  contactIds: readonly string[],
  rows: R[],
  key: K,
  toDto: (row: R, index: number) => D,
): Map<string, Array<Record<K, D>>> {
  const seen = new Map<string, number>();
  return group(
    contactIds,
    rows.map((row) => {
      const index = (seen.get(row.contact_id) ?? 0) + 1;
      seen.set(row.contact_id, index);
      return { key: row.contact_id, value: { [key]: toDto(row, index) } as Record<K, D> };
    }),
  );
}

/** Notes of the contacts, newest date first, at most CONTACT_RECORDS_CAP each. */
export async function notesOfContacts(
  db: Db,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, Array<{ note: NoteDto }>>> {
  if (contactIds.length === 0) return new Map();
  return entries(contactIds, await recordRowsOfContacts(db, 'notes', accountId, contactIds, CONTACT_RECORDS_CAP), 'note', toNoteDto);
}

/** Calls of the contacts, newest first, at most CONTACT_RECORDS_CAP each. */
export async function callsOfContacts(
  db: Db,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, Array<{ call: CallDto }>>> {
  if (contactIds.length === 0) return new Map();
  return entries(contactIds, await recordRowsOfContacts(db, 'calls', accountId, contactIds, CONTACT_RECORDS_CAP), 'call', toCallDto);
}

/** Meetings of the contacts, newest first, at most CONTACT_RECORDS_CAP each. */
export async function meetingsOfContacts(
  db: Db,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, Array<{ meeting: MeetingDto }>>> {
  if (contactIds.length === 0) return new Map();
  return entries(
    contactIds,
    await recordRowsOfContacts(db, 'meetings', accountId, contactIds, CONTACT_RECORDS_CAP),
    'meeting',
    toMeetingDto,
  );
}

/** Pinned attachments of the contacts' deals, notes, calls and meetings, most recently pinned first, at most CONTACT_RECORDS_CAP each. */
export async function pinnedAttachmentsOfContacts(
  db: Db,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, AttachmentDto[]>> {
  if (contactIds.length === 0) return new Map();
  const rows = await pinnedAttachmentRows(db, accountId, contactIds);
  const out = new Map<string, AttachmentDto[]>();
  for (const row of rows) {
    const pinned = toAttachmentDtos(row.attachment).filter((a) => a.pinned);
    out.set(row.contact_id, [...(out.get(row.contact_id) ?? []), ...pinned]);
  }
  for (const [id, list] of out) out.set(id, list.sort((a, b) => (b.pinned_at ?? 0) - (a.pinned_at ?? 0)).slice(0, CONTACT_RECORDS_CAP));
  return out;
}

type Reader = (db: Db, accountId: string, contactIds: readonly string[]) => Promise<Map<string, unknown[]>>;

const READERS: Record<ContactListResource, Reader> = {
  deals: dealsOfContacts,
  notes: notesOfContacts,
  calls: callsOfContacts,
  meetings: meetingsOfContacts,
  pinned_attachments: pinnedAttachmentsOfContacts,
};

/** The arrays of `fields=deals(all),notes(all),...` on GET /contacts for a page of contacts: resource -> contact id -> entries. */
export async function contactResourceArrays(
  db: Db,
  accountId: string,
  contactIds: string[],
  resources: readonly ContactListResource[],
): Promise<Map<ContactListResource, Map<string, unknown[]>>> {
  const maps = await Promise.all(resources.map((resource) => READERS[resource](db, accountId, contactIds)));
  return new Map(resources.map((resource, i) => [resource, maps[i]]));
}

/**
 * The action parts of the contacts' wrappers as `userId` sees them: `next_actions` (every
 * assignee's next action, the user's first), `next_action` (the user's), `queued_actions` (the
 * user's, by position, the first QUEUED_ACTIONS_CAP) and `next_action_conflicts` (the user's queued
 * actions dated before the user's dated next action, the first QUEUED_ACTIONS_CAP). Contacts
 * without open actions get empty parts.
 */
export async function contactActionsOf(
  db: Db,
  accountId: string,
  userId: string,
  contactIds: readonly string[],
): Promise<Map<string, ContactActionsDto>> {
  if (contactIds.length === 0) return new Map();
  return contactActionsFrom(userId, contactIds, await openActionRows(db, accountId, userId, contactIds, QUEUED_ACTIONS_CAP));
}

/** {@link contactActionsOf} from its rows (openActionRows' with limit QUEUED_ACTIONS_CAP, read alone or in a larger statement). */
export function contactActionsFrom(
  userId: string,
  contactIds: readonly string[],
  rows: readonly OpenActionRow[],
): Map<string, ContactActionsDto> {
  const out = new Map<string, ContactActionsDto>();
  const queued = new Map<string, ActionDto[]>();
  for (const id of contactIds) {
    out.set(id, { next_actions: [], next_action: null, queued_actions: [], next_action_conflicts: [] });
    queued.set(id, []);
  }
  for (const row of rows) {
    const parts = out.get(row.contact_id);
    if (!parts) continue;
    const dto = toActionDto(row);
    if (isNext(row.status)) {
      parts.next_actions.push(dto);
      if (row.assignee_id === userId) parts.next_action = dto;
    } else if (row.assignee_id === userId) {
      queued.get(row.contact_id)!.push(dto);
      if (Number(row.queue_rank) <= QUEUED_ACTIONS_CAP) parts.queued_actions.push(dto);
    }
  }
  for (const [id, parts] of out)
    parts.next_action_conflicts = dateConflicts(parts.next_action, queued.get(id) ?? []).slice(0, QUEUED_ACTIONS_CAP);
  return out;
}

/** Queued actions dated before the next action's date (an asap or waiting next action has no date: none). */
export function dateConflicts(next: ActionDto | null, queued: readonly ActionDto[]): ActionDto[] {
  if (!next?.date) return [];
  return queued.filter((q) => typeof q.date === 'string' && q.date !== '' && q.date < next.date!);
}
