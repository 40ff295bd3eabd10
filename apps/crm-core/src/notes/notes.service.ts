import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  CreateNoteRequest,
  ListNotesRequest,
  NoteIdRequest,
  UpdateNoteRequest,
  type Caller,
  type ListNotesReply,
  type NoteDto,
  type NoteReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { preparedQuery } from '../contacts/prepared-query';
import { writeEvent } from '../outbox/outbox';
import { deleteAttachments, replaceAttachments } from '../records/attachments';
import { findUsers, normalizeId, parseRecord, todayUtc, type ContactRef } from '../records/record-common';
import { listPage } from '../records/record-list';
import { NOTE_SELECT, toNoteDto, type NoteRow } from './note.serializer';

interface StoredNote {
  id: string;
  contact_id: string;
  text: string;
  date: string;
  linked_deal_id: string | null;
  c_status_id: string;
}

/** Notes logged on contacts (spec "POST /notes", decisions.md "Deals and actions"). */
@Injectable()
export class NotesService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListNotesReply> {
    const request = parseRecord(ListNotesRequest, payload);
    const { rows, page } = await listPage<NoteRow>(this.dataSource.manager, caller.account_id, request, {
      select: NOTE_SELECT,
      table: 'crm.notes',
      alias: 'n',
      defaultOrder: 'n.date DESC, n.created_at DESC, n.id DESC',
      dateColumns: new Set(['date']),
    });
    return { notes: rows.map((row) => ({ note: toNoteDto(row) })), ...page };
  }

  async get(caller: Caller, payload: unknown): Promise<NoteReply> {
    const { note_id } = parseRecord(NoteIdRequest, payload);
    return {
      note: await this.load(this.dataSource.manager, caller.account_id, note_id),
    };
  }

  /**
   * Logs a note: the contact's last activity moves to now, each user of `user_ids_to_notify`
   * (other than the author) gets a notification, and the `created` event is written, all in one
   * transaction.
   */
  async create(caller: Caller, payload: unknown): Promise<NoteReply> {
    const request = parseRecord(CreateNoteRequest, payload);
    if (request.text === undefined || request.text === null) throw ApiError.invalid({ text: 'text is required' });
    const text = request.text;
    return this.dataSource.transaction(async (m) => {
      // The contact and the author's name in one round trip.
      const contactId = normalizeId(request.contact_id);
      const [contact] = contactId
        ? await preparedQuery<
            ContactRef & {
              a_first_name: string | null;
              a_last_name: string | null;
            }
          >(
            m,
            `SELECT c.id, c.status_id, c.owner_id, c.first_name, c.last_name, c.company_name, c.company_id, c.photo_url, u.first_name AS a_first_name, u.last_name AS a_last_name
             FROM crm.contacts c LEFT JOIN crm.users u ON u.id = $3 WHERE c.id = $1 AND c.account_id = $2 AND c.deleted_at IS NULL`,
            [contactId, caller.account_id, caller.user_id],
          )
        : [];
      if (!contact) throw ApiError.notFound('Contact not found');
      const deal = await linkedDeal(m, caller.account_id, contact.id, request.linked_deal_id);
      const notify = request.user_ids_to_notify?.length
        ? await findUsers(m, caller.account_id, request.user_ids_to_notify, 'user_ids_to_notify')
        : new Map();
      const id = newId();
      const date = request.date ?? todayUtc();
      // The note, and the contact's last activity moving to now.
      const [stamps] = await preparedQuery<{
        created_at: Date;
        modified_at: Date;
      }>(
        m,
        `WITH ins AS (INSERT INTO crm.notes (id, account_id, contact_id, author_id, text, date, linked_deal_id) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING created_at, modified_at),
              touch AS (UPDATE crm.contacts SET last_activity_at = now() WHERE id = $3 AND (last_activity_at IS NULL OR last_activity_at < now()))
         SELECT created_at, modified_at FROM ins`,
        [id, caller.account_id, contact.id, caller.user_id, text, date, deal?.id ?? null],
      );
      const recipients = [...notify.keys()].filter((userId) => userId !== caller.user_id);
      if (recipients.length > 0) {
        await m.query(
          `INSERT INTO crm.notifications (id, account_id, user_id, kind, record_type, record_id, contact_id, author_id)
           SELECT r.id, $1, r.user_id, 'note', 'note', $2, $3, $4 FROM unnest($5::varchar[], $6::varchar[]) AS r(id, user_id)`,
          [caller.account_id, id, contact.id, caller.user_id, recipients.map(() => newId()), recipients],
        );
      }
      let note: NoteDto;
      if (request.attachments?.length) {
        await replaceAttachments(m, caller.account_id, 'note', id, contact.id, request.attachments);
        note = await this.load(m, caller.account_id, id);
      } else {
        note = toNoteDto({
          id,
          contact_id: contact.id,
          author_id: caller.user_id,
          text,
          date,
          linked_deal_id: deal?.id ?? null,
          linked_deal_name: deal?.name ?? null,
          ...stamps,
          a_first_name: contact.a_first_name,
          a_last_name: contact.a_last_name,
          c_status_id: contact.status_id,
          attachments: [],
        });
      }
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'note',
        reason: 'created',
        record_id: id,
        contact_status_id: contact.status_id,
        data: { note },
      });
      return { note };
    });
  }

  /** PUT: replaces text (required), date (default today), linked_deal_id ("" when absent), attachments; partial=true: only those sent. */
  async update(caller: Caller, payload: unknown): Promise<NoteReply> {
    const request = parseRecord(UpdateNoteRequest, payload);
    const partial = request.partial === true;
    if (!partial && (request.text === undefined || request.text === null)) throw ApiError.invalid({ text: 'text is required' });
    return this.dataSource.transaction(async (m) => {
      const current = await this.lock(m, caller.account_id, request.note_id);
      const text = request.text ?? current.text;
      const date = request.date !== undefined ? (request.date ?? todayUtc()) : partial ? current.date : todayUtc();
      const linkedDealId =
        request.linked_deal_id !== undefined
          ? ((await linkedDeal(m, caller.account_id, current.contact_id, request.linked_deal_id))?.id ?? null)
          : partial
            ? current.linked_deal_id
            : null;
      await m.query('UPDATE crm.notes SET text = $2, date = $3, linked_deal_id = $4, modified_at = now() WHERE id = $1', [
        current.id,
        text,
        date,
        linkedDealId,
      ]);
      const attachments = request.attachments !== undefined ? (request.attachments ?? []) : partial ? null : [];
      if (attachments !== null) await replaceAttachments(m, caller.account_id, 'note', current.id, current.contact_id, attachments);
      const note = await this.load(m, caller.account_id, current.id);
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'note',
        reason: 'updated',
        record_id: current.id,
        contact_status_id: current.c_status_id,
        data: { note },
      });
      return { note };
    });
  }

  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    const { note_id } = parseRecord(NoteIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const current = await this.lock(m, caller.account_id, note_id);
      await m.query('DELETE FROM crm.notes WHERE id = $1', [current.id]);
      await m.query('DELETE FROM crm.notifications WHERE record_id = $1', [current.id]);
      await deleteAttachments(m, current.id);
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'note',
        reason: 'deleted',
        record_id: current.id,
        contact_status_id: current.c_status_id,
        data: { id: current.id },
      });
      return {};
    });
  }

  private async load(m: EntityManager, accountId: string, noteId: string): Promise<NoteDto> {
    const id = normalizeId(noteId);
    const [row]: NoteRow[] = id
      ? await m.query(`${NOTE_SELECT} WHERE n.id = $1 AND n.account_id = $2 AND c.deleted_at IS NULL`, [id, accountId])
      : [];
    if (!row) throw ApiError.notFound('Note not found');
    return toNoteDto(row);
  }

  private async lock(m: EntityManager, accountId: string, noteId: string): Promise<StoredNote> {
    const id = normalizeId(noteId);
    const [row]: StoredNote[] = id
      ? await m.query(
          'SELECT n.id, n.contact_id, n.text, n.date, n.linked_deal_id, c.status_id AS c_status_id FROM crm.notes n JOIN crm.contacts c ON c.id = n.contact_id WHERE n.id = $1 AND n.account_id = $2 AND c.deleted_at IS NULL FOR UPDATE OF n',
          [id, accountId],
        )
      : [];
    if (!row) throw ApiError.notFound('Note not found');
    return row;
  }
}

/**
 * The deal a note links to: "" or null is none; otherwise a deal of the account (404) whose
 * primary or linked contact is the note's contact (400 otherwise).
 */
async function linkedDeal(
  m: EntityManager,
  accountId: string,
  contactId: string,
  value: string | null | undefined,
): Promise<{ id: string; name: string } | null> {
  if (value === undefined || value === null || value.trim() === '') return null;
  const id = normalizeId(value);
  const [deal] = id
    ? await m.query(
        'SELECT d.id, d.name, (d.contact_id = $3 OR EXISTS (SELECT 1 FROM crm.deal_contacts dc WHERE dc.deal_id = d.id AND dc.contact_id = $3)) AS of_contact FROM crm.deals d WHERE d.id = $1 AND d.account_id = $2',
        [id, accountId, contactId],
      )
    : [];
  if (!deal) throw ApiError.notFound('linked_deal_id names no deal of the account');
  if (!deal.of_contact)
    throw ApiError.invalid({
      linked_deal_id: "linked_deal_id must be a deal of the note's contact",
    });
  return { id: deal.id, name: deal.name };
}
