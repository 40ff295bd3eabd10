import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  CreateDealRequest,
  DealIdRequest,
  ErrorName,
  ListDealsRequest,
  pageInfo,
  PatchDealRequest,
  UpdateDealRequest,
  type Caller,
  type DealDto,
  type DealFieldInput,
  type DealItemInput,
  type DealListEntry,
  type DealReply,
  type DealStatus,
  type ListDealsReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { loadContactDtos } from '../read-models';
import { preparedQuery } from '../contacts/prepared-query';
import { validateFieldValue } from '../fields/field-values';
import { savedFilterCondition } from '../filters/filter-sql';
import { writeEvent } from '../outbox/outbox';
import {
  firstStageOf,
  pickPipelines,
  pipelineIdsParam,
  pipelinesJson,
  resolvePipelines,
  type PipelineRef,
} from '../pipelines-read/pipelines';
import { deleteAttachments, replaceAttachments } from '../records/attachments';
import {
  findContact,
  findContacts,
  findUsers,
  normalizeId,
  parseRecord,
  todayUtc,
  type ContactRef,
  type UserRef,
} from '../records/record-common';
import { orderSql, timeConditions } from '../records/time-filters';
import { dealFieldDefinitions, dealTotals, money, selectDeals, toDealDto } from './deal.serializer';

/** The stored, writable state of a deal (crm.deals columns). */
interface DealState {
  contact_id: string;
  owner_id: string;
  pipeline_id: string;
  sales_pipeline_id: string;
  name: string;
  text: string;
  status: DealStatus;
  stage: number | null;
  last_stage: number | null;
  expected_close_date: string;
  close_date: string;
  date: string;
  amount: number;
  months: number;
  cost: number;
  commission_base: string;
  commission_type: string;
  commission: number;
  commission_percentage: number;
  reason_lost_id: string | null;
  deal_fields: Record<string, unknown>;
  previous_pipeline_stages: Record<string, number>;
}

interface StoredDeal extends DealState {
  id: string;
  c_status_id: string;
}

const DATE_COLUMNS = new Set(['date', 'expected_close_date', 'close_date']);
const STAGE_MESSAGE = 'stage must be an integer greater than 0 and less than 100';

/**
 * Deals (spec "Deal", decisions.md "Deals and actions"). Every write runs in one transaction with
 * its outbox event; an update locks the deal row first (FOR UPDATE), so concurrent changes of one
 * deal apply one after the other, each to the state the previous one left.
 */
@Injectable()
export class DealsService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListDealsReply> {
    const request = parseRecord(ListDealsRequest, payload);
    const withContacts = parseFields(request.fields);
    const m = this.dataSource.manager;
    const params: unknown[] = [caller.account_id];
    const where = ['d.account_id = $1'];
    const p = (value: unknown) => {
      params.push(value);
      return `$${params.length}`;
    };
    const scopes = (['contact_id', 'company_id', 'tag', 'filter_id'] as const).filter(
      (key) => request[key] !== undefined && request[key] !== '',
    );
    if (scopes.length > 1)
      throw ApiError.invalid(Object.fromEntries(scopes.map((key) => [key, 'use only one of contact_id, company_id, tag, filter_id'])));
    let joinContacts = false;
    if (request.contact_id !== undefined) {
      const contact = await findContact(m, caller.account_id, request.contact_id, { field: 'contact_id' });
      where.push(`d.contact_id = ${p(contact.id)}`);
    }
    if (request.company_id !== undefined) {
      const company = normalizeId(request.company_id);
      const [found] = company
        ? await m.query('SELECT id FROM crm.companies WHERE id = $1 AND account_id = $2', [company, caller.account_id])
        : [];
      if (!found) throw ApiError.notFound('company_id names no company of the account');
      where.push(`c.company_id = ${p(company)}`);
      joinContacts = true;
    }
    if (request.tag !== undefined) {
      where.push(
        `EXISTS (SELECT 1 FROM crm.contact_tags ct JOIN crm.tags t ON t.id = ct.tag_id WHERE ct.contact_id = d.contact_id AND t.account_id = $1 AND lower(t.name) = lower(${p(request.tag.trim())}))`,
      );
    }
    if (request.filter_id !== undefined) {
      const condition = await savedFilterCondition(m, caller.account_id, request.filter_id, params.length + 1);
      params.push(...condition.params);
      where.push(`(${condition.sql})`);
      joinContacts = true;
    }
    if (request.name) where.push(`d.name ILIKE ${p(`%${escapeLike(request.name)}%`)}`);
    if (request.search) {
      const term = p(`%${escapeLike(request.search.trim())}%`);
      where.push(
        `(d.name ILIKE ${term} OR (c.first_name || ' ' || c.last_name) ILIKE ${term} OR (c.last_name || ' ' || c.first_name) ILIKE ${term} OR c.company_name ILIKE ${term})`,
      );
      joinContacts = true;
    }
    if (request.status === 'closed') where.push("d.status IN ('won', 'lost')");
    else if (request.status) where.push(`d.status = ${p(request.status)}`);
    if (request.stage !== undefined) where.push(`d.status = 'pending' AND d.stage = ${p(request.stage)}`);
    if (request.pipeline_id) where.push(`d.pipeline_id = ${p(request.pipeline_id.trim().toLowerCase())}`);
    if (request.sales_pipeline_id) where.push(`d.sales_pipeline_id = ${p(request.sales_pipeline_id.trim().toLowerCase())}`);
    if (request.owner_id) where.push(`d.owner_id = ${p(request.owner_id.trim().toLowerCase())}`);
    where.push(...timeConditions(request, 'd', DATE_COLUMNS, params));
    const condition = where.join(' AND ');
    // Deals of deleted contacts are hidden with them. Without a condition on the contact, the count
    // is every matching deal (an index-only scan) less those of the account's few deleted contacts.
    const [{ total }] = joinContacts
      ? await preparedQuery<{ total: number }>(
          m,
          `SELECT count(*)::int AS total FROM crm.deals d JOIN crm.contacts c ON c.id = d.contact_id WHERE ${condition} AND c.deleted_at IS NULL`,
          params,
        )
      : await preparedQuery<{ total: number }>(
          m,
          `SELECT ((SELECT count(*) FROM crm.deals d WHERE ${condition})
                 - (SELECT count(*) FROM crm.contacts x JOIN crm.deals d ON d.contact_id = x.id WHERE x.account_id = $1 AND x.deleted_at IS NOT NULL AND ${condition}))::int AS total`,
          params,
        );
    const { page, per_page } = request;
    const direction = orderSql(request.order, request.sort_by ? 'asc' : 'desc');
    const order = request.sort_by
      ? `d.${request.sort_by} ${direction} NULLS LAST, d.id ${direction}`
      : `d.date ${direction}, d.id ${direction}`;
    const pageParams = [...params, per_page, (page - 1) * per_page];
    const deals = await selectDeals(
      m,
      caller.account_id,
      `WHERE ${where.join(' AND ')} AND c.deleted_at IS NULL ORDER BY ${order} LIMIT $${params.length + 1} OFFSET $${params.length + 2}`,
      pageParams,
      {
        includeHistory: request.include_history === true,
        customPlan: true,
      },
    );
    let entries: DealListEntry[] = deals.map(({ dto }) => ({ deal: dto }));
    if (withContacts)
      entries = await this.withContacts(
        m,
        caller.account_id,
        deals.map(({ dto }) => dto),
      );
    return { deals: entries, ...pageInfo(total, page, per_page) };
  }

  async get(caller: Caller, payload: unknown): Promise<DealReply> {
    const { deal_id } = parseRecord(DealIdRequest, payload);
    return {
      deal: await this.load(this.dataSource.manager, caller.account_id, deal_id),
    };
  }

  /** POST /contacts/{contact_id}/deals: the spec's defaults; one transaction with the created event. */
  async create(caller: Caller, payload: unknown): Promise<DealReply> {
    const request = parseRecord(CreateDealRequest, payload);
    const name = request.name;
    if (name === undefined || name === null) throw ApiError.invalid({ name: 'name is required' });
    return this.dataSource.transaction(async (m) => {
      // The contact, the owner and author, and the pipelines in one round trip.
      const ownerId = request.owner_id ? normalizeId(request.owner_id) : caller.user_id;
      if (!ownerId) throw ApiError.notFound('owner_id names a user that does not exist');
      const contactId = normalizeId(request.contact_id);
      const [context] = contactId
        ? await preparedQuery<ContactRef & { pipelines: PipelineRef[]; users: UserRef[] }>(
            m,
            `SELECT c.id, c.status_id, c.owner_id, c.first_name, c.last_name, c.company_name, c.company_id, c.photo_url, ${pipelinesJson('$2', '$4')} AS pipelines,
               (SELECT coalesce(json_agg(json_build_object('id', u.id, 'first_name', u.first_name, 'last_name', u.last_name, 'email', u.email)), '[]'::json)
                  FROM crm.users u WHERE u.account_id = $2 AND u.id = ANY($3::varchar[])) AS users
             FROM crm.contacts c WHERE c.id = $1 AND c.account_id = $2 AND c.deleted_at IS NULL`,
            [contactId, caller.account_id, [ownerId, caller.user_id], pipelineIdsParam(request.pipeline_id, request.sales_pipeline_id)],
          )
        : [];
      if (!context) throw ApiError.notFound('Contact not found');
      const contact: ContactRef = context;
      const owner = context.users.find((u) => u.id === ownerId);
      if (!owner) throw ApiError.notFound('owner_id names a user that does not exist');
      const author = context.users.find((u) => u.id === caller.user_id);
      const { pipeline, sales } = pickPipelines(context.pipelines, request.pipeline_id, request.sales_pipeline_id);
      const today = todayUtc();
      const status = request.status ?? 'pending';
      const state: DealState = {
        contact_id: contact.id,
        owner_id: owner.id,
        pipeline_id: pipeline.id,
        sales_pipeline_id: sales.id,
        name,
        text: request.text ?? '',
        status,
        // A stage sent for a won or lost deal is ignored (decisions.md).
        stage: status === 'pending' ? (request.stage ?? firstStageOf(pipeline)) : null,
        last_stage: null,
        expected_close_date: request.expected_close_date ?? today,
        close_date: request.close_date ?? today,
        date: request.date ?? today,
        amount: request.amount ?? 0,
        months: request.months ?? 1,
        cost: request.cost ?? 0,
        commission_base: request.commission_base ?? '',
        commission_type: request.commission_type ?? '',
        commission: request.commission ?? 0,
        commission_percentage: request.commission_percentage ?? 0,
        reason_lost_id: request.reason_lost_id || null,
        deal_fields: {},
        previous_pipeline_stages: {},
      };
      assertStage(state);
      if (request.deal_fields && request.deal_fields.length > 0) {
        state.deal_fields = await resolveDealFields(m, caller.account_id, request.deal_fields);
        if (Object.keys(state.deal_fields).length > 0 && caller.role !== 'admin')
          throw new ApiError(ErrorName.NoPermission, 'Only account administrators can set deal fields');
      }
      const linked = await linkedContacts(m, caller.account_id, contact.id, request.linked_contact_ids ?? []);
      applyItemAmounts(state, request.deal_items ?? []);
      applyCommission(state);
      const id = newId();
      const [stamps] = await preparedQuery<{
        created_at: Date;
        modified_at: Date;
      }>(
        m,
        `WITH ins AS (
           INSERT INTO crm.deals (id, account_id, contact_id, owner_id, author_id, pipeline_id, sales_pipeline_id, name, text, status, stage, last_stage,
             expected_close_date, close_date, date, amount, months, cost, commission_base, commission_type, commission, commission_percentage,
             reason_lost_id, deal_fields, previous_pipeline_stages)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)
           RETURNING created_at, modified_at)
         SELECT created_at, modified_at FROM ins`,
        [id, caller.account_id, state.contact_id, state.owner_id, caller.user_id, ...stateValues(state)],
      );
      let deal: DealDto;
      if (request.deal_items?.length || linked.length > 0 || request.attachments?.length || Object.keys(state.deal_fields).length > 0) {
        await replaceItems(m, caller.account_id, id, request.deal_items ?? []);
        await replaceLinks(m, caller.account_id, id, linked);
        if (request.attachments?.length) await replaceAttachments(m, caller.account_id, 'deal', id, contact.id, request.attachments);
        deal = await this.load(m, caller.account_id, id);
      } else {
        // A plain deal: everything it shows is known here, no need to read it back.
        deal = toDealDto(
          {
            id,
            account_id: caller.account_id,
            author_id: caller.user_id,
            ...state,
            ...stamps,
            c_first_name: contact.first_name,
            c_last_name: contact.last_name,
            c_company_name: contact.company_name,
            c_status_id: contact.status_id,
            o_first_name: owner.first_name,
            o_last_name: owner.last_name,
            o_email: owner.email,
            a_first_name: author?.first_name ?? null,
            a_last_name: author?.last_name ?? null,
            items: [],
            linked: [],
            has_related_notes: false,
            attachments: [],
          },
          new Map(),
        );
      }
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'deal',
        reason: 'created',
        record_id: id,
        contact_status_id: contact.status_id,
        data: { deal },
      });
      return { deal };
    });
  }

  /**
   * PUT (replace; `partial=true` as PATCH) and PATCH. A status change follows decisions.md:
   * pending -> won/lost keeps the stage as last_stage and sets close_date (today unless sent);
   * won/lost -> pending reopens at the stage sent, else last_stage; won <-> lost keeps last_stage.
   * The event is `changed_to_<status>` when the status changed, else `updated`.
   */
  async update(caller: Caller, payload: unknown, mode: 'put' | 'patch'): Promise<DealReply> {
    const request = mode === 'put' ? parseRecord(UpdateDealRequest, payload) : parseRecord(PatchDealRequest, payload);
    const partial = mode === 'patch' || (request as UpdateDealRequest).partial === true;
    if (!partial && (request.name === undefined || request.name === null)) throw ApiError.invalid({ name: 'name is required' });
    return this.dataSource.transaction(async (m) => {
      const current = await this.lock(m, caller.account_id, request.deal_id);
      const today = todayUtc();
      // The value of a field: the one sent (null = its default), else the current one (partial)
      // or its default (replace).
      const pick = <T>(sent: T | null | undefined, currentValue: T, fallback: T): T =>
        sent === undefined ? (partial ? currentValue : fallback) : sent === null ? fallback : sent;
      let contact: ContactRef | null = null;
      const next: DealState = { ...current };
      if (request.contact_id && normalizeId(request.contact_id) !== current.contact_id) {
        contact = await findContact(m, caller.account_id, request.contact_id, {
          field: 'contact_id',
        });
        next.contact_id = contact.id;
      }
      // PUT: an absent owner, pipeline or sales pipeline takes its create default (the caller, the account's defaults).
      if (request.owner_id) next.owner_id = [...(await findUsers(m, caller.account_id, [request.owner_id], 'owner_id')).keys()][0];
      else if (!partial) next.owner_id = caller.user_id;
      let defaultStage = current.stage;
      if (request.pipeline_id || request.sales_pipeline_id || !partial) {
        const keep = (sent: string | null | undefined, currentId: string) => sent || (partial ? currentId : null);
        const { pipeline, sales } = await resolvePipelines(
          m,
          caller.account_id,
          keep(request.pipeline_id, current.pipeline_id),
          keep(request.sales_pipeline_id, current.sales_pipeline_id),
        );
        next.pipeline_id = pipeline.id;
        next.sales_pipeline_id = sales.id;
        if (!partial) defaultStage = firstStageOf(pipeline);
      }
      if (request.name !== undefined && request.name !== null) next.name = request.name;
      next.text = pick(request.text, current.text, '');
      next.date = pick(request.date, current.date, today);
      next.expected_close_date = pick(request.expected_close_date, current.expected_close_date, today);
      next.amount = pick(request.amount, current.amount, 0);
      next.months = pick(request.months, current.months, 1);
      next.cost = pick(request.cost, current.cost, 0);
      next.commission_base = pick(request.commission_base, current.commission_base, '');
      next.commission_type = pick(request.commission_type, current.commission_type, '');
      next.commission = pick(request.commission, current.commission, 0);
      next.commission_percentage = pick(request.commission_percentage, current.commission_percentage, 0);
      next.reason_lost_id =
        request.reason_lost_id === undefined ? (partial ? current.reason_lost_id : null) : request.reason_lost_id || null;
      next.status = request.status ?? (partial ? current.status : 'pending');
      applyTransition(current, next, request, partial, today, defaultStage);
      if (next.pipeline_id !== current.pipeline_id) {
        // Remember the stage the deal had in the pipeline it leaves; coming back restores it.
        const leftAt = current.status === 'pending' ? current.stage : current.last_stage;
        next.previous_pipeline_stages = { ...current.previous_pipeline_stages };
        if (leftAt !== null) next.previous_pipeline_stages[current.pipeline_id] = leftAt;
        const back = current.previous_pipeline_stages[next.pipeline_id];
        if (next.status === 'pending' && (request.stage === undefined || request.stage === null) && back !== undefined) next.stage = back;
      }
      assertStage(next);
      if (request.deal_fields !== undefined || (!partial && caller.role === 'admin')) {
        const fields =
          request.deal_fields && request.deal_fields.length > 0 ? await resolveDealFields(m, caller.account_id, request.deal_fields) : {};
        if (caller.role !== 'admin' && !sameValues(fields, current.deal_fields))
          throw new ApiError(ErrorName.NoPermission, 'Only account administrators can change deal fields');
        next.deal_fields = fields;
      }
      let linked: string[] | null = null;
      if (request.linked_contact_ids !== undefined || !partial || contact) {
        const wanted =
          request.linked_contact_ids !== undefined ? (request.linked_contact_ids ?? []) : partial ? await currentLinks(m, current.id) : [];
        linked = await linkedContacts(m, caller.account_id, next.contact_id, wanted);
      }
      const items = request.deal_items !== undefined ? (request.deal_items ?? []) : partial ? null : [];
      if (items !== null) applyItemAmounts(next, items);
      else if (await hasItems(m, current.id)) await keepItemAmounts(m, current.id, next);
      applyCommission(next);
      await m.query(
        `UPDATE crm.deals SET contact_id = $2, owner_id = $3, pipeline_id = $4, sales_pipeline_id = $5, name = $6, text = $7, status = $8, stage = $9, last_stage = $10,
           expected_close_date = $11, close_date = $12, date = $13, amount = $14, months = $15, cost = $16, commission_base = $17, commission_type = $18,
           commission = $19, commission_percentage = $20, reason_lost_id = $21, deal_fields = $22, previous_pipeline_stages = $23, modified_at = now()
         WHERE id = $1`,
        [current.id, next.contact_id, next.owner_id, ...stateValues(next)],
      );
      if (items !== null) await replaceItems(m, caller.account_id, current.id, items);
      if (linked !== null) await replaceLinks(m, caller.account_id, current.id, linked);
      const attachments = request.attachments !== undefined ? (request.attachments ?? []) : partial ? null : [];
      if (attachments !== null) await replaceAttachments(m, caller.account_id, 'deal', current.id, next.contact_id, attachments);
      else if (contact) await m.query('UPDATE crm.attachments SET contact_id = $2 WHERE record_id = $1', [current.id, next.contact_id]);
      const deal = await this.load(m, caller.account_id, current.id);
      const reason = next.status !== current.status ? `changed_to_${next.status}` : 'updated';
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'deal',
        reason,
        record_id: current.id,
        contact_status_id: contact?.status_id ?? current.c_status_id,
        data: { deal },
      });
      return { deal };
    });
  }

  /** Deletes the deal with its items, links and attachments; notes linked to it keep existing, unlinked. */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    const { deal_id } = parseRecord(DealIdRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const current = await this.lock(m, caller.account_id, deal_id);
      await m.query('DELETE FROM crm.deals WHERE id = $1', [current.id]);
      await deleteAttachments(m, current.id);
      await writeEvent(m, {
        account_id: caller.account_id,
        type: 'deal',
        reason: 'deleted',
        record_id: current.id,
        contact_status_id: current.c_status_id,
        data: { id: current.id },
      });
      return {};
    });
  }

  private async load(m: EntityManager, accountId: string, dealId: string): Promise<DealDto> {
    const id = normalizeId(dealId);
    const [found] = id
      ? await selectDeals(m, accountId, 'WHERE d.id = $1 AND d.account_id = $2 AND c.deleted_at IS NULL', [id, accountId])
      : [];
    if (!found) throw ApiError.notFound('Deal not found');
    return found.dto;
  }

  /** The deal row, locked for this transaction; 404 unless it is the account's (and its contact not deleted). */
  private async lock(m: EntityManager, accountId: string, dealId: string): Promise<StoredDeal> {
    const id = normalizeId(dealId);
    const rows: StoredDeal[] = id
      ? await m.query(
          `SELECT d.id, d.contact_id, d.owner_id, d.pipeline_id, d.sales_pipeline_id, d.name, d.text, d.status, d.stage, d.last_stage,
             d.expected_close_date, d.close_date, d.date, d.amount::float8 AS amount, d.months, d.cost::float8 AS cost, d.commission_base, d.commission_type,
             d.commission::float8 AS commission, d.commission_percentage::float8 AS commission_percentage, d.reason_lost_id, d.deal_fields, d.previous_pipeline_stages,
             c.status_id AS c_status_id
           FROM crm.deals d JOIN crm.contacts c ON c.id = d.contact_id
           WHERE d.id = $1 AND d.account_id = $2 AND c.deleted_at IS NULL FOR UPDATE OF d`,
          [id, accountId],
        )
      : [];
    if (rows.length === 0) throw ApiError.notFound('Deal not found');
    return rows[0];
  }

  /** `contacts` of each entry: the primary contact, then the linked ones, as full Contact objects. */
  private async withContacts(m: EntityManager, accountId: string, deals: DealDto[]): Promise<DealListEntry[]> {
    const ids = [...new Set(deals.flatMap((d) => [d.contact_id, ...d.linked_contacts.map((c) => c.id)]))];
    const contacts = ids.length > 0 ? await loadContactDtos(m, accountId, ids) : new Map();
    return deals.map((deal) => ({
      deal,
      contacts: [deal.contact_id, ...deal.linked_contacts.map((c) => c.id)].map((id) => contacts.get(id)).filter((c) => c !== undefined),
    }));
  }
}

type DealFieldsSent = Omit<PatchDealRequest, 'deal_id'>;

/** `fields`: a comma-separated list of `<resource>(all)`; deals support `contacts`. */
function parseFields(fields: string | undefined): boolean {
  if (fields === undefined || fields.trim() === '') return false;
  const parts = fields.split(',').map((f) => f.trim().toLowerCase());
  if (parts.some((f) => f !== 'contacts(all)'))
    throw ApiError.invalid({
      fields: 'fields must be a comma-separated list of <resource>(all); supported: contacts',
    });
  return true;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

function assertStage(state: DealState): void {
  if (state.status !== 'pending') return;
  if (state.stage === null || !Number.isInteger(state.stage) || state.stage <= 0 || state.stage >= 100)
    throw ApiError.invalid({ stage: STAGE_MESSAGE });
}

/** `defaultStage`: the stage of a pending deal that stays pending without a stage sent (PUT: the pipeline's first stage). */
function applyTransition(
  current: DealState,
  next: DealState,
  request: DealFieldsSent,
  partial: boolean,
  today: string,
  defaultStage: number | null,
): void {
  const sentStage = request.stage ?? undefined;
  const sentClose = request.close_date ?? undefined;
  if (current.status === 'pending' && next.status === 'pending') {
    next.stage = sentStage ?? (partial ? current.stage : defaultStage);
    next.last_stage = null;
    next.close_date = sentClose ?? (partial ? current.close_date : today);
  } else if (current.status === 'pending') {
    // Closing: remember the stage it closed from.
    next.last_stage = current.stage;
    next.stage = null;
    next.close_date = sentClose ?? today;
  } else if (next.status === 'pending') {
    // Reopening.
    next.stage = sentStage ?? current.last_stage ?? 10;
    next.last_stage = null;
    next.close_date = sentClose ?? (partial ? current.close_date : today);
  } else {
    // won <-> lost, or staying closed: a stage sent is ignored.
    next.stage = null;
    next.last_stage = current.last_stage;
    next.close_date = sentClose ?? (partial ? current.close_date : today);
  }
}

/** The values of $6..$25 of the INSERT (and, shifted, of the UPDATE). */
function stateValues(s: DealState): unknown[] {
  return [
    s.pipeline_id,
    s.sales_pipeline_id,
    s.name,
    s.text,
    s.status,
    s.stage,
    s.last_stage,
    s.expected_close_date,
    s.close_date,
    s.date,
    s.amount,
    s.months,
    s.cost,
    s.commission_base,
    s.commission_type,
    s.commission,
    s.commission_percentage,
    s.reason_lost_id,
    JSON.stringify(s.deal_fields),
    JSON.stringify(s.previous_pipeline_stages),
  ];
}

/** With deal items, amount and cost per month are the items' totals (price x qty, cost x qty). */
function applyItemAmounts(state: DealState, items: readonly DealItemInput[]): void {
  if (items.length === 0) return;
  state.amount = money(items.reduce((sum, i) => sum + (i.price ?? 0) * (i.qty ?? 1), 0));
  state.cost = money(items.reduce((sum, i) => sum + (i.cost ?? 0) * (i.qty ?? 1), 0));
}

async function hasItems(m: EntityManager, dealId: string): Promise<boolean> {
  const [row] = await m.query('SELECT EXISTS (SELECT 1 FROM crm.deal_items WHERE deal_id = $1) AS found', [dealId]);
  return row.found === true;
}

async function keepItemAmounts(m: EntityManager, dealId: string, state: DealState): Promise<void> {
  const [row] = await m.query(
    'SELECT coalesce(sum(price * qty), 0)::float8 AS amount, coalesce(sum(cost * qty), 0)::float8 AS cost FROM crm.deal_items WHERE deal_id = $1',
    [dealId],
  );
  state.amount = money(row.amount);
  state.cost = money(row.cost);
}

/** A percentage commission is computed from its base (total amount or margin); others are as sent. */
function applyCommission(state: DealState): void {
  // Stored as numeric(18, 2) and numeric(9, 4): round here so the response shows what is stored.
  state.amount = money(state.amount);
  state.cost = money(state.cost);
  state.commission = money(state.commission);
  state.commission_percentage = Math.round(state.commission_percentage * 10_000) / 10_000;
  if (state.commission_type !== 'percentage') return;
  const totals = dealTotals(state.amount, state.months, state.cost);
  const base = state.commission_base === 'margin' ? totals.margin : totals.total_amount;
  state.commission = money((base * state.commission_percentage) / 100);
}

/** Deal field values checked against the account's deal fields: unknown field 404, bad value 400. */
async function resolveDealFields(m: EntityManager, accountId: string, inputs: readonly DealFieldInput[]): Promise<Record<string, unknown>> {
  const definitions = await dealFieldDefinitions(m, accountId);
  const out: Record<string, unknown> = {};
  for (const [i, entry] of inputs.entries()) {
    const id = normalizeId(entry.deal_field.id);
    const def = id ? definitions.get(id) : undefined;
    if (!id || !def) throw ApiError.notFound(`deal_fields.${i}.deal_field.id names no deal field of the account`);
    const check = validateFieldValue({ type: def.type as never, choices: def.choices }, entry.value);
    if (!check.ok)
      throw ApiError.invalid({
        [`deal_fields.${i}.value`]: `deal_fields.${i}.value ${check.message}`,
      });
    if (check.value === null) delete out[id];
    else out[id] = check.value;
  }
  return out;
}

function sameValues(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
  return keys.every((k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null));
}

/** Linked contacts: non-deleted contacts of the account (404 otherwise), the primary one left out. */
async function linkedContacts(m: EntityManager, accountId: string, primaryId: string, ids: readonly string[]): Promise<string[]> {
  const found = await findContacts(m, accountId, ids, 'linked_contact_ids');
  return found.map((c) => c.id).filter((id) => id !== primaryId);
}

async function currentLinks(m: EntityManager, dealId: string): Promise<string[]> {
  const rows: Array<{ contact_id: string }> = await m.query('SELECT contact_id FROM crm.deal_contacts WHERE deal_id = $1', [dealId]);
  return rows.map((r) => r.contact_id);
}

async function replaceLinks(m: EntityManager, accountId: string, dealId: string, contactIds: readonly string[]): Promise<void> {
  await m.query('DELETE FROM crm.deal_contacts WHERE deal_id = $1 AND NOT (contact_id = ANY($2::varchar[]))', [dealId, [...contactIds]]);
  if (contactIds.length > 0) {
    await m.query(
      'INSERT INTO crm.deal_contacts (deal_id, contact_id, account_id) SELECT $1, unnest($2::varchar[]), $3 ON CONFLICT DO NOTHING',
      [dealId, [...contactIds], accountId],
    );
  }
}

/** Replaces the deal's items (in order): an item sent with the id of one of them updates it. */
async function replaceItems(m: EntityManager, accountId: string, dealId: string, items: readonly DealItemInput[]): Promise<void> {
  const existing: Array<{ id: string }> = await m.query('SELECT id FROM crm.deal_items WHERE deal_id = $1', [dealId]);
  const known = new Set(existing.map((r) => r.id));
  const kept = new Set<string>();
  for (const [position, item] of items.entries()) {
    const id = item.id?.toLowerCase();
    const values = [
      item.name,
      item.description ?? '',
      item.cost ?? 0,
      item.price ?? 0,
      item.qty ?? 1,
      item.predefined_item_id || null,
      position,
    ];
    if (id && known.has(id) && !kept.has(id)) {
      kept.add(id);
      await m.query(
        'UPDATE crm.deal_items SET name = $2, description = $3, cost = $4, price = $5, qty = $6, predefined_item_id = $7, position = $8, modified_at = now() WHERE id = $1',
        [id, ...values],
      );
    } else {
      await m.query(
        'INSERT INTO crm.deal_items (id, account_id, deal_id, name, description, cost, price, qty, predefined_item_id, position) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)',
        [newId(), accountId, dealId, ...values],
      );
    }
  }
  const removed = [...known].filter((id) => !kept.has(id));
  if (removed.length > 0) await m.query('DELETE FROM crm.deal_items WHERE id = ANY($1::varchar[])', [removed]);
}
