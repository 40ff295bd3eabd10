import { Injectable } from '@nestjs/common';
import {
  countAndPage,
  escapeLike,
  execute,
  many,
  maybeOne,
  orderDirection,
  pageLimit,
  sql,
  timeFilterConditions,
  type Db,
  type SqlFragment,
  type TimeFilterInput,
} from '../common/sql';
import { searchTermOf } from '../contacts/contact-columns';
import type { TypeVariant } from './contact-relationship.rules';

/** crm.contact_relationships joined with its type's variants (see {@link liveRelationships}). */
export interface ContactRelationshipRow {
  id: string;
  relationship_type_id: string;
  contact_id: string;
  related_contact_id: string;
  symmetrical: boolean;
  variant_id: string;
  variant_name: string;
  other_id: string | null;
  other_name: string | null;
  created_at: Date;
  modified_at: Date;
  /** The two ends' names, photos, companies and owners (`a_` the stored contact_id, `b_` related_contact_id). */
  a_first_name: string;
  a_last_name: string;
  a_photo_url: string;
  a_company_id: string | null;
  a_company_name: string;
  a_owner_id: string;
  b_first_name: string;
  b_last_name: string;
  b_photo_url: string;
  b_company_id: string | null;
  b_company_name: string;
  b_owner_id: string;
}

/**
 * Live relationships (not soft-deleted, other end not deleted) touching `contactId`. A row stores
 * (contact_id, related_contact_id, variant_id): the related contact's label seen from contact_id;
 * a symmetrical type's only variant (also when variant_id is null); `other_*` is the second
 * variant of a directional type.
 */
function liveRelationships(accountId: string, contactId: string, extra: SqlFragment = sql.empty): SqlFragment {
  return sql`
    SELECT r.id, r.relationship_type_id, r.contact_id, r.related_contact_id, t.symmetrical, r.created_at, r.modified_at,
           v.id AS variant_id, v.name AS variant_name, ov.id AS other_id, ov.name AS other_name,
           a.first_name AS a_first_name, a.last_name AS a_last_name, a.photo_url AS a_photo_url, a.company_id AS a_company_id,
           a.company_name AS a_company_name, a.owner_id AS a_owner_id,
           b.first_name AS b_first_name, b.last_name AS b_last_name, b.photo_url AS b_photo_url, b.company_id AS b_company_id,
           b.company_name AS b_company_name, b.owner_id AS b_owner_id
    FROM crm.contact_relationships r
    JOIN crm.relationship_types t ON t.id = r.relationship_type_id
    JOIN crm.relationship_variants v ON v.relationship_type_id = t.id AND (v.id = r.variant_id OR (r.variant_id IS NULL AND v.position = 0))
    LEFT JOIN crm.relationship_variants ov ON ov.relationship_type_id = t.id AND ov.id <> v.id
    JOIN crm.contacts oc ON oc.id = CASE WHEN r.contact_id = ${contactId} THEN r.related_contact_id ELSE r.contact_id END
                        AND oc.account_id = ${accountId} AND oc.deleted_at IS NULL
    JOIN crm.contacts a ON a.id = r.contact_id
    JOIN crm.contacts b ON b.id = r.related_contact_id
    WHERE r.account_id = ${accountId} AND (r.contact_id = ${contactId} OR r.related_contact_id = ${contactId}) AND r.deleted_at IS NULL ${extra}`;
}

/** The filters of GET /contacts/{contact_id}/relationships (ids lower-cased). */
export interface RelationshipListFilter extends TimeFilterInput {
  relationship_type_id?: string;
  contact_id_filter?: string;
  variant_id_filter?: string;
  search?: string;
  symmetrical?: boolean;
  sort_by?: 'created_at' | 'modified_at';
  order?: 'asc' | 'desc';
}

/** The filters as conditions over liveRelationships' aliases (r, t, v, ov, oc), each one AND-prefixed. */
function filterConditions(filter: RelationshipListFilter): SqlFragment {
  const out = timeFilterConditions(filter, 'r');
  if (filter.relationship_type_id !== undefined) out.push(sql`r.relationship_type_id = ${filter.relationship_type_id}`);
  if (filter.contact_id_filter !== undefined) out.push(sql`oc.id = ${filter.contact_id_filter}`);
  if (filter.variant_id_filter !== undefined) out.push(sql`(v.id = ${filter.variant_id_filter} OR ov.id = ${filter.variant_id_filter})`);
  if (filter.symmetrical !== undefined) out.push(sql`t.symmetrical = ${filter.symmetrical}`);
  if (filter.search) {
    const like = `%${escapeLike(filter.search.toLowerCase())}%`;
    const folded = `%${escapeLike(searchTermOf(filter.search))}%`;
    out.push(sql`(oc.search_text LIKE ${folded} OR lower(v.name) LIKE ${like} OR lower(coalesce(ov.name, '')) LIKE ${like})`);
  }
  return out.length === 0 ? sql.empty : sql` AND ${sql.and(out)}`;
}

@Injectable()
export class ContactRelationshipsRepository {
  /**
   * The count and one page of the contact's live relationships matching `filter`, by creation
   * unless `filter.sort_by` says otherwise. Only the contact's own relationships are read (its two
   * end indexes); the filters narrow them.
   */
  page(db: Db, accountId: string, contactId: string, filter: RelationshipListFilter, page: number, perPage: number) {
    const extra = filterConditions(filter);
    const dir = orderDirection(filter.order, 'asc');
    const orderBy = filter.sort_by === 'modified_at' ? sql`r.modified_at ${dir}, r.id ${dir}` : sql`r.created_at ${dir}, r.id ${dir}`;
    return countAndPage<ContactRelationshipRow>(db, {
      from: sql`(${liveRelationships(accountId, contactId, extra)}) x`,
      rows: sql`${liveRelationships(accountId, contactId, extra)} ORDER BY ${orderBy} ${pageLimit(page, perPage)}`,
    });
  }

  find(db: Db, accountId: string, contactId: string, id: string): Promise<ContactRelationshipRow | undefined> {
    return maybeOne(db, liveRelationships(accountId, contactId, sql`AND r.id = ${id}`));
  }

  /** The id of a live (not deleted) contact of the account, if it is one. */
  async liveContactId(db: Db, accountId: string, id: string): Promise<string | undefined> {
    const row = await maybeOne<{ id: string }>(
      db,
      sql`SELECT id FROM crm.contacts WHERE id = ${id} AND account_id = ${accountId} AND deleted_at IS NULL`,
      { prepare: true },
    );
    return row?.id;
  }

  /** The variants of the account's relationship type in position order (none: no such type). */
  typeVariants(db: Db, accountId: string, typeId: string): Promise<TypeVariant[]> {
    return many(
      db,
      sql`SELECT v.id, t.symmetrical FROM crm.relationship_types t JOIN crm.relationship_variants v ON v.relationship_type_id = t.id
          WHERE t.id = ${typeId} AND t.account_id = ${accountId} ORDER BY v.position`,
    );
  }

  async variantExists(db: Db, accountId: string, variantId: string): Promise<boolean> {
    return (
      (await maybeOne(db, sql`SELECT 1 FROM crm.relationship_variants WHERE id = ${variantId} AND account_id = ${accountId}`)) !== undefined
    );
  }

  /**
   * Whether the two contacts have a live relationship of the type, either way round, after taking
   * the pair's transaction lock (`pairKey`): creators of the same pair run one after the other.
   */
  async lockPairAndCheck(
    db: Db,
    accountId: string,
    typeId: string,
    a: string,
    b: string,
    pairKey: string,
    exceptId: string | null = null,
  ): Promise<boolean> {
    await execute(db, sql`SELECT pg_advisory_xact_lock(hashtextextended(${pairKey}, 0))`);
    const except = exceptId ? sql` AND id <> ${exceptId}` : sql.empty;
    const row = await maybeOne(
      db,
      sql`SELECT 1 FROM crm.contact_relationships
          WHERE account_id = ${accountId} AND relationship_type_id = ${typeId} AND deleted_at IS NULL${except}
            AND ((contact_id = ${a} AND related_contact_id = ${b}) OR (contact_id = ${b} AND related_contact_id = ${a}))`,
    );
    return row !== undefined;
  }

  async insert(
    db: Db,
    accountId: string,
    row: { id: string; relationship_type_id: string; contact_id: string; related_contact_id: string; variant_id: string },
  ): Promise<void> {
    await execute(
      db,
      sql`INSERT INTO crm.contact_relationships (id, account_id, relationship_type_id, contact_id, related_contact_id, variant_id)
          VALUES (${row.id}, ${accountId}, ${row.relationship_type_id}, ${row.contact_id}, ${row.related_contact_id}, ${row.variant_id})`,
    );
  }

  /**
   * Replaces a relationship's ends, type and variant (the row keeps its id and creation time);
   * `modified_at` moves only when one of them changes (the same body again changes nothing).
   */
  async replace(
    db: Db,
    row: { id: string; relationship_type_id: string; contact_id: string; related_contact_id: string; variant_id: string },
  ): Promise<void> {
    const values = sql`(${row.relationship_type_id}::varchar, ${row.contact_id}::varchar, ${row.related_contact_id}::varchar, ${row.variant_id}::varchar)`;
    await execute(
      db,
      sql`UPDATE crm.contact_relationships SET relationship_type_id = ${row.relationship_type_id}, contact_id = ${row.contact_id},
          related_contact_id = ${row.related_contact_id}, variant_id = ${row.variant_id},
          modified_at = CASE WHEN (relationship_type_id, contact_id, related_contact_id, variant_id) IS DISTINCT FROM ${values}
                             THEN now() ELSE modified_at END
          WHERE id = ${row.id}`,
    );
  }

  /**
   * Marks a live relationship of the contact (either end) deleted; false when there is none. The
   * contact's relationships deleted more than `undoDays` ago go for good in the same statement, so
   * deleted rows never outgrow what a contact deleted in that window.
   */
  async delete(db: Db, accountId: string, contactId: string, id: string, undoDays: number): Promise<boolean> {
    const touches = sql`account_id = ${accountId} AND (contact_id = ${contactId} OR related_contact_id = ${contactId})`;
    await execute(
      db,
      sql`DELETE FROM crm.contact_relationships WHERE ${touches} AND deleted_at < now() - make_interval(days => ${undoDays}::int)`,
    );
    const n = await execute(
      db,
      sql`UPDATE crm.contact_relationships SET deleted_at = now(), modified_at = now() WHERE id = ${id} AND ${touches} AND deleted_at IS NULL`,
    );
    return n > 0;
  }

  /** A relationship of the contact (either end) deleted within `undoDays`, locked; undefined otherwise. */
  deleted(
    db: Db,
    accountId: string,
    contactId: string,
    id: string,
    undoDays: number,
  ): Promise<{ relationship_type_id: string; contact_id: string; related_contact_id: string } | undefined> {
    return maybeOne(
      db,
      sql`SELECT relationship_type_id, contact_id, related_contact_id FROM crm.contact_relationships
          WHERE id = ${id} AND account_id = ${accountId} AND (contact_id = ${contactId} OR related_contact_id = ${contactId})
            AND deleted_at >= now() - make_interval(days => ${undoDays}::int) FOR UPDATE`,
    );
  }

  /** Makes a deleted relationship live again. */
  async restore(db: Db, id: string): Promise<void> {
    await execute(db, sql`UPDATE crm.contact_relationships SET deleted_at = NULL, modified_at = now() WHERE id = ${id}`);
  }
}
