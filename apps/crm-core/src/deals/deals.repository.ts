import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import type { DealItemInput, DealStatus } from '@crm/contracts';
import {
  escapeLike,
  execute,
  many,
  maybeOne,
  one,
  orderDirection,
  pageLimit,
  sql,
  timeFilterConditions,
  type Db,
  type SqlFragment,
  type TimeFilterInput,
} from '../common/sql';
import { attachmentsJson } from '../records/attachments.repository';
import { liveRecordCount } from '../records/record-list.repository';
import { CONTACT_REF_COLUMNS, type ContactRef, type UserRef } from '../records/record-references.repository';
import type { DealFieldDefinition, DealState, PipelineRef } from './deal.rules';

/**
 * Everything a Deal shows, in one SELECT over crm.deals aliased `d` (primary contact `c`): items,
 * linked contacts, related notes and attachments as correlated subqueries on indexed columns.
 * Text (no values), so read models can splice it (sql.raw) into their own statements.
 */
export const DEAL_SELECT = `SELECT d.id, d.account_id, d.contact_id, d.owner_id, d.author_id, d.pipeline_id, d.sales_pipeline_id, d.name, d.text, d.status,
    d.stage, d.last_stage, d.expected_close_date, d.close_date, d.date, d.amount, d.months, d.cost, d.commission_base, d.commission_type,
    d.commission, d.commission_percentage, d.reason_lost_id, d.deal_fields, d.previous_pipeline_stages, d.created_at, d.modified_at,
    c.first_name AS c_first_name, c.last_name AS c_last_name, c.company_name AS c_company_name, c.status_id AS c_status_id,
    ou.first_name AS o_first_name, ou.last_name AS o_last_name, ou.email AS o_email,
    au.first_name AS a_first_name, au.last_name AS a_last_name,
    (SELECT coalesce(json_agg(json_build_object('id', i.id, 'name', i.name, 'description', i.description, 'cost', i.cost, 'price', i.price, 'qty', i.qty,
              'predefined_item_id', i.predefined_item_id, 'position', i.position, 'created_at', i.created_at, 'modified_at', i.modified_at) ORDER BY i.position, i.id), '[]'::json)
       FROM crm.deal_items i WHERE i.deal_id = d.id) AS items,
    (SELECT coalesce(json_agg(json_build_object('id', lc.id, 'first_name', lc.first_name, 'last_name', lc.last_name, 'company', lc.company_name, 'photo_url', lc.photo_url) ORDER BY lc.sort_name, lc.id), '[]'::json)
       FROM crm.deal_contacts dc JOIN crm.contacts lc ON lc.id = dc.contact_id WHERE dc.deal_id = d.id AND lc.deleted_at IS NULL) AS linked,
    /* one probe of notes_linked_deal_idx per deal: as an EXISTS, a generic plan may hash every note
       of the table (30,000 notes: 18 ms for any page of deals) */
    coalesce((SELECT true FROM crm.notes n WHERE n.linked_deal_id = d.id LIMIT 1), false) AS has_related_notes,
    ${attachmentsJson('d.id')} AS attachments
  FROM crm.deals d
  JOIN crm.contacts c ON c.id = d.contact_id
  LEFT JOIN crm.users ou ON ou.id = d.owner_id
  LEFT JOIN crm.users au ON au.id = d.author_id`;

const dealSelect = sql.raw(DEAL_SELECT);

/** A crm.deals row as DEAL_SELECT reads it (with its contact, owner, author, items, links, attachments). */
export interface DealRow {
  id: string;
  account_id: string;
  contact_id: string;
  owner_id: string;
  author_id: string;
  pipeline_id: string;
  sales_pipeline_id: string;
  name: string;
  text: string;
  status: DealStatus;
  stage: number | null;
  last_stage: number | null;
  expected_close_date: string | Date;
  close_date: string | Date;
  date: string | Date;
  amount: string | number;
  months: number;
  cost: string | number;
  commission_base: string;
  commission_type: string;
  commission: string | number;
  commission_percentage: string | number;
  reason_lost_id: string | null;
  deal_fields: Record<string, unknown>;
  previous_pipeline_stages: Record<string, number>;
  created_at: Date | string;
  modified_at: Date | string;
  c_first_name: string;
  c_last_name: string;
  c_company_name: string;
  c_status_id: string;
  o_first_name: string | null;
  o_last_name: string | null;
  o_email: string | null;
  a_first_name: string | null;
  a_last_name: string | null;
  items: Array<{
    id: string;
    name: string;
    description: string;
    cost: number | string;
    price: number | string;
    qty: number;
    predefined_item_id: string | null;
    position: number;
    created_at: string;
    modified_at: string;
  }>;
  linked: Array<{ id: string; first_name: string; last_name: string; company: string; photo_url: string }>;
  has_related_notes: boolean;
  attachments: unknown;
}

/** A deal's writable state as stored, locked for an update, with its contact's status. */
export interface LockedDeal extends DealState {
  id: string;
  c_status_id: string;
}

/** GET /deals conditions, resolved by the service (ids checked, the saved filter as a fragment). */
export interface DealListFilter extends TimeFilterInput {
  contactId?: string;
  companyId?: string;
  tag?: string;
  savedFilter?: SqlFragment;
  name?: string;
  search?: string;
  status?: string;
  stage?: number;
  pipelineId?: string;
  salesPipelineId?: string;
  ownerId?: string;
  sortBy?: string;
  order?: 'asc' | 'desc';
  page: number;
  perPage: number;
}

const DATE_COLUMNS = new Set(['date', 'expected_close_date', 'close_date']);
const SORT_COLUMN = /^[a-z_]+$/;

/** The account's deal fields by id (in display order). */
export async function dealFieldDefinitions(db: Db, accountId: string): Promise<Map<string, DealFieldDefinition>> {
  const rows = await many<DealFieldDefinition>(
    db,
    sql`SELECT id, name, type, position, choices FROM crm.fields WHERE account_id = ${accountId} AND field_set = 'deal_fields' ORDER BY position, created_at, id`,
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** The candidate pipelines of an account (its defaults and the ones named), as a JSON array. */
function pipelinesJson(accountId: string, ids: readonly string[]): SqlFragment {
  return sql`(SELECT coalesce(json_agg(json_build_object('id', p.id, 'kind', p.kind, 'is_default', p.is_default, 'stages', p.stages)), '[]'::json)
      FROM crm.pipelines p WHERE p.account_id = ${accountId} AND (p.is_default OR p.id = ANY(${[...ids]}::varchar[])))`;
}

/** Every statement on crm.deals, crm.deal_items and crm.deal_contacts. */
@Injectable()
export class DealsRepository {
  /** See {@link dealFieldDefinitions}. */
  fieldDefinitions(db: Db, accountId: string): Promise<Map<string, DealFieldDefinition>> {
    return dealFieldDefinitions(db, accountId);
  }

  /** The candidate pipelines (the account's defaults and `ids`) in one statement. */
  async pipelines(db: Db, accountId: string, ids: readonly string[]): Promise<PipelineRef[]> {
    const row = await one<{ pipelines: PipelineRef[] }>(db, sql`SELECT ${pipelinesJson(accountId, ids)} AS pipelines`);
    return row.pipelines;
  }

  /**
   * What a new deal needs, in one round trip: its contact (non-deleted, of the account), the
   * users `userIds` of the account, and the candidate pipelines. Undefined without the contact.
   */
  createContext(
    db: Db,
    accountId: string,
    contactId: string,
    userIds: readonly string[],
    pipelineIds: readonly string[],
  ): Promise<(ContactRef & { pipelines: PipelineRef[]; users: UserRef[]; tx_now: Date }) | undefined> {
    return maybeOne(
      db,
      sql`SELECT ${CONTACT_REF_COLUMNS}, ${pipelinesJson(accountId, pipelineIds)} AS pipelines, now() AS tx_now,
            (SELECT coalesce(json_agg(json_build_object('id', u.id, 'first_name', u.first_name, 'last_name', u.last_name, 'email', u.email)), '[]'::json)
               FROM crm.users u WHERE u.account_id = ${accountId} AND u.id = ANY(${[...userIds]}::varchar[])) AS users
          FROM crm.contacts c WHERE c.id = ${contactId} AND c.account_id = ${accountId} AND c.deleted_at IS NULL`,
      { prepare: true },
    );
  }

  /** Inserts a deal created at `at` (see insertChange). */
  async insert(db: Db, id: string, accountId: string, authorId: string, s: DealState, at: Date): Promise<void> {
    await execute(db, this.insertChange(id, accountId, authorId, s, at), { prepare: true });
  }

  /**
   * A new deal as a data-modifying statement (for writeEventWith), created and modified at `at`:
   * the createContext's now(), which the reply and the event show, whether or not the two
   * statements share a transaction.
   */
  insertChange(id: string, accountId: string, authorId: string, s: DealState, at: Date): SqlFragment {
    return sql`INSERT INTO crm.deals (id, account_id, author_id, contact_id, owner_id, pipeline_id, sales_pipeline_id, name, text, status, stage,
            last_stage, expected_close_date, close_date, date, amount, months, cost, commission_base, commission_type, commission,
            commission_percentage, reason_lost_id, deal_fields, previous_pipeline_stages, created_at, modified_at)
          VALUES (${id}, ${accountId}, ${authorId}, ${s.contact_id}, ${s.owner_id}, ${s.pipeline_id}, ${s.sales_pipeline_id}, ${s.name}, ${s.text},
            ${s.status}, ${s.stage}, ${s.last_stage}, ${s.expected_close_date}, ${s.close_date}, ${s.date}, ${s.amount}, ${s.months}, ${s.cost},
            ${s.commission_base}, ${s.commission_type}, ${s.commission}, ${s.commission_percentage}, ${s.reason_lost_id},
            ${JSON.stringify(s.deal_fields)}, ${JSON.stringify(s.previous_pipeline_stages)}, ${at}, ${at})`;
  }

  async update(db: Db, id: string, s: DealState): Promise<void> {
    await execute(
      db,
      sql`UPDATE crm.deals SET contact_id = ${s.contact_id}, owner_id = ${s.owner_id}, pipeline_id = ${s.pipeline_id},
            sales_pipeline_id = ${s.sales_pipeline_id}, name = ${s.name}, text = ${s.text}, status = ${s.status}, stage = ${s.stage},
            last_stage = ${s.last_stage}, expected_close_date = ${s.expected_close_date}, close_date = ${s.close_date}, date = ${s.date},
            amount = ${s.amount}, months = ${s.months}, cost = ${s.cost}, commission_base = ${s.commission_base},
            commission_type = ${s.commission_type}, commission = ${s.commission}, commission_percentage = ${s.commission_percentage},
            reason_lost_id = ${s.reason_lost_id}, deal_fields = ${JSON.stringify(s.deal_fields)},
            previous_pipeline_stages = ${JSON.stringify(s.previous_pipeline_stages)}, modified_at = now()
          WHERE id = ${id}`,
      { prepare: true },
    );
  }

  /** Deletes the deal (its items and links go with it: ON DELETE CASCADE). */
  async delete(db: Db, id: string): Promise<void> {
    await execute(db, sql`DELETE FROM crm.deals WHERE id = ${id}`);
  }

  /** The deal row, locked for this transaction (FOR UPDATE); undefined unless it is the account's and its contact not deleted. */
  lock(db: Db, accountId: string, id: string): Promise<LockedDeal | undefined> {
    return maybeOne<LockedDeal>(
      db,
      sql`SELECT d.id, d.contact_id, d.owner_id, d.pipeline_id, d.sales_pipeline_id, d.name, d.text, d.status, d.stage, d.last_stage,
            d.expected_close_date, d.close_date, d.date, d.amount::float8 AS amount, d.months, d.cost::float8 AS cost, d.commission_base,
            d.commission_type, d.commission::float8 AS commission, d.commission_percentage::float8 AS commission_percentage, d.reason_lost_id,
            d.deal_fields, d.previous_pipeline_stages, c.status_id AS c_status_id
          FROM crm.deals d JOIN crm.contacts c ON c.id = d.contact_id
          WHERE d.id = ${id} AND d.account_id = ${accountId} AND c.deleted_at IS NULL FOR UPDATE OF d`,
      { prepare: true },
    );
  }

  /** One deal as it shows (prepared: planning this SELECT costs more than running it). */
  byId(db: Db, accountId: string, id: string): Promise<DealRow | undefined> {
    return maybeOne<DealRow>(db, sql`${dealSelect} WHERE d.id = ${id} AND d.account_id = ${accountId} AND c.deleted_at IS NULL`, {
      prepare: true,
    });
  }

  async companyExists(db: Db, accountId: string, companyId: string): Promise<boolean> {
    return (await maybeOne(db, sql`SELECT id FROM crm.companies WHERE id = ${companyId} AND account_id = ${accountId}`)) !== undefined;
  }

  /**
   * One page of GET /deals and its total. Deals of deleted contacts are hidden with them. Without a
   * condition on the contact, the count is every matching deal (an index-only scan) less those of
   * the account's few deleted contacts. The page is planned each time (a generic plan cannot know
   * the limit and would build every row of the filter before cutting the page).
   */
  async list(db: Db, accountId: string, filter: DealListFilter): Promise<{ rows: DealRow[]; total: number }> {
    const where: SqlFragment[] = [sql`d.account_id = ${accountId}`];
    let joinContacts = false;
    if (filter.contactId !== undefined) where.push(sql`d.contact_id = ${filter.contactId}`);
    if (filter.companyId !== undefined) {
      // the stored company of the deal's contact, NULL while that contact is deleted (migration 1764200100000)
      where.push(sql`d.company_id = ${filter.companyId}`);
    }
    if (filter.tag !== undefined)
      where.push(
        sql`EXISTS (SELECT 1 FROM crm.contact_tags ct JOIN crm.tags t ON t.id = ct.tag_id
                    WHERE ct.contact_id = d.contact_id AND t.account_id = ${accountId} AND lower(t.name) = lower(${filter.tag}))`,
      );
    if (filter.savedFilter !== undefined) {
      where.push(sql`(${filter.savedFilter})`);
      joinContacts = true;
    }
    if (filter.name) where.push(sql`d.name ILIKE ${`%${escapeLike(filter.name)}%`}`);
    if (filter.search) {
      const term = `%${escapeLike(filter.search)}%`;
      where.push(
        sql`(d.name ILIKE ${term} OR (c.first_name || ' ' || c.last_name) ILIKE ${term} OR (c.last_name || ' ' || c.first_name) ILIKE ${term} OR c.company_name ILIKE ${term})`,
      );
      joinContacts = true;
    }
    if (filter.status === 'closed') where.push(sql`d.status IN ('won', 'lost')`);
    else if (filter.status) where.push(sql`d.status = ${filter.status}`);
    if (filter.stage !== undefined) where.push(sql`d.status = 'pending' AND d.stage = ${filter.stage}`);
    if (filter.pipelineId) where.push(sql`d.pipeline_id = ${filter.pipelineId}`);
    if (filter.salesPipelineId) where.push(sql`d.sales_pipeline_id = ${filter.salesPipelineId}`);
    if (filter.ownerId) where.push(sql`d.owner_id = ${filter.ownerId}`);
    where.push(...timeFilterConditions(filter, 'd', DATE_COLUMNS));
    const condition = sql.and(where);
    const { total } = joinContacts
      ? await one<{ total: number }>(
          db,
          sql`SELECT count(*)::int AS total FROM crm.deals d JOIN crm.contacts c ON c.id = d.contact_id WHERE ${condition} AND c.deleted_at IS NULL`,
          { prepare: true },
        )
      : await one<{ total: number }>(db, liveRecordCount(sql`crm.deals d`, 'd', accountId, condition), { prepare: true });
    const direction = orderDirection(filter.order, filter.sortBy ? 'asc' : 'desc');
    if (filter.sortBy !== undefined && !SORT_COLUMN.test(filter.sortBy)) throw new Error('sort_by names no column');
    const order = filter.sortBy
      ? sql`${sql.raw(`d.${filter.sortBy}`)} ${direction} NULLS LAST, d.id ${direction}`
      : sql`d.date ${direction}, d.id ${direction}`;
    const rows = await many<DealRow>(
      db,
      sql`${dealSelect} WHERE ${condition} AND c.deleted_at IS NULL ORDER BY ${order} ${pageLimit(filter.page, filter.perPage)}`,
    );
    return { rows, total };
  }

  /** The totals of the deal's items (amount and cost per month), or null when it has none. */
  itemTotals(db: Db, dealId: string): Promise<{ amount: number; cost: number } | null> {
    return one<{ amount: number; cost: number; n: number }>(
      db,
      sql`SELECT count(*)::int AS n, coalesce(sum(price * qty), 0)::float8 AS amount, coalesce(sum(cost * qty), 0)::float8 AS cost
          FROM crm.deal_items WHERE deal_id = ${dealId}`,
    ).then((row) => (row.n > 0 ? { amount: row.amount, cost: row.cost } : null));
  }

  /** The deal's linked contacts. */
  async links(db: Db, dealId: string): Promise<string[]> {
    const rows = await many<{ contact_id: string }>(db, sql`SELECT contact_id FROM crm.deal_contacts WHERE deal_id = ${dealId}`);
    return rows.map((r) => r.contact_id);
  }

  /** The deal's linked contacts become `contactIds`. */
  async replaceLinks(db: Db, accountId: string, dealId: string, contactIds: readonly string[]): Promise<void> {
    await execute(
      db,
      sql`DELETE FROM crm.deal_contacts WHERE deal_id = ${dealId} AND NOT (contact_id = ANY(${[...contactIds]}::varchar[]))`,
    );
    if (contactIds.length > 0)
      await execute(
        db,
        sql`INSERT INTO crm.deal_contacts (deal_id, contact_id, account_id)
            SELECT ${dealId}, unnest(${[...contactIds]}::varchar[]), ${accountId} ON CONFLICT DO NOTHING`,
      );
  }

  /** Replaces the deal's items (in order): an item sent with the id of one of them updates it; the others are removed. */
  async replaceItems(db: Db, accountId: string, dealId: string, items: readonly DealItemInput[]): Promise<void> {
    const existing = await many<{ id: string }>(db, sql`SELECT id FROM crm.deal_items WHERE deal_id = ${dealId}`);
    const known = new Set(existing.map((r) => r.id));
    const kept = new Set<string>();
    for (const [position, item] of items.entries()) {
      const id = item.id?.toLowerCase();
      const description = item.description ?? '';
      const cost = item.cost ?? 0;
      const price = item.price ?? 0;
      const qty = item.qty ?? 1;
      const predefined = item.predefined_item_id || null;
      if (id && known.has(id) && !kept.has(id)) {
        kept.add(id);
        await execute(
          db,
          sql`UPDATE crm.deal_items SET name = ${item.name}, description = ${description}, cost = ${cost}, price = ${price}, qty = ${qty},
                predefined_item_id = ${predefined}, position = ${position}, modified_at = now()
              WHERE id = ${id}`,
        );
      } else {
        await execute(
          db,
          sql`INSERT INTO crm.deal_items (id, account_id, deal_id, name, description, cost, price, qty, predefined_item_id, position)
              VALUES (${newId()}, ${accountId}, ${dealId}, ${item.name}, ${description}, ${cost}, ${price}, ${qty}, ${predefined}, ${position})`,
        );
      }
    }
    const removed = [...known].filter((id) => !kept.has(id));
    if (removed.length > 0) await execute(db, sql`DELETE FROM crm.deal_items WHERE id = ANY(${removed}::varchar[])`);
  }
}
