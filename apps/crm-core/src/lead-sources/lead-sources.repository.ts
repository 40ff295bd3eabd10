import { Injectable } from '@nestjs/common';
import { accountPage, execute, maybeOne, sql, type AccountList, type Db, type TimeFilterInput } from '../common/sql';

/** crm.lead_sources as the service reads it. */
export interface LeadSourceRow {
  id: string;
  text: string;
}

const LIST: AccountList = {
  from: sql.raw('crm.lead_sources l'),
  alias: 'l',
  columns: sql.raw('l.id, l.text'),
  orderBy: sql.raw('l.position, l.created_at, l.id'),
};

@Injectable()
export class LeadSourcesRepository {
  /** One page in display order: position, then creation. */
  page(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    return accountPage<LeadSourceRow>(db, LIST, accountId, time, page, perPage);
  }

  find(db: Db, accountId: string, id: string, lock = false): Promise<LeadSourceRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT id, text FROM crm.lead_sources WHERE account_id = ${accountId} AND id = ${id} ${lock ? sql`FOR UPDATE` : sql.empty}`,
    );
  }

  /** Appends a lead source after the account's last one. */
  async insert(db: Db, accountId: string, id: string, text: string): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.lead_sources (id, account_id, text, position)
          VALUES (${id}, ${accountId}, ${text}, (SELECT coalesce(max(position), -1) + 1 FROM crm.lead_sources WHERE account_id = ${accountId}))`,
    );
  }

  async rename(db: Db, id: string, text: string): Promise<void> {
    await execute(db, sql`UPDATE crm.lead_sources SET text = ${text}, modified_at = now() WHERE id = ${id}`);
  }

  /** Deletes the lead source; its contacts are left without one (their modified_at moves). */
  async delete(db: Db, accountId: string, id: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.contacts SET lead_source_id = NULL, modified_at = now() WHERE account_id = ${accountId} AND lead_source_id = ${id}`,
    );
    await execute(db, sql`DELETE FROM crm.lead_sources WHERE id = ${id}`);
  }
}
