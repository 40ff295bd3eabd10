import { Injectable } from '@nestjs/common';
import { execute, many, sql, type Db } from '../common/sql';
import { onlyContacts } from './contacts.repository';

/** Statements on crm.contact_tags and the tags they name (crm.tags). */
@Injectable()
export class ContactTagsRepository {
  /**
   * Creates the tags of these names that the account lacks in any letter case (`ids`: a new id per
   * name); concurrent creators of one name end with the same tag (unique index on lower(name)).
   * Then returns the ids of the account's tags of those names, by id.
   */
  async ensure(db: Db, accountId: string, names: readonly string[], ids: readonly string[]): Promise<string[]> {
    if (names.length === 0) return [];
    // In one order, so two writers creating the same names never wait on each other in a circle.
    const order = names.map((_, i) => i).sort((a, b) => (names[a].toLowerCase() < names[b].toLowerCase() ? -1 : 1));
    await execute(
      db,
      sql`INSERT INTO crm.tags (id, account_id, name)
          SELECT v.id, ${accountId}, v.name FROM unnest(${order.map((i) => ids[i])}::varchar[], ${order.map((i) => names[i])}::text[]) WITH ORDINALITY AS v(id, name, n)
          ORDER BY v.n ON CONFLICT DO NOTHING`,
    );
    const rows = await many<{ id: string }>(
      db,
      sql`SELECT id FROM crm.tags WHERE account_id = ${accountId} AND lower(name) = ANY(${names.map((n) => n.toLowerCase())}::text[]) ORDER BY id`,
    );
    return rows.map((r) => r.id);
  }

  /** Tag names of these ids, ordered case-insensitively. */
  async names(db: Db, ids: readonly string[]): Promise<string[]> {
    if (ids.length === 0) return [];
    const rows = await many<{ name: string }>(db, sql`SELECT name FROM crm.tags WHERE id = ANY(${ids}::varchar[]) ORDER BY lower(name)`);
    return rows.map((r) => r.name);
  }

  /** The contact's tag ids, by id. */
  async ofContact(db: Db, contactId: string): Promise<string[]> {
    const rows = await many<{ tag_id: string }>(
      db,
      sql`SELECT tag_id FROM crm.contact_tags WHERE contact_id = ${contactId} ORDER BY tag_id`,
    );
    return rows.map((r) => r.tag_id);
  }

  /** The contact has exactly these tags afterwards. */
  async set(db: Db, accountId: string, contactId: string, tagIds: readonly string[]): Promise<void> {
    await execute(db, sql`DELETE FROM crm.contact_tags WHERE contact_id = ${contactId} AND NOT (tag_id = ANY(${tagIds}::varchar[]))`);
    if (tagIds.length > 0)
      await execute(
        db,
        sql`INSERT INTO crm.contact_tags (contact_id, tag_id, account_id)
            SELECT ${contactId}, t, ${accountId} FROM unnest(${tagIds}::varchar[]) AS t ON CONFLICT DO NOTHING`,
      );
  }

  /** Adds one tag; false when the contact had it already. */
  async add(db: Db, accountId: string, contactId: string, tagId: string): Promise<boolean> {
    const added = await many(
      db,
      sql`INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) VALUES (${contactId}, ${tagId}, ${accountId}) ON CONFLICT DO NOTHING RETURNING tag_id`,
    );
    return added.length > 0;
  }

  /** Removes the tag of that name (any letter case); false when the contact did not have it. */
  async removeByName(db: Db, accountId: string, contactId: string, name: string): Promise<boolean> {
    const removed = await many(
      db,
      sql`DELETE FROM crm.contact_tags ct USING crm.tags t
          WHERE ct.contact_id = ${contactId} AND ct.tag_id = t.id AND t.account_id = ${accountId} AND lower(t.name) = lower(${name})
          RETURNING ct.tag_id`,
    );
    return removed.length > 0;
  }

  /**
   * Every non-deleted contact of the company (or those of `only`) gets each existing tag named in
   * `lowerNames` (never removed); returns the contacts that gained one.
   */
  async addToCompany(db: Db, companyId: string, lowerNames: readonly string[], only?: readonly string[]): Promise<string[]> {
    const rows = await many<{ id: string }>(
      db,
      sql`WITH ins AS (
            INSERT INTO crm.contact_tags (contact_id, tag_id, account_id)
            SELECT c.id, t.id, c.account_id FROM crm.contacts c JOIN crm.tags t ON t.account_id = c.account_id AND lower(t.name) = ANY(${lowerNames}::text[])
            WHERE c.company_id = ${companyId} AND c.deleted_at IS NULL${onlyContacts(only)}
            ON CONFLICT DO NOTHING RETURNING contact_id)
          SELECT DISTINCT contact_id AS id FROM ins`,
    );
    return rows.map((r) => r.id);
  }
}
