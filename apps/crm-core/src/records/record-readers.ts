import type { ActionDto, AttachmentDto, CallDto, ContactActionsDto, DealDto, MeetingDto, NoteDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import { ACTION_COLUMNS, toActionDto, type ActionRow } from '../actions/action.serializer';
import { CALL_SELECT, toCallDto, type CallRow } from '../calls/call.serializer';
import { selectDeals } from '../deals/deal.serializer';
import { MEETING_SELECT, toMeetingDto, type MeetingRow } from '../meetings/meeting.serializer';
import { NOTE_SELECT, toNoteDto, type NoteRow } from '../notes/note.serializer';
import { toAttachmentDtos, attachmentsJson } from './attachments';

/**
 * Batch readers of deals, notes, calls, meetings and actions for the contacts and companies
 * module (GET /contacts?fields=deals(all),..., a company's pending_deals, contact wrappers).
 * Plain functions over an EntityManager, one query per call (no N+1); entries nest the record
 * under its entity key, newest first; a contact without records is absent from the map.
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

/** Deals whose primary contact is one of `contactIds` (every status), newest date first. */
export async function dealsOfContacts(
  m: EntityManager,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, Array<{ deal: DealDto }>>> {
  if (contactIds.length === 0) return new Map();
  const deals = await selectDeals(
    m,
    accountId,
    'WHERE d.account_id = $1 AND d.contact_id = ANY($2::varchar[]) ORDER BY d.date DESC, d.created_at DESC, d.id DESC',
    [accountId, [...contactIds]],
  );
  return group(
    contactIds,
    deals.map(({ dto }) => ({ key: dto.contact_id, value: { deal: dto } })),
  );
}

/** Pending deals of each company: those whose primary contact (not deleted) belongs to it. */
export async function pendingDealsOfCompanies(
  m: EntityManager,
  accountId: string,
  companyIds: readonly string[],
): Promise<Map<string, Array<{ deal: DealDto }>>> {
  if (companyIds.length === 0) return new Map();
  const deals = await selectDeals(
    m,
    accountId,
    "WHERE d.account_id = $1 AND d.status = 'pending' AND c.company_id = ANY($2::varchar[]) AND c.deleted_at IS NULL ORDER BY d.date DESC, d.created_at DESC, d.id DESC",
    [accountId, [...companyIds]],
  );
  const companyOf = new Map<string, string>();
  if (deals.length > 0) {
    const rows: Array<{ id: string; company_id: string }> = await m.query(
      'SELECT id, company_id FROM crm.contacts WHERE id = ANY($1::varchar[])',
      [[...new Set(deals.map(({ dto }) => dto.contact_id))]],
    );
    for (const row of rows) companyOf.set(row.id, row.company_id);
  }
  return group(
    companyIds,
    deals.map(({ dto }) => ({
      key: companyOf.get(dto.contact_id) ?? '',
      value: { deal: dto },
    })),
  );
}

/** Notes of the contacts, newest date first. */
export async function notesOfContacts(
  m: EntityManager,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, Array<{ note: NoteDto }>>> {
  if (contactIds.length === 0) return new Map();
  const rows: NoteRow[] = await m.query(
    `${NOTE_SELECT} WHERE n.account_id = $1 AND n.contact_id = ANY($2::varchar[]) ORDER BY n.date DESC, n.created_at DESC, n.id DESC`,
    [accountId, [...contactIds]],
  );
  return group(
    contactIds,
    rows.map((row) => ({
      key: row.contact_id,
      value: { note: toNoteDto(row) },
    })),
  );
}

/** Calls of the contacts, newest first. */
export async function callsOfContacts(
  m: EntityManager,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, Array<{ call: CallDto }>>> {
  if (contactIds.length === 0) return new Map();
  const rows: CallRow[] = await m.query(
    `${CALL_SELECT} WHERE l.account_id = $1 AND l.contact_id = ANY($2::varchar[]) ORDER BY l.call_time_int DESC, l.id DESC`,
    [accountId, [...contactIds]],
  );
  return group(
    contactIds,
    rows.map((row) => ({
      key: row.contact_id,
      value: { call: toCallDto(row) },
    })),
  );
}

/** Meetings of the contacts, newest first. */
export async function meetingsOfContacts(
  m: EntityManager,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, Array<{ meeting: MeetingDto }>>> {
  if (contactIds.length === 0) return new Map();
  const rows: MeetingRow[] = await m.query(
    `${MEETING_SELECT} WHERE g.account_id = $1 AND g.contact_id = ANY($2::varchar[]) ORDER BY g.meeting_time_int DESC, g.id DESC`,
    [accountId, [...contactIds]],
  );
  return group(
    contactIds,
    rows.map((row) => ({
      key: row.contact_id,
      value: { meeting: toMeetingDto(row) },
    })),
  );
}

/** Pinned attachments of the contacts' deals, notes, calls and meetings, most recently pinned first. */
export async function pinnedAttachmentsOfContacts(
  m: EntityManager,
  accountId: string,
  contactIds: readonly string[],
): Promise<Map<string, AttachmentDto[]>> {
  if (contactIds.length === 0) return new Map();
  const rows: Array<{ contact_id: string; attachment: unknown }> = await m.query(
    `SELECT p.contact_id, ${attachmentsJson('p.record_id')} AS attachment FROM (SELECT DISTINCT contact_id, record_id FROM crm.attachments
       WHERE account_id = $1 AND contact_id = ANY($2::varchar[]) AND pinned) p`,
    [accountId, [...contactIds]],
  );
  const out = new Map<string, AttachmentDto[]>();
  for (const row of rows) {
    const pinned = toAttachmentDtos(row.attachment).filter((a) => a.pinned);
    out.set(row.contact_id, [...(out.get(row.contact_id) ?? []), ...pinned]);
  }
  for (const list of out.values()) list.sort((a, b) => (b.pinned_at ?? 0) - (a.pinned_at ?? 0));
  return out;
}

const NEXT = new Set(['date', 'date_time', 'waiting']);

/**
 * The action parts of the contacts' wrappers as `userId` sees them: `next_actions` (every
 * assignee's next action, the user's first), `next_action` (the user's), `queued_actions` (the
 * user's, by position) and `next_action_conflicts` (the user's queued actions dated before the
 * user's dated next action). Contacts without open actions get empty parts.
 */
export async function contactActionsOf(
  m: EntityManager,
  accountId: string,
  userId: string,
  contactIds: readonly string[],
): Promise<Map<string, ContactActionsDto>> {
  const out = new Map<string, ContactActionsDto>();
  for (const id of contactIds)
    out.set(id, {
      next_actions: [],
      next_action: null,
      queued_actions: [],
      next_action_conflicts: [],
    });
  if (contactIds.length === 0) return out;
  const rows: ActionRow[] = await m.query(
    `SELECT ${ACTION_COLUMNS.join(', ')} FROM crm.actions WHERE account_id = $1 AND contact_id = ANY($2::varchar[]) AND status <> 'done'
     ORDER BY (assignee_id = $3) DESC, position, date NULLS LAST, exact_time NULLS LAST, id`,
    [accountId, [...contactIds], userId],
  );
  for (const row of rows) {
    const parts = out.get(row.contact_id);
    if (!parts) continue;
    const dto = toActionDto(row);
    if (NEXT.has(row.status)) {
      parts.next_actions.push(dto);
      if (row.assignee_id === userId) parts.next_action = dto;
    } else if (row.assignee_id === userId) {
      parts.queued_actions.push(dto);
    }
  }
  for (const parts of out.values()) parts.next_action_conflicts = dateConflicts(parts.next_action, parts.queued_actions);
  return out;
}

/** Queued actions dated before the next action's date (a waiting next action has no date: none). */
export function dateConflicts(next: ActionDto | null, queued: readonly ActionDto[]): ActionDto[] {
  if (!next?.date) return [];
  return queued.filter((q) => typeof q.date === 'string' && q.date < next.date!);
}
