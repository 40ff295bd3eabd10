import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  type Caller,
  type CreateNoteRequest,
  type ListNotesReply,
  type ListNotesRequest,
  type NoteDto,
  type NoteIdRequest,
  type NoteReply,
  type UpdateNoteRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { writeEvent, writeEventWith } from '../outbox/outbox';
import { deleteAttachments, replaceAttachments } from '../records/attachments.repository';
import { normalizeId, replacedList, todayUtc } from '../records/record-common';
import { toNoteDto } from './note.view';
import { NotificationsService } from '../notifications/notifications.service';
import { NotesRepository, type LockedNote } from './notes.repository';
import { assertIfMatch } from '../common/if-match.repository';

/** Notes logged on contacts (spec "POST /notes", decisions.md "Deals and actions"). */
@Injectable()
export class NotesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly notes: NotesRepository,
    private readonly notifications: NotificationsService,
  ) {}

  async list(caller: Caller, request: ListNotesRequest): Promise<ListNotesReply> {
    const { rows, page } = await this.notes.list(this.dataSource.manager, caller.account_id, request);
    return { notes: rows.map((row) => ({ note: toNoteDto(row) })), ...page };
  }

  async get(caller: Caller, request: NoteIdRequest): Promise<NoteReply> {
    return { note: await this.load(this.dataSource.manager, caller.account_id, request.note_id) };
  }

  /**
   * Logs a note: the contact's last activity moves to now, each user of `user_ids_to_notify`
   * (other than the author) gets a notification, and the `created` event is written, all in one
   * transaction.
   */
  async create(caller: Caller, request: CreateNoteRequest): Promise<NoteReply> {
    if (request.text === undefined || request.text === null) throw ApiError.invalid({ text: 'text is required' });
    const text = request.text;
    // A plain note (no attachments, nobody to notify) is a read or two and then ONE statement
    // writing the row, the contact's last activity and the event, atomic on its own: it needs no
    // transaction around them (BEGIN and COMMIT are two more round trips). Anything else writes
    // several statements, in one transaction.
    const plain = !request.attachments?.length && !request.user_ids_to_notify?.length;
    const write = async (tx: Db): Promise<NoteReply> => {
      const contactId = normalizeId(request.contact_id);
      const contact = contactId ? await this.notes.contactAndAuthor(tx, caller.account_id, contactId, caller.user_id) : undefined;
      if (!contact) throw ApiError.notFound('Contact not found');
      const deal = await this.linkedDeal(tx, caller.account_id, contact.id, request.linked_deal_id);
      const id = newId();
      const values = { text, date: request.date ?? todayUtc(), linked_deal_id: deal?.id ?? null };
      const event = (note: NoteDto) => ({
        account_id: caller.account_id,
        type: 'note' as const,
        reason: 'created',
        record_id: id,
        contact_status_id: contact.status_id,
        data: { note },
      });
      let note: NoteDto;
      if (request.attachments?.length) {
        await this.notes.insert(tx, id, caller.account_id, contact.id, caller.user_id, values, contact.tx_now);
        await replaceAttachments(tx, caller.account_id, 'note', id, contact.id, request.attachments);
        note = await this.load(tx, caller.account_id, id);
        await writeEvent(tx, event(note));
      } else {
        // Everything the note shows is known here (its timestamps are the read's now()): the row
        // and its event are written in one statement.
        note = toNoteDto({
          id,
          contact_id: contact.id,
          author_id: caller.user_id,
          ...values,
          linked_deal_name: deal?.name ?? null,
          created_at: contact.tx_now,
          modified_at: contact.tx_now,
          a_first_name: contact.a_first_name,
          a_last_name: contact.a_last_name,
          c_status_id: contact.status_id,
          attachments: [],
        });
        await writeEventWith(
          tx,
          this.notes.insertChanges(id, caller.account_id, contact.id, caller.user_id, values, contact.tx_now),
          event(note),
        );
      }
      await this.notifications.notifyOf(tx, caller, 'note', id, contact.id, request.user_ids_to_notify);
      return { note };
    };
    return plain ? write(this.dataSource.manager) : this.dataSource.transaction(write);
  }

  /** PUT: replaces text (required), date (default today), linked_deal_id ("" when absent), attachments; partial=true: only those sent. */
  async update(caller: Caller, request: UpdateNoteRequest): Promise<NoteReply> {
    const partial = request.partial === true;
    if (!partial && (request.text === undefined || request.text === null)) throw ApiError.invalid({ text: 'text is required' });
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, caller.account_id, request.note_id);
      const linkedDealId =
        request.linked_deal_id !== undefined
          ? ((await this.linkedDeal(tx, caller.account_id, current.contact_id, request.linked_deal_id))?.id ?? null)
          : partial
            ? current.linked_deal_id
            : null;
      await this.notes.update(tx, current.id, {
        text: request.text ?? current.text,
        date: request.date !== undefined ? (request.date ?? todayUtc()) : partial ? current.date : todayUtc(),
        linked_deal_id: linkedDealId,
      });
      const attachments = replacedList(partial, request.attachments);
      if (attachments !== null) await replaceAttachments(tx, caller.account_id, 'note', current.id, current.contact_id, attachments);
      await this.notifications.notifyOf(tx, caller, 'note', current.id, current.contact_id, request.user_ids_to_notify);
      const note = await this.load(tx, caller.account_id, current.id);
      await writeEvent(tx, {
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

  async delete(caller: Caller, request: NoteIdRequest): Promise<Record<string, never>> {
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, caller.account_id, request.note_id);
      await this.notes.delete(tx, current.id);
      await deleteAttachments(tx, current.id);
      await this.notifications.forgetRecord(tx, caller, current.id);
      await writeEvent(tx, {
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

  private async load(db: Db, accountId: string, noteId: string): Promise<NoteDto> {
    const id = normalizeId(noteId);
    const row = id ? await this.notes.byId(db, accountId, id) : undefined;
    if (!row) throw ApiError.notFound('Note not found');
    return toNoteDto(row);
  }

  private async lock(db: Db, accountId: string, noteId: string): Promise<LockedNote> {
    const id = normalizeId(noteId);
    const row = id ? await this.notes.lock(db, accountId, id) : undefined;
    if (!row) throw ApiError.notFound('Note not found');
    await assertIfMatch(db, 'notes', row.id);
    return row;
  }

  /**
   * The deal a note links to: "" or null is none; otherwise a deal of the account (404) whose
   * primary or linked contact is the note's contact (400 otherwise).
   */
  private async linkedDeal(
    db: Db,
    accountId: string,
    contactId: string,
    value: string | null | undefined,
  ): Promise<{ id: string; name: string } | null> {
    if (value === undefined || value === null || value.trim() === '') return null;
    const id = normalizeId(value);
    const deal = id ? await this.notes.dealOfContact(db, accountId, id, contactId) : undefined;
    if (!deal) throw ApiError.notFound('linked_deal_id names no deal of the account');
    if (!deal.of_contact) throw ApiError.invalid({ linked_deal_id: "linked_deal_id must be a deal of the note's contact" });
    return { id: deal.id, name: deal.name };
  }
}
