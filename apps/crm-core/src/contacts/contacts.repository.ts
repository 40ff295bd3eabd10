import { Injectable } from '@nestjs/common';
import type { ClosedSaleDto, ContactFilterRequest, ContactSortKey, SortOrder } from '@crm/contracts';
import {
  escapeLike,
  execute,
  many,
  maybeOne,
  one,
  orderDirection,
  pageLimit,
  sql,
  type SqlFragment,
  timeFilterConditions,
  type Db,
  type QueryOptions,
} from '../common/sql';
import { NEXT_STATUSES_SQL, urgencyRank } from '../actions/actions.repository';
import { savedFilterSql } from '../filters/filters.repository';
import { DOCUMENT_ROW_COLUMNS, type ContactPageSql } from '../read-models';
import { digitsOf, fold, searchTermOf } from './contact-columns';
import { STATE_COLUMNS, type CompanySyncSettings, type ContactState } from './contact.rules';

/** A contact's writable columns as stored (crm.contacts), with its id and closed sales. */
export type ContactRow = Omit<ContactState, 'tag_ids'> & { id: string; closed_sales: ClosedSaleDto[] };

/** The derived columns written beside a state. */
export interface DerivedColumns {
  sort_name: string;
  letter: string;
  search_text: string;
}

/** The place of a contact in the name order: the cascade's key. */
export interface NameKey {
  sort_name: string;
  id: string;
}

/** The WHERE of a contact list over `from` (rows of crm.contacts as `c`), with the common table expressions it refers to. */
export interface ContactQuery {
  ctes: SqlFragment[];
  /**
   * Where the contacts come from, as `c`: `crm.contacts c`, or a common table expression of whole
   * contact rows (a search's matches: read once from the heap, never looked up again by id).
   */
  from: SqlFragment;
  where: SqlFragment;
  /**
   * Set when the stored counters answer the query's total: it is the owner scope (`owner_id` null
   * for the whole team), plus only filters the group counters know (status, lead source id, letter,
   * starred, pending deal) as `groups`, conditions over crm.contact_group_counters `k` (migration
   * 1764801000000). No `groups`: the per-owner counters (migration 1764700000000) answer.
   */
  counted?: { account_id: string; owner_id: string | null; groups: SqlFragment[] };
}

const JSON_COLUMNS: ReadonlySet<string> = new Set(['urls', 'phones', 'emails', 'address_list', 'custom_fields']);

/** Sort keys of contact lists as columns of `crm.contacts c` (ties: sort_name, then id). */
export const CONTACT_SORT_COLUMNS: Record<ContactSortKey, SqlFragment> = {
  name: sql.raw('c.sort_name'),
  first_name: sql.raw('lower(c.first_name)'),
  last_name: sql.raw('lower(c.last_name)'),
  company_name: sql.raw('lower(c.company_name)'),
  created_at: sql.raw('c.created_at'),
  modified_at: sql.raw('c.modified_at'),
};

/** From this many rows into a list, a page finds its ids before it reads its rows (see ContactsRepository.page). */
export const DEFERRED_PAGE_OFFSET = 1000;

/** How far into the name order the cascade counts `items_left` from the front. */
export const CASCADE_COUNT_REACH = 20_000;

/** The owner scope with no other filter: the plain list. */
const plain = (q: ContactQuery): boolean => q.counted !== undefined && q.counted.groups.length === 0;
/** A filtered `q`'s statements are planned with their values (db.ts QueryOptions.plan): how many rows they match decides the plan. */
const filteredPlan = (q: ContactQuery): QueryOptions => (plain(q) ? {} : { plan: 'custom' });
/** The same, with the plain list kept prepared (a few texts in all). */
const planOf = (q: ContactQuery): QueryOptions => (plain(q) ? { prepare: true } : filteredPlan(q));

const CONTACTS = sql`crm.contacts c`;
const SEARCH_HITS = sql`search_hits c`;

const withClause = (q: ContactQuery): SqlFragment => (q.ctes.length > 0 ? sql`WITH ${sql.join(q.ctes, ', ')} ` : sql.empty);
const exists = (flag: boolean, query: SqlFragment): SqlFragment => (flag ? sql`EXISTS (${query})` : sql`NOT EXISTS (${query})`);

/**
 * Every SQL statement on crm.contacts (and the company links a contact write makes): the list and
 * cascade filters, the writable state, deletes, the sales cycle, company membership and syncing.
 */
@Injectable()
export class ContactsRepository {
  /** The condition of the account's saved filter `filterId` over `c` (404 when it is not the account's). */
  savedFilter(db: Db, accountId: string, filterId: string): Promise<SqlFragment> {
    return savedFilterSql(db, accountId, filterId);
  }

  /**
   * Every filter of GET /contacts (and the cascade) over the account's non-deleted contacts `c`.
   * Owner scope: `owner_id` when sent, else the caller's contacts unless `team=true`; the
   * `has_actions*` filters are about contacts the caller owns.
   */
  filter(accountId: string, userId: string, f: ContactFilterRequest, saved: SqlFragment | null): ContactQuery {
    const ctes: SqlFragment[] = [];
    let from = CONTACTS;
    const where: SqlFragment[] = [sql`c.account_id = ${accountId}`, sql`c.deleted_at IS NULL`];
    const ownerId = f.owner_id ? f.owner_id.toLowerCase() : f.team !== true ? userId : null;
    if (ownerId !== null) where.push(sql`c.owner_id = ${ownerId}`);
    const scopeOnly = where.length;

    if (f.search) {
      const term = searchTermOf(f.search);
      if (term.length >= 3) {
        // The trigram index finds the matches first (a fence the planner cannot flatten): walking
        // the name index and filtering could read most of the account for a rare term. The
        // matches are whole rows, which the list reads as its contacts: the bitmap scan has
        // fetched them from the heap already, and looking each up again by id (for the page, and
        // again for the total) cost 2-3 times the search itself (bench/results, issue 17).
        ctes.push(
          sql`search_hits AS MATERIALIZED (SELECT s.* FROM crm.contacts s WHERE s.account_id = ${accountId} AND s.search_text LIKE ${`%${escapeLike(term)}%`})`,
        );
        from = SEARCH_HITS;
      } else if (term) {
        // One or two characters have no trigram: a filter over the name order.
        where.push(sql`c.search_text LIKE ${`%${escapeLike(term)}%`}`);
      }
    }
    if (f.phone != null) {
      const digits = digitsOf(f.phone);
      if (!digits) where.push(sql`false`);
      else {
        where.push(sql`c.search_text LIKE ${`%${digits}%`}`);
        where.push(
          sql`EXISTS (SELECT 1 FROM jsonb_array_elements(c.phones) e WHERE regexp_replace(e->>'value', '\\D', '', 'g') = ${digits})`,
        );
      }
    }
    for (const [key, column] of [
      ['email', sql.raw('c.emails')],
      ['url', sql.raw('c.urls')],
    ] as const) {
      const value = f[key];
      if (value == null) continue;
      const folded = fold(value);
      where.push(sql`c.search_text LIKE ${`%${escapeLike(folded)}%`}`);
      where.push(sql`EXISTS (SELECT 1 FROM jsonb_array_elements(${column}) e WHERE lower(e->>'value') = ${folded})`);
    }
    const openActions = sql`SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.status <> 'done'`;
    if (f.action_stream != null)
      where.push(
        exists(
          f.action_stream,
          sql`SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.assignee_id = ${userId} AND a.status IN ${NEXT_STATUSES_SQL}`,
        ),
      );
    if (f.has_actions != null) where.push(sql`c.owner_id = ${userId}`, exists(f.has_actions, openActions));
    if (f.has_actions_for_me != null)
      where.push(sql`c.owner_id = ${userId}`, exists(f.has_actions_for_me, sql`${openActions} AND a.assignee_id = ${userId}`));
    if (f.has_actions_today != null)
      where.push(
        sql`c.owner_id = ${userId}`,
        exists(f.has_actions_today, sql`${openActions} AND a.assignee_id = ${userId} AND a.date = (now() AT TIME ZONE 'UTC')::date`),
      );
    if (f.waiting != null)
      where.push(
        exists(
          f.waiting,
          sql`SELECT 1 FROM crm.actions a WHERE a.contact_id = c.id AND a.assignee_id = ${userId} AND a.status = 'waiting'`,
        ),
      );
    // The filters the group counters know: each as a condition on the contact and one on its group.
    const groups: SqlFragment[] = [];
    const byGroup = (contact: SqlFragment, group: SqlFragment) => {
      where.push(contact);
      groups.push(group);
    };
    // the contact's stored count of pending deals (kept by the triggers of migration 1764200000000)
    if (f.pending_deal != null)
      byGroup(f.pending_deal ? sql`c.pending_deals_count > 0` : sql`c.pending_deals_count = 0`, sql`k.pending = ${f.pending_deal}`);
    if (f.starred != null) byGroup(sql`c.starred = ${f.starred}`, sql`k.starred = ${f.starred}`);
    if (f.letter) byGroup(sql`c.letter = ${f.letter}`, sql`k.letter = ${f.letter}`);
    if (f.custom_field_id && f.custom_field_value != null) {
      const id = f.custom_field_id.toLowerCase();
      const value = f.custom_field_value.toLowerCase();
      where.push(
        sql`(lower(c.custom_fields->>${id}) = ${value} OR (jsonb_typeof(c.custom_fields->${id}) = 'array' AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(c.custom_fields->${id}) v WHERE lower(v) = ${value})))`,
      );
    }
    if (f.lead_source != null)
      where.push(
        sql`c.lead_source_id IN (SELECT ls.id FROM crm.lead_sources ls WHERE ls.account_id = ${accountId} AND lower(ls.text) = lower(${f.lead_source}))`,
      );
    if (f.lead_source_id) {
      const id = f.lead_source_id.toLowerCase();
      byGroup(sql`c.lead_source_id = ${id}`, sql`k.lead_source_id = ${id}`);
    }
    if (f.status_id) {
      const id = f.status_id.toLowerCase();
      byGroup(sql`c.status_id = ${id}`, sql`k.status_id = ${id}`);
    }
    if (f.not_linked_with) {
      // Neither the company's own contacts nor those linked to it (a primary-key probe per contact).
      const companyId = f.not_linked_with.toLowerCase();
      where.push(sql`c.company_id IS DISTINCT FROM ${companyId}`);
      where.push(sql`NOT EXISTS (SELECT 1 FROM crm.company_linked_contacts l WHERE l.company_id = ${companyId} AND l.contact_id = c.id)`);
    }
    if (f.company_id) where.push(sql`c.company_id = ${f.company_id.toLowerCase()}`);
    if (f.tag != null)
      where.push(
        sql`EXISTS (SELECT 1 FROM crm.contact_tags ct JOIN crm.tags t ON t.id = ct.tag_id WHERE ct.contact_id = c.id AND t.account_id = ${accountId} AND lower(t.name) = lower(${f.tag}))`,
      );
    if (saved) where.push(sql`(${saved})`);
    where.push(...timeFilterConditions(f, 'c'));
    const counted =
      ctes.length === 0 && where.length === scopeOnly + groups.length ? { account_id: accountId, owner_id: ownerId, groups } : undefined;
    return { ctes, from, where: sql.and(where), counted };
  }

  async count(db: Db, q: ContactQuery): Promise<number> {
    return (await one<{ total: number }>(db, sql`${withClause(q)}${this.totalSql(q)}`, planOf(q))).total;
  }

  /**
   * `SELECT <total> AS total`: when the stored counters answer (`q.counted`), the per-owner
   * counters' sum for the owner scope alone (at most 16 rows per owner), or the group counters' sum
   * over the matching groups (at most four rows per group the owner's contacts use, whatever their
   * number); else a count of the matching rows.
   */
  private totalSql(q: ContactQuery): SqlFragment {
    if (!q.counted) return sql`SELECT count(*)::int AS total FROM ${q.from} WHERE ${q.where}`;
    const { account_id: accountId, owner_id: ownerId, groups } = q.counted;
    const table = groups.length > 0 ? sql`crm.contact_group_counters` : sql`crm.contact_owner_counters`;
    const owner = ownerId === null ? [] : [sql`k.owner_id = ${ownerId}`];
    return sql`SELECT coalesce(sum(k.contacts_count), 0)::int AS total FROM ${table} k
               WHERE ${sql.and([sql`k.account_id = ${accountId}`, ...owner, ...groups])}`;
  }

  /**
   * One page of `q` in the order `key` `direction` (ties by name, then id, in the same direction)
   * with the list's total, as the wrappers' statement reads it (read-models ContactPageSql): a list
   * page is one statement. The plain list (owner scope and order only: a few dozen texts in all) is
   * the most frequent read and stays prepared; filtered lists vary too much to keep plans.
   *
   * A page past the first {@link DEFERRED_PAGE_OFFSET} rows finds its ids first and reads its rows
   * after (a deferred join): the rows skipped by OFFSET are then index entries only (on the owner's
   * or the account's name index they are all the query needs), not heap rows each numbered by a
   * window. Page 400 of 50,000 contacts: 60 to 14 ms. A page near the front reads its rows directly,
   * which saves the hundred lookups by id the join costs there.
   *
   * The deferred form has its LIMIT and OFFSET in its text and is planned at each call: a generic
   * plan cannot know how far the page is and chose a sort of the whole account over the index
   * (measured: 216 ms, against 10 ms planned with them). Its text then varies with the page, so it
   * is not kept prepared.
   */
  page(q: ContactQuery, order: { key: ContactSortKey; direction: SortOrder }, page: number, perPage: number): ContactPageSql {
    const dir = orderDirection(order.direction, 'asc');
    const key = order.key === 'name' ? null : CONTACT_SORT_COLUMNS[order.key];
    const orderBy = key ? sql`${key} ${dir}, c.sort_name ${dir}, c.id ${dir}` : sql`c.sort_name ${dir}, c.id ${dir}`;
    if ((page - 1) * perPage < DEFERRED_PAGE_OFFSET)
      return {
        ctes: q.ctes,
        rows: sql`SELECT c.id, c.company_id, ${DOCUMENT_ROW_COLUMNS}, row_number() OVER (ORDER BY ${orderBy}) AS n
                  FROM ${q.from} WHERE ${q.where} ORDER BY ${orderBy} ${pageLimit(page, perPage)}`,
        total: this.totalSql(q),
        options: planOf(q),
      };
    return {
      ctes: q.ctes,
      rows: sql`SELECT c.id, c.company_id, ${DOCUMENT_ROW_COLUMNS},
                       row_number() OVER (ORDER BY ${key ? sql`p.k ${dir}, ` : sql.empty}p.sort_name ${dir}, p.id ${dir}) AS n
                FROM (SELECT c.id, ${key ? sql`${key} AS k, ` : sql.empty}c.sort_name FROM ${q.from} WHERE ${q.where}
                      ORDER BY ${orderBy} ${pageLimit(page, perPage, { literal: true })}) p
                -- by primary key, row by row
                CROSS JOIN LATERAL (SELECT * FROM crm.contacts c WHERE c.id = p.id LIMIT 1) c`,
      total: this.totalSql(q),
      options: { plan: 'custom' },
    };
  }

  /**
   * `q` with the action stream of `assigneeId` (every assignee's when null) as the CTE `stream`:
   * each contact's most urgent next action (asap, then dated by date and exact time, then waiting),
   * on the (account, assignee, status, date) index. `only`: just the contacts in that stream.
   */
  streamed(q: ContactQuery, accountId: string, assigneeId: string | null, only: boolean): ContactQuery {
    const assignee = assigneeId ? sql` AND a.assignee_id = ${assigneeId}` : sql.empty;
    const stream = sql`stream AS (SELECT DISTINCT ON (a.contact_id) a.contact_id, ${urgencyRank('a')} AS urgency, a.date, a.exact_time
      FROM crm.actions a WHERE a.account_id = ${accountId} AND a.status IN ${NEXT_STATUSES_SQL}${assignee}
      ORDER BY a.contact_id, urgency, a.date, a.exact_time NULLS LAST)`;
    return {
      ctes: [...q.ctes, stream],
      from: q.from,
      where: only ? sql.and([q.where, sql`c.id IN (SELECT contact_id FROM stream)`]) : q.where,
    };
  }

  /**
   * One page of ids of a {@link streamed} query: in the stream's order (contacts outside it last,
   * by name), or in `order` when a sort was asked for.
   */
  async streamPageIds(
    db: Db,
    q: ContactQuery,
    order: { key: ContactSortKey; direction: SortOrder } | null,
    page: number,
    perPage: number,
  ): Promise<string[]> {
    let orderBy = sql`s.contact_id IS NULL, s.urgency, s.date, s.exact_time NULLS LAST, c.sort_name, c.id`;
    if (order) {
      const dir = orderDirection(order.direction, 'asc');
      orderBy = sql`${CONTACT_SORT_COLUMNS[order.key]} ${dir}, c.sort_name ${dir}, c.id ${dir}`;
    }
    const rows = await many<{ id: string }>(
      db,
      sql`${withClause(q)}SELECT c.id FROM ${q.from} LEFT JOIN stream s ON s.contact_id = c.id WHERE ${q.where} ORDER BY ${orderBy} ${pageLimit(page, perPage)}`,
      filteredPlan(q),
    );
    return rows.map((r) => r.id);
  }

  /** The name-order key of a contact of the account, deleted or not (a deleted one still marks the cascade's place). */
  nameKey(db: Db, accountId: string, id: string): Promise<NameKey | undefined> {
    return maybeOne<NameKey>(db, sql`SELECT sort_name, id FROM crm.contacts WHERE id = ${id} AND account_id = ${accountId}`);
  }

  /** The cascade's batch statement: `limit` contacts in (sort_name, id) order after `after`, on the name index. */
  cascadeBatchStatement(q: ContactQuery, after: NameKey | null, limit: number): SqlFragment {
    const bound = after ? sql` AND (c.sort_name, c.id) > (${after.sort_name}, ${after.id})` : sql.empty;
    return sql`${withClause(q)}SELECT c.id, c.sort_name FROM ${q.from} WHERE ${q.where}${bound} ORDER BY c.sort_name, c.id LIMIT ${limit}`;
  }

  cascadeBatch(db: Db, q: ContactQuery, after: NameKey | null, limit: number): Promise<NameKey[]> {
    return many<NameKey>(db, this.cascadeBatchStatement(q, after, limit), filteredPlan(q));
  }

  /**
   * `items_left` of a cascade batch ending at `end`: the contacts matching `q` after it, counted
   * from the nearer end so no batch pays for counting the whole account. Up to `reach` contacts up
   * to the end, on the name index, subtracted from the total (index-only on the narrow count
   * index); further in, the contacts after the end, read in name order from the bound.
   */
  async countAfter(db: Db, q: ContactQuery, end: NameKey, reach = CASCADE_COUNT_REACH): Promise<number> {
    const upTo = sql`(c.sort_name, c.id) <= (${end.sort_name}, ${end.id})`;
    const { n: before } = await one<{ n: number }>(
      db,
      sql`${withClause(q)}SELECT count(*)::int AS n FROM (SELECT 1 FROM ${q.from} WHERE ${q.where} AND ${upTo} ORDER BY c.sort_name, c.id LIMIT ${reach}) s`,
      filteredPlan(q),
    );
    if (before < reach) return Math.max(0, (await this.count(db, q)) - before);
    // In name order, so the planner reads the name index from the bound rather than the table.
    const { n } = await one<{ n: number }>(
      db,
      sql`${withClause(q)}SELECT count(*)::int AS n FROM (SELECT 1 FROM ${q.from} WHERE ${q.where} AND (c.sort_name, c.id) > (${end.sort_name}, ${end.id}) ORDER BY c.sort_name, c.id) s`,
      filteredPlan(q),
    );
    return n;
  }

  /** The contact's stored state, locked for update; undefined unless it is a non-deleted contact of the account. */
  lock(db: Db, accountId: string, id: string): Promise<ContactRow | undefined> {
    return maybeOne<ContactRow>(
      db,
      sql`SELECT id, ${sql.raw(STATE_COLUMNS.join(', '))}, closed_sales FROM crm.contacts
          WHERE id = ${id} AND account_id = ${accountId} AND deleted_at IS NULL FOR UPDATE`,
    );
  }

  async insert(db: Db, accountId: string, id: string, state: ContactState, derived: DerivedColumns): Promise<void> {
    const values = columnValues(state, derived);
    await execute(
      db,
      sql`INSERT INTO crm.contacts (id, account_id, ${sql.raw(values.map(([c]) => c).join(', '))})
          VALUES (${id}, ${accountId}, ${sql.join(
            values.map(([, v]) => sql`${v}`),
            ', ',
          )})`,
    );
  }

  async update(db: Db, accountId: string, id: string, state: ContactState, derived: DerivedColumns): Promise<void> {
    const values = columnValues(state, derived);
    await execute(
      db,
      sql`UPDATE crm.contacts SET ${sql.join(
        values.map(([c, v]) => sql`${sql.raw(c)} = ${v}`),
        ', ',
      )}, modified_at = now() WHERE id = ${id} AND account_id = ${accountId}`,
    );
  }

  async setStatus(db: Db, id: string, statusId: string): Promise<void> {
    await execute(db, sql`UPDATE crm.contacts SET status_id = ${statusId}, modified_at = now() WHERE id = ${id}`);
  }

  async setClosedSales(db: Db, id: string, closedSales: ClosedSaleDto[]): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.contacts SET closed_sales = ${JSON.stringify(closedSales)}::jsonb, modified_at = now() WHERE id = ${id}`,
    );
  }

  async setStarred(db: Db, id: string, starred: boolean): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`UPDATE crm.contacts SET starred = ${starred}, modified_at = now() WHERE id = ${id} AND starred <> ${starred}`,
      )) > 0
    );
  }

  async setOwner(db: Db, id: string, ownerId: string): Promise<boolean> {
    return (
      (await execute(
        db,
        sql`UPDATE crm.contacts SET owner_id = ${ownerId}, modified_at = now() WHERE id = ${id} AND owner_id <> ${ownerId}`,
      )) > 0
    );
  }

  /**
   * Force-closing a sales cycle: deletes the user's open actions (next and queued) on the contact,
   * on the (contact, assignee, status) index; returns their ids. No queue is left to renumber.
   */
  async deleteOpenActions(db: Db, contactId: string, assigneeId: string): Promise<string[]> {
    const rows = await many<{ id: string }>(
      db,
      sql`DELETE FROM crm.actions WHERE contact_id = ${contactId} AND assignee_id = ${assigneeId} AND status <> 'done' RETURNING id`,
    );
    return rows.map((r) => r.id);
  }

  /** modified_at = now() on the contacts. */
  async touch(db: Db, ids: readonly string[]): Promise<void> {
    if (ids.length === 0) return;
    await execute(db, sql`UPDATE crm.contacts SET modified_at = now() WHERE id = ANY(${ids}::varchar[])`);
  }

  /** Soft-deletes the non-deleted contacts of the account among `ids`; returns those it deleted. */
  softDelete(db: Db, accountId: string, ids: readonly string[]): Promise<Array<{ id: string; status_id: string }>> {
    return many(
      db,
      sql`UPDATE crm.contacts SET deleted_at = now() WHERE account_id = ${accountId} AND id = ANY(${ids}::varchar[]) AND deleted_at IS NULL
          RETURNING id, status_id`,
    );
  }

  /** Restores the contacts of the account among `ids` deleted within `days`; returns the ids restored. */
  async undelete(db: Db, accountId: string, ids: readonly string[], days: number): Promise<string[]> {
    const rows = await many<{ id: string }>(
      db,
      sql`UPDATE crm.contacts SET deleted_at = NULL, modified_at = now()
          WHERE account_id = ${accountId} AND id = ANY(${ids}::varchar[]) AND deleted_at IS NOT NULL AND deleted_at > now() - make_interval(days => ${days})
          RETURNING id`,
    );
    return rows.map((r) => r.id);
  }

  async leadStatusId(db: Db, accountId: string): Promise<string> {
    const row = await maybeOne<{ id: string }>(db, sql`SELECT id FROM crm.statuses WHERE account_id = ${accountId} AND is_lead`);
    if (!row) throw new Error(`account ${accountId} has no lead status`);
    return row.id;
  }

  /** Does `id` name a record of the account in `table`? */
  async exists(db: Db, table: 'statuses' | 'lead_sources' | 'users', accountId: string, id: string): Promise<boolean> {
    const tables = { statuses: sql.raw('crm.statuses'), lead_sources: sql.raw('crm.lead_sources'), users: sql.raw('crm.users') };
    return (await maybeOne(db, sql`SELECT 1 FROM ${tables[table]} WHERE id = ${id} AND account_id = ${accountId}`)) !== undefined;
  }

  /** The permissions of a user of the account (undefined when there is no such user). */
  async userPermissions(db: Db, accountId: string, userId: string): Promise<string[] | undefined> {
    const row = await maybeOne<{ permissions: string[] }>(
      db,
      sql`SELECT permissions FROM crm.users WHERE id = ${userId} AND account_id = ${accountId}`,
    );
    return row?.permissions;
  }

  /** A company of the account by id. */
  companyById(db: Db, accountId: string, id: string): Promise<{ id: string; name: string } | undefined> {
    return maybeOne(db, sql`SELECT id, name FROM crm.companies WHERE id = ${id} AND account_id = ${accountId}`);
  }

  /**
   * The account's company of that name in any letter case, or a new one (`newId`): its id, its
   * spelling, and whether it was created. The unique index on lower(name) makes two concurrent
   * creators of one name share one company.
   */
  async companyByName(db: Db, accountId: string, name: string, newId: string): Promise<{ id: string; name: string; created: boolean }> {
    const inserted = await many(
      db,
      sql`INSERT INTO crm.companies (id, account_id, name) VALUES (${newId}, ${accountId}, ${name}) ON CONFLICT DO NOTHING RETURNING id`,
    );
    const row = await one<{ id: string; name: string }>(
      db,
      sql`SELECT id, name FROM crm.companies WHERE account_id = ${accountId} AND lower(name) = lower(${name})`,
    );
    return { ...row, created: inserted.length > 0 };
  }

  companySyncSettings(db: Db, accountId: string, companyId: string): Promise<CompanySyncSettings | undefined> {
    return maybeOne(
      db,
      sql`SELECT syncing_status, synced_status_id, syncing_tags, synced_tags FROM crm.companies WHERE id = ${companyId} AND account_id = ${accountId}`,
    );
  }

  /** The company's non-deleted contacts (or those of `only`) take `statusId`; returns those that changed. */
  async setCompanyStatus(db: Db, companyId: string, statusId: string, only?: readonly string[]): Promise<string[]> {
    const rows = await many<{ id: string }>(
      db,
      sql`UPDATE crm.contacts c SET status_id = ${statusId}, modified_at = now()
          WHERE c.company_id = ${companyId} AND c.deleted_at IS NULL AND c.status_id <> ${statusId}${onlyContacts(only)} RETURNING c.id`,
    );
    return rows.map((r) => r.id);
  }

  /** Every contact of the company, deleted ones too, with the fields their derived columns follow. */
  companyMembers(
    db: Db,
    accountId: string,
    companyId: string,
  ): Promise<Array<Pick<ContactState, 'first_name' | 'last_name' | 'phones' | 'emails' | 'urls'> & { id: string; deleted: boolean }>> {
    return many(
      db,
      sql`SELECT id, first_name, last_name, phones, emails, urls, deleted_at IS NOT NULL AS deleted
          FROM crm.contacts WHERE account_id = ${accountId} AND company_id = ${companyId}`,
    );
  }

  /** The company's new name on its contacts, with their new derived columns. */
  async renameCompany(db: Db, name: string, contacts: ReadonlyArray<DerivedColumns & { id: string }>): Promise<void> {
    if (contacts.length === 0) return;
    await execute(
      db,
      sql`UPDATE crm.contacts c SET company_name = ${name}, sort_name = v.sort_name, letter = v.letter, search_text = v.search_text, modified_at = now()
          FROM unnest(${contacts.map((d) => d.id)}::varchar[], ${contacts.map((d) => d.sort_name)}::varchar[],
                      ${contacts.map((d) => d.letter)}::varchar[], ${contacts.map((d) => d.search_text)}::text[]) AS v(id, sort_name, letter, search_text)
          WHERE c.id = v.id`,
    );
  }
}

/** ` AND c.id = ANY(...)` when the statement is limited to some contacts. */
export function onlyContacts(only: readonly string[] | undefined): SqlFragment {
  return only ? sql` AND c.id = ANY(${only}::varchar[])` : sql.empty;
}

function columnValues(state: ContactState, derived: DerivedColumns): Array<[string, unknown]> {
  return [
    ...STATE_COLUMNS.map((c): [string, unknown] => [c, JSON_COLUMNS.has(c) ? JSON.stringify(state[c]) : state[c]]),
    ['sort_name', derived.sort_name],
    ['letter', derived.letter],
    ['search_text', derived.search_text],
  ];
}
