import { Injectable } from '@nestjs/common';
import { accountTimeWhere, execute, many, maybeOne, one, pageLimit, sql, type Db, type TimeFilterInput } from '../common/sql';

/** crm.lead_sources as the service reads it. */
export interface LeadSourceRow {
  id: string;
  text: string;
}

@Injectable()
export class LeadSourcesRepository {
  /** One page in display order: position, then creation. */
  page(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number): Promise<LeadSourceRow[]> {
    return many(
      db,
      sql`SELECT l.id, l.text FROM crm.lead_sources l WHERE ${accountTimeWhere(accountId, time, 'l')}
          ORDER BY l.position, l.created_at, l.id ${pageLimit(page, perPage)}`,
    );
  }

  async count(db: Db, accountId: string, time: TimeFilterInput): Promise<number> {
    const row = await one<{ total: number }>(
      db,
      sql`SELECT count(*)::int AS total FROM crm.lead_sources l WHERE ${accountTimeWhere(accountId, time, 'l')}`,
    );
    return row.total;
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
