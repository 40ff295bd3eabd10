import { Injectable } from '@nestjs/common';
import type { PageInfo } from '@crm/contracts';
import { execute, maybeOne, sql, type Db } from '../common/sql';
import { attachmentsJson } from '../records/attachments.repository';
import { listPage, recordById, type ListInput, type ListSpec } from '../records/record-list.repository';

/** A Call with its author and attachments; crm.calls `l`, its contact `c`. Text, so read models can splice it. */
export const CALL_SELECT = `SELECT l.id, l.contact_id, l.author_id, l.text, l.call_result, l.call_time_int, l.via, l.phone_number, l.recording_link, l.created_at, l.modified_at,
    au.first_name AS a_first_name, au.last_name AS a_last_name, c.status_id AS c_status_id,
    ${attachmentsJson('l.id')} AS attachments
  FROM crm.calls l
  JOIN crm.contacts c ON c.id = l.contact_id
  LEFT JOIN crm.users au ON au.id = l.author_id`;

const callSelect = sql.raw(CALL_SELECT);

/** The list of calls: their SELECT, table and default order. */
const TABLE: ListSpec = {
  select: callSelect,
  from: sql`crm.calls l`,
  alias: 'l',
  defaultOrder: sql`l.call_time_int DESC, l.id DESC`,
  secondsColumns: new Set(['call_time_int']),
  dateFilterColumns: { call_time: 'call_time_int' },
};

/** A crm.calls row as CALL_SELECT reads it. */
export interface CallRow {
  id: string;
  contact_id: string;
  author_id: string;
  text: string;
  call_result: string;
  call_time_int: string | number;
  via: string;
  phone_number: string;
  recording_link: string;
  created_at: Date | string;
  modified_at: Date | string;
  a_first_name: string | null;
  a_last_name: string | null;
  c_status_id: string;
  attachments: unknown;
}

/** A call's writable values. */
export interface CallValues {
  text: string;
  call_result: string;
  call_time_int: number;
  via: string;
  phone_number: string;
  recording_link: string;
}

/** A call locked for an update, with its contact's status. */
export type LockedCall = CallValues & { id: string; contact_id: string; c_status_id: string };

/** Every statement on crm.calls. */
@Injectable()
export class CallsRepository {
  list(db: Db, accountId: string, input: ListInput): Promise<{ rows: CallRow[]; page: PageInfo }> {
    return listPage<CallRow>(db, accountId, input, TABLE);
  }

  byId(db: Db, accountId: string, id: string): Promise<CallRow | undefined> {
    return recordById<CallRow>(db, TABLE, accountId, id);
  }

  async insert(db: Db, id: string, accountId: string, contactId: string, authorId: string, v: CallValues): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.calls (id, account_id, contact_id, author_id, text, call_result, call_time_int, via, phone_number, recording_link)
          VALUES (${id}, ${accountId}, ${contactId}, ${authorId}, ${v.text}, ${v.call_result}, ${v.call_time_int}, ${v.via}, ${v.phone_number},
            ${v.recording_link})`,
    );
  }

  async update(db: Db, id: string, v: CallValues): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.calls SET text = ${v.text}, call_result = ${v.call_result}, call_time_int = ${v.call_time_int}, via = ${v.via},
            phone_number = ${v.phone_number}, recording_link = ${v.recording_link}, modified_at = now()
          WHERE id = ${id}`,
    );
  }

  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM crm.calls WHERE id = ${id}`);
  }

  /** The call row locked for this transaction; undefined unless the account's (its contact not deleted). */
  lock(db: Db, accountId: string, id: string): Promise<LockedCall | undefined> {
    return maybeOne<LockedCall>(
      db,
      sql`SELECT l.id, l.contact_id, l.text, l.call_result, l.call_time_int::float8 AS call_time_int, l.via, l.phone_number, l.recording_link,
            c.status_id AS c_status_id
          FROM crm.calls l JOIN crm.contacts c ON c.id = l.contact_id
          WHERE l.id = ${id} AND l.account_id = ${accountId} AND c.deleted_at IS NULL FOR UPDATE OF l`,
    );
  }
}
