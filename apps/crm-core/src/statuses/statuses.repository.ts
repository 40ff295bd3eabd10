import { Injectable } from '@nestjs/common';
import { accountPage, execute, maybeOne, one, sql, type AccountList, type Db, type TimeFilterInput } from '../common/sql';
import type { StatusValues } from './status.rules';

/** crm.statuses as the service reads it. */
export interface StatusRow extends StatusValues {
  id: string;
  /** The type key: `lead`, `prospect`, ..., `custom1`, ... */
  status: string;
  is_lead: boolean;
}

const COLUMNS = sql.raw('s.id, s.status, s.text, s.description, s.color, s.is_lead');

const LIST: AccountList = {
  from: sql.raw('crm.statuses s'),
  alias: 's',
  columns: COLUMNS,
  orderBy: sql.raw('s.position, s.created_at, s.id'),
};

@Injectable()
export class StatusesRepository {
  /** One page in display order: position (the lead status first), then creation. */
  page(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    return accountPage<StatusRow>(db, LIST, accountId, time, page, perPage);
  }

  /** The status, locked FOR UPDATE when `lock` (a delete or rename of it waits). */
  find(db: Db, accountId: string, id: string, lock = false): Promise<StatusRow | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${COLUMNS} FROM crm.statuses s WHERE s.account_id = ${accountId} AND s.id = ${id} ${lock ? sql`FOR UPDATE` : sql.empty}`,
    );
  }

  async leadStatusId(db: Db, accountId: string): Promise<string> {
    const row = await one<{ id: string }>(db, sql`SELECT id FROM crm.statuses WHERE account_id = ${accountId} AND is_lead`, {
      prepare: true,
    });
    return row.id;
  }

  /**
   * The number of the account's next custom status (1, 2, ...; never handed out twice). The
   * account row stays locked until the transaction ends, so statuses are made one at a time.
   */
  async nextCustomNumber(db: Db, accountId: string): Promise<number> {
    const row = await one<{ n: number }>(
      db,
      sql`UPDATE crm.accounts SET custom_statuses_made = custom_statuses_made + 1 WHERE id = ${accountId} RETURNING custom_statuses_made AS n`,
    );
    return row.n;
  }

  /** Appends a status with type key `key` after the account's last one. */
  async insert(db: Db, accountId: string, id: string, key: string, values: StatusValues): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.statuses (id, account_id, status, text, description, color, position)
          VALUES (${id}, ${accountId}, ${key}, ${values.text}, ${values.description}, ${values.color},
                  (SELECT coalesce(max(position), -1) + 1 FROM crm.statuses WHERE account_id = ${accountId}))`,
    );
  }

  async update(db: Db, id: string, values: StatusValues): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.statuses SET text = ${values.text}, description = ${values.description}, color = ${values.color}, modified_at = now()
          WHERE id = ${id}`,
    );
  }

  /** Moves the status's contacts (soft-deleted ones too) and syncing companies to `toId`, then deletes it. */
  async deleteMovingTo(db: Db, accountId: string, id: string, toId: string): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.contacts SET status_id = ${toId}, modified_at = now() WHERE account_id = ${accountId} AND status_id = ${id}`,
    );
    await execute(
      db,
      sql`UPDATE crm.companies SET synced_status_id = ${toId}, modified_at = now()
          WHERE account_id = ${accountId} AND synced_status_id = ${id}`,
    );
    await execute(db, sql`DELETE FROM crm.statuses WHERE id = ${id}`);
  }
}
