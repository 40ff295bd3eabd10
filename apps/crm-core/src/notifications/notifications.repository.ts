import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import { MAX_NOTIFICATIONS_PER_USER, type NotificationType } from '@crm/contracts';
import { execute, many, maybeOne, one, pageLimit, sql, type Db } from '../common/sql';

/** A notification as the API shows it: with its author's name and the text of its record. */
export interface NotificationRow {
  id: string;
  kind: NotificationType;
  user_id: string;
  contact_id: string;
  record_id: string;
  read_at: Date | null;
  created_at: Date;
  a_first_name: string | null;
  a_last_name: string | null;
  c_first_name: string | null;
  c_last_name: string | null;
  body: string;
}

/** Characters of the record's text a notification's body shows. */
const BODY_CHARS = 140;

/** The caller's visible notifications (`n`): about a contact not deleted; with the author (`au`) and the record's text. */
const FROM = sql`crm.notifications n
  JOIN crm.contacts c ON c.id = n.contact_id AND c.deleted_at IS NULL
  LEFT JOIN crm.users au ON au.id = n.author_id
  LEFT JOIN crm.notes nt ON n.record_type = 'note' AND nt.id = n.record_id
  LEFT JOIN crm.calls ca ON n.record_type = 'call' AND ca.id = n.record_id
  LEFT JOIN crm.meetings me ON n.record_type = 'meeting' AND me.id = n.record_id`;

const COLUMNS = sql`n.id, n.kind, n.user_id, n.contact_id, n.record_id, n.read_at, n.created_at,
  au.first_name AS a_first_name, au.last_name AS a_last_name, c.first_name AS c_first_name, c.last_name AS c_last_name,
  left(coalesce(nt.text, ca.text, me.text, ''), ${BODY_CHARS}) AS body`;

const mine = (accountId: string, userId: string) => sql`n.account_id = ${accountId} AND n.user_id = ${userId}`;

/** Every statement on crm.notifications: written with notes, calls and meetings; read and marked by their user. */
@Injectable()
export class NotificationsRepository {
  /**
   * Notifies `userIds` of a record in the writing transaction, then keeps only each user's
   * {@link MAX_NOTIFICATIONS_PER_USER} newest (at most that many rows per user are ever read).
   */
  async notify(
    db: Db,
    accountId: string,
    kind: NotificationType,
    recordId: string,
    contactId: string,
    authorId: string,
    userIds: readonly string[],
  ): Promise<void> {
    if (userIds.length === 0) return;
    await execute(
      db,
      sql`INSERT INTO crm.notifications (id, account_id, user_id, kind, record_type, record_id, contact_id, author_id)
          SELECT r.id, ${accountId}, r.user_id, ${kind}, ${kind}, ${recordId}, ${contactId}, ${authorId}
          FROM unnest(${userIds.map(() => newId())}::varchar[], ${[...userIds]}::varchar[]) AS r(id, user_id)`,
    );
    await execute(
      db,
      sql`DELETE FROM crm.notifications d
          USING (SELECT id FROM (
                   SELECT id, row_number() OVER (PARTITION BY user_id ORDER BY created_at DESC, id DESC) AS position
                   FROM crm.notifications WHERE user_id = ANY(${[...userIds]}::varchar[])) ranked
                 WHERE position > ${MAX_NOTIFICATIONS_PER_USER}) old
          WHERE d.id = old.id`,
    );
  }

  /** Removes the notifications of a deleted note, call or meeting. */
  async forgetRecord(db: Db, accountId: string, recordId: string): Promise<void> {
    await execute(db, sql`DELETE FROM crm.notifications WHERE account_id = ${accountId} AND record_id = ${recordId}`);
  }

  async page(
    db: Db,
    accountId: string,
    userId: string,
    page: number,
    perPage: number,
  ): Promise<{ total: number; rows: NotificationRow[] }> {
    const { total } = await one<{ total: number }>(db, sql`SELECT count(*)::int AS total FROM ${FROM} WHERE ${mine(accountId, userId)}`);
    const rows = await many<NotificationRow>(
      db,
      sql`SELECT ${COLUMNS} FROM ${FROM} WHERE ${mine(accountId, userId)} ORDER BY n.created_at DESC, n.id DESC ${pageLimit(page, perPage)}`,
    );
    return { total, rows };
  }

  byId(db: Db, accountId: string, userId: string, id: string): Promise<NotificationRow | undefined> {
    return maybeOne<NotificationRow>(db, sql`SELECT ${COLUMNS} FROM ${FROM} WHERE ${mine(accountId, userId)} AND n.id = ${id}`);
  }

  /** Marks one read (the first time only); false when the caller has no such notification. */
  async markRead(db: Db, accountId: string, userId: string, id: string): Promise<boolean> {
    const touched = await execute(
      db,
      sql`UPDATE crm.notifications n SET read_at = coalesce(n.read_at, now()) WHERE ${mine(accountId, userId)} AND n.id = ${id}`,
    );
    return touched > 0;
  }

  /** Marks every unread one read; returns how many. */
  markAllRead(db: Db, accountId: string, userId: string): Promise<number> {
    return execute(db, sql`UPDATE crm.notifications n SET read_at = now() WHERE ${mine(accountId, userId)} AND n.read_at IS NULL`);
  }
}
