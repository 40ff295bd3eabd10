import { Injectable } from '@nestjs/common';
import type { PageInfo } from '@crm/contracts';
import { execute, maybeOne, sql, type Db, type SqlFragment } from '../common/sql';
import { attachmentsJson } from '../records/attachments.repository';
import { listPage, recordById, type ListInput, type ListSpec } from '../records/record-list.repository';
import { CONTACT_REF_COLUMNS, type ContactRef } from '../records/record-references.repository';

/** A Note with its linked deal's name, author and attachments; crm.notes `n`, its contact `c`. Text, so read models can splice it. */
export const NOTE_SELECT = `SELECT n.id, n.contact_id, n.author_id, n.text, n.date, n.linked_deal_id, n.created_at, n.modified_at,
    ld.name AS linked_deal_name, au.first_name AS a_first_name, au.last_name AS a_last_name, c.status_id AS c_status_id,
    ${attachmentsJson('n.id')} AS attachments
  FROM crm.notes n
  JOIN crm.contacts c ON c.id = n.contact_id
  LEFT JOIN crm.deals ld ON ld.id = n.linked_deal_id
  LEFT JOIN crm.users au ON au.id = n.author_id`;

const noteSelect = sql.raw(NOTE_SELECT);

/** The list of notes: their SELECT, table and default order. */
const TABLE: ListSpec = {
  select: noteSelect,
  from: sql`crm.notes n`,
  alias: 'n',
  defaultOrder: sql`n.date DESC, n.created_at DESC, n.id DESC`,
  dateColumns: new Set(['date']),
};

/** A crm.notes row as NOTE_SELECT reads it. */
export interface NoteRow {
  id: string;
  contact_id: string;
  author_id: string;
  text: string;
  date: string | Date;
  linked_deal_id: string | null;
  linked_deal_name: string | null;
  created_at: Date | string;
  modified_at: Date | string;
  a_first_name: string | null;
  a_last_name: string | null;
  c_status_id: string;
  attachments: unknown;
}

/** A note's writable values. */
export interface NoteValues {
  text: string;
  date: string;
  linked_deal_id: string | null;
}

/** A note locked for an update, with its contact's status. */
export type LockedNote = NoteValues & { id: string; contact_id: string; c_status_id: string };

/** Every statement on crm.notes. */
@Injectable()
export class NotesRepository {
  list(db: Db, accountId: string, input: ListInput): Promise<{ rows: NoteRow[]; page: PageInfo }> {
    return listPage<NoteRow>(db, accountId, input, TABLE);
  }

  byId(db: Db, accountId: string, id: string): Promise<NoteRow | undefined> {
    return recordById<NoteRow>(db, TABLE, accountId, id);
  }

  /**
   * The note's contact (non-deleted, of the account) and the author's name, in one round trip, with
   * the transaction's now() (the timestamps of the rows it writes).
   */
  contactAndAuthor(
    db: Db,
    accountId: string,
    contactId: string,
    authorId: string,
  ): Promise<(ContactRef & { a_first_name: string | null; a_last_name: string | null; tx_now: Date }) | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${CONTACT_REF_COLUMNS}, u.first_name AS a_first_name, u.last_name AS a_last_name, now() AS tx_now
          FROM crm.contacts c LEFT JOIN crm.users u ON u.id = ${authorId}
          WHERE c.id = ${contactId} AND c.account_id = ${accountId} AND c.deleted_at IS NULL`,
      { prepare: true },
    );
  }

  /** A deal of the account, and whether `contactId` is its primary or a linked contact. */
  dealOfContact(
    db: Db,
    accountId: string,
    dealId: string,
    contactId: string,
  ): Promise<{ id: string; name: string; of_contact: boolean } | undefined> {
    return maybeOne(
      db,
      sql`SELECT d.id, d.name,
            (d.contact_id = ${contactId} OR EXISTS (SELECT 1 FROM crm.deal_contacts dc WHERE dc.deal_id = d.id AND dc.contact_id = ${contactId})) AS of_contact
          FROM crm.deals d WHERE d.id = ${dealId} AND d.account_id = ${accountId}`,
    );
  }

  /** Inserts the note created at `at` and moves the contact's last activity to now (see insertChanges). */
  async insert(db: Db, id: string, accountId: string, contactId: string, authorId: string, v: NoteValues, at: Date): Promise<void> {
    const [insert, touch] = this.insertChanges(id, accountId, contactId, authorId, v, at);
    await execute(db, sql`WITH ins AS (${insert}), touch AS (${touch}) SELECT 1`, { prepare: true });
  }

  /**
   * A new note as data-modifying statements (for writeEventWith: the note and its event in one
   * round trip): the row, created and modified at `at` (the contactAndAuthor read's now(), which
   * the reply and the event show, whether or not the statements share a transaction), and the
   * contact's last activity.
   */
  insertChanges(id: string, accountId: string, contactId: string, authorId: string, v: NoteValues, at: Date): [SqlFragment, SqlFragment] {
    return [
      sql`INSERT INTO crm.notes (id, account_id, contact_id, author_id, text, date, linked_deal_id, created_at, modified_at)
          VALUES (${id}, ${accountId}, ${contactId}, ${authorId}, ${v.text}, ${v.date}, ${v.linked_deal_id}, ${at}, ${at})`,
      sql`UPDATE crm.contacts SET last_activity_at = now() WHERE id = ${contactId} AND (last_activity_at IS NULL OR last_activity_at < now())`,
    ];
  }

  async update(db: Db, id: string, v: NoteValues): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.notes SET text = ${v.text}, date = ${v.date}, linked_deal_id = ${v.linked_deal_id}, modified_at = now() WHERE id = ${id}`,
    );
  }

  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM crm.notes WHERE id = ${id}`);
  }

  /** The note row locked for this transaction; undefined unless the account's (its contact not deleted). */
  lock(db: Db, accountId: string, id: string): Promise<LockedNote | undefined> {
    return maybeOne<LockedNote>(
      db,
      sql`SELECT n.id, n.contact_id, n.text, n.date, n.linked_deal_id, c.status_id AS c_status_id
          FROM crm.notes n JOIN crm.contacts c ON c.id = n.contact_id
          WHERE n.id = ${id} AND n.account_id = ${accountId} AND c.deleted_at IS NULL FOR UPDATE OF n`,
    );
  }
}
