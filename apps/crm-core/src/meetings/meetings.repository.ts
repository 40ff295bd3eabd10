import { Injectable } from '@nestjs/common';
import type { PageInfo } from '@crm/contracts';
import { execute, maybeOne, sql, type Db } from '../common/sql';
import { attachmentsJson } from '../records/attachments.repository';
import { listPage, recordById, type ListInput, type ListSpec } from '../records/record-list.repository';

/** A Meeting with its author and attachments; crm.meetings `g`, its contact `c`. Text, so read models can splice it. */
export const MEETING_SELECT = `SELECT g.id, g.contact_id, g.author_id, g.text, g.meeting_time_int, g.place, g.created_at, g.modified_at,
    au.first_name AS a_first_name, au.last_name AS a_last_name, c.status_id AS c_status_id,
    ${attachmentsJson('g.id')} AS attachments
  FROM crm.meetings g
  JOIN crm.contacts c ON c.id = g.contact_id
  LEFT JOIN crm.users au ON au.id = g.author_id`;

const meetingSelect = sql.raw(MEETING_SELECT);

/** The list of meetings: their SELECT, table and default order. */
const TABLE: ListSpec = {
  select: meetingSelect,
  from: sql`crm.meetings g`,
  alias: 'g',
  defaultOrder: sql`g.meeting_time_int DESC, g.id DESC`,
  secondsColumns: new Set(['meeting_time_int']),
  dateFilterColumns: { meeting_time: 'meeting_time_int' },
};

/** A crm.meetings row as MEETING_SELECT reads it. */
export interface MeetingRow {
  id: string;
  contact_id: string;
  author_id: string;
  text: string;
  meeting_time_int: string | number;
  place: string;
  created_at: Date | string;
  modified_at: Date | string;
  a_first_name: string | null;
  a_last_name: string | null;
  c_status_id: string;
  attachments: unknown;
}

/** A meeting's writable values. */
export interface MeetingValues {
  text: string;
  meeting_time_int: number;
  place: string;
}

/** A meeting locked for an update, with its contact's status. */
export type LockedMeeting = MeetingValues & { id: string; contact_id: string; c_status_id: string };

/** Every statement on crm.meetings. */
@Injectable()
export class MeetingsRepository {
  list(db: Db, accountId: string, input: ListInput): Promise<{ rows: MeetingRow[]; page: PageInfo }> {
    return listPage<MeetingRow>(db, accountId, input, TABLE);
  }

  byId(db: Db, accountId: string, id: string): Promise<MeetingRow | undefined> {
    return recordById<MeetingRow>(db, TABLE, accountId, id);
  }

  async insert(db: Db, id: string, accountId: string, contactId: string, authorId: string, v: MeetingValues): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.meetings (id, account_id, contact_id, author_id, text, meeting_time_int, place)
          VALUES (${id}, ${accountId}, ${contactId}, ${authorId}, ${v.text}, ${v.meeting_time_int}, ${v.place})`,
    );
  }

  async update(db: Db, id: string, v: MeetingValues): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.meetings SET text = ${v.text}, meeting_time_int = ${v.meeting_time_int}, place = ${v.place}, modified_at = now() WHERE id = ${id}`,
    );
  }

  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM crm.meetings WHERE id = ${id}`);
  }

  /** The meeting row locked for this transaction; undefined unless the account's (its contact not deleted). */
  lock(db: Db, accountId: string, id: string): Promise<LockedMeeting | undefined> {
    return maybeOne<LockedMeeting>(
      db,
      sql`SELECT g.id, g.contact_id, g.text, g.meeting_time_int::float8 AS meeting_time_int, g.place, c.status_id AS c_status_id
          FROM crm.meetings g JOIN crm.contacts c ON c.id = g.contact_id
          WHERE g.id = ${id} AND g.account_id = ${accountId} AND c.deleted_at IS NULL FOR UPDATE OF g`,
    );
  }
}
