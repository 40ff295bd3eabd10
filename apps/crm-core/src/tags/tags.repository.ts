import { Injectable } from '@nestjs/common';
import { accountPage, execute, maybeOne, sql, type AccountList, type Db, type TimeFilterInput } from '../common/sql';

/** crm.tags as the service reads it. */
export interface TagRow {
  id: string;
  name: string;
}

const LIST: AccountList = {
  from: sql.raw('crm.tags t'),
  alias: 't',
  columns: sql.raw('t.id, t.name'),
  orderBy: sql.raw('lower(t.name), t.id'),
};

@Injectable()
export class TagsRepository {
  /** One page by name (case-insensitive), then id. */
  page(db: Db, accountId: string, time: TimeFilterInput, page: number, perPage: number) {
    return accountPage<TagRow>(db, LIST, accountId, time, page, perPage);
  }

  /** The tag named `name` in any letter case, locked for its deletion. */
  findByNameForUpdate(db: Db, accountId: string, name: string): Promise<TagRow | undefined> {
    return maybeOne(db, sql`SELECT id, name FROM crm.tags WHERE account_id = ${accountId} AND lower(name) = lower(${name}) FOR UPDATE`);
  }

  /**
   * Deletes the tag: its contacts' modified_at moves, companies stop syncing it (any letter case),
   * and the contact links go with it (ON DELETE CASCADE).
   */
  async delete(db: Db, accountId: string, tag: TagRow): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.contacts SET modified_at = now()
          WHERE id IN (SELECT contact_id FROM crm.contact_tags WHERE tag_id = ${tag.id}) AND account_id = ${accountId}`,
    );
    await execute(
      db,
      sql`UPDATE crm.companies SET synced_tags = ARRAY(SELECT t FROM unnest(synced_tags) t WHERE lower(t) <> lower(${tag.name})), modified_at = now()
          WHERE account_id = ${accountId} AND EXISTS (SELECT 1 FROM unnest(synced_tags) t WHERE lower(t) = lower(${tag.name}))`,
    );
    await execute(db, sql`DELETE FROM crm.tags WHERE id = ${tag.id}`);
  }
}
