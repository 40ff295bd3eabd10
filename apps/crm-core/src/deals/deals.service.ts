import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  pageInfo,
  type Caller,
  type CreateDealRequest,
  type DealDto,
  type DealIdRequest,
  type GetDealRequest,
  type DealListEntry,
  type DealReply,
  type ListDealsReply,
  type ListDealsRequest,
  type PatchDealRequest,
  type UpdateDealRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { savedFilterSql } from '../filters/filters.repository';
import { writeEvent, writeEventWith } from '../outbox/outbox';
import { DEAL_LIST_CONTACTS_CAP, loadContactDtos } from '../read-models';
import { deleteAttachments, moveAttachments, replaceAttachments } from '../records/attachments.repository';
import { normalizeId, replacedList, todayUtc } from '../records/record-common';
import { findContact, findContacts, findUser, type ContactRef } from '../records/record-references.repository';
import {
  assertMayChangeDealFields,
  assertMaySetDealFields,
  assertOneScope,
  dealFieldValues,
  itemAmounts,
  newDeal,
  pickPipelines,
  updateReason,
  updatedDeal,
  wantedPipelines,
  wantsContacts,
  withCommission,
  type DealFieldDefinition,
} from './deal.rules';
import { toDealDto } from './deal.view';
import { DealsRepository, type DealRow, type LockedDeal } from './deals.repository';
import { assertIfMatch } from '../common/if-match.repository';

/**
 * Deals (spec "Deal", decisions.md "Deals and actions"). Every write runs in one transaction with
 * its outbox event; an update locks the deal row first (FOR UPDATE), so concurrent changes of one
 * deal apply one after the other, each to the state the previous one left.
 */
@Injectable()
export class DealsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly deals: DealsRepository,
  ) {}

  async list(caller: Caller, request: ListDealsRequest): Promise<ListDealsReply> {
    const withContacts = wantsContacts(request.fields);
    assertOneScope(request);
    const db = this.dataSource.manager;
    const accountId = caller.account_id;
    const contact = request.contact_id !== undefined ? await findContact(db, accountId, request.contact_id, { field: 'contact_id' }) : null;
    let companyId: string | undefined;
    if (request.company_id !== undefined) {
      const id = normalizeId(request.company_id);
      if (!id || !(await this.deals.companyExists(db, accountId, id)))
        throw ApiError.notFound('company_id names no company of the account');
      companyId = id;
    }
    const savedFilter = request.filter_id !== undefined ? await savedFilterSql(db, accountId, request.filter_id) : undefined;
    const { page, per_page } = request;
    const { rows, total } = await this.deals.list(db, accountId, {
      ...request,
      contactId: contact?.id,
      companyId,
      tag: request.tag?.trim(),
      savedFilter,
      search: request.search?.trim(),
      pipelineId: request.pipeline_id?.trim().toLowerCase(),
      salesPipelineId: request.sales_pipeline_id?.trim().toLowerCase(),
      ownerId: request.owner_id?.trim().toLowerCase(),
      sortBy: request.sort_by,
      perPage: per_page,
    });
    const deals = await this.toDtos(db, accountId, rows, request.include_history === true);
    const entries: DealListEntry[] = withContacts ? await this.withContacts(db, accountId, deals) : deals.map((deal) => ({ deal }));
    return { deals: entries, ...pageInfo(total, page, per_page) };
  }

  async get(caller: Caller, request: GetDealRequest): Promise<DealReply> {
    return { deal: await this.load(this.dataSource.manager, caller.account_id, request.deal_id, request.include_history === true) };
  }

  /** POST /contacts/{contact_id}/deals: the spec's defaults; one transaction with the created event. */
  async create(caller: Caller, request: CreateDealRequest): Promise<DealReply> {
    if (request.name === undefined || request.name === null) throw ApiError.invalid({ name: 'name is required' });
    const accountId = caller.account_id;
    // A plain deal (no items, linked contacts, attachments or fields) is a read and then ONE
    // statement writing the row and its event, atomic on its own: it needs no transaction around
    // them (two round trips instead of BEGIN, the read, the write, COMMIT). Anything else writes
    // several statements, in one transaction.
    const plain =
      !request.deal_items?.length && !request.linked_contact_ids?.length && !request.attachments?.length && !request.deal_fields?.length;
    const write = async (tx: Db): Promise<DealReply> => {
      // The contact, the owner and author, and the pipelines in one round trip.
      const ownerId = request.owner_id ? normalizeId(request.owner_id) : caller.user_id;
      if (!ownerId) throw ApiError.notFound('owner_id names a user that does not exist');
      const contactId = normalizeId(request.contact_id);
      const wanted = wantedPipelines(request.pipeline_id, request.sales_pipeline_id);
      const context = contactId
        ? await this.deals.createContext(
            tx,
            accountId,
            contactId,
            [ownerId, caller.user_id],
            [wanted.pipeline, wanted.sales].filter((id): id is string => id !== null),
          )
        : undefined;
      if (!context) throw ApiError.notFound('Contact not found');
      const contact: ContactRef = context;
      const owner = context.users.find((u) => u.id === ownerId);
      if (!owner) throw ApiError.notFound('owner_id names a user that does not exist');
      const author = context.users.find((u) => u.id === caller.user_id);
      const { pipeline, sales } = pickPipelines(context.pipelines, request.pipeline_id, request.sales_pipeline_id);
      let state = newDeal(request, { contactId: contact.id, ownerId: owner.id, pipeline, salesPipelineId: sales.id, today: todayUtc() });
      if (request.deal_fields && request.deal_fields.length > 0) {
        state.deal_fields = dealFieldValues(await this.deals.fieldDefinitions(tx, accountId), request.deal_fields);
        assertMaySetDealFields(caller.role, state.deal_fields);
      }
      const linked = await linkedContacts(tx, accountId, contact.id, request.linked_contact_ids ?? []);
      state = withCommission({ ...state, ...itemAmounts(request.deal_items ?? []) });
      const id = newId();
      const event = (deal: DealDto) => ({
        account_id: accountId,
        type: 'deal' as const,
        reason: 'created',
        record_id: id,
        contact_status_id: contact.status_id,
        data: { deal },
      });
      let deal: DealDto;
      if (!plain) {
        await this.deals.insert(tx, id, accountId, caller.user_id, state, context.tx_now);
        await this.deals.replaceItems(tx, accountId, id, request.deal_items ?? []);
        await this.deals.replaceLinks(tx, accountId, id, linked);
        if (request.attachments?.length) await replaceAttachments(tx, accountId, 'deal', id, contact.id, request.attachments);
        deal = await this.load(tx, accountId, id);
        await writeEvent(tx, event(deal));
      } else {
        // A plain deal: everything it shows is known here (its timestamps are the context's
        // now()), so the row and its event are written in one statement, and not read back.
        deal = toDealDto(
          {
            id,
            account_id: accountId,
            author_id: caller.user_id,
            ...state,
            created_at: context.tx_now,
            modified_at: context.tx_now,
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
        await writeEventWith(tx, [this.deals.insertChange(id, accountId, caller.user_id, state, context.tx_now)], event(deal));
      }
      return { deal };
    };
    return plain ? write(this.dataSource.manager) : this.dataSource.transaction(write);
  }

  /**
   * PUT (replace; `partial=true` as PATCH) and PATCH: the deal rules (deal.rules.ts) give the new
   * state; the event is `changed_to_<status>` when the status changed, else `updated`.
   */
  async update(caller: Caller, request: UpdateDealRequest | PatchDealRequest, mode: 'put' | 'patch'): Promise<DealReply> {
    const partial = mode === 'patch' || (request as UpdateDealRequest).partial === true;
    if (!partial && (request.name === undefined || request.name === null)) throw ApiError.invalid({ name: 'name is required' });
    const accountId = caller.account_id;
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, accountId, request.deal_id);
      const contact =
        request.contact_id && normalizeId(request.contact_id) !== current.contact_id
          ? await findContact(tx, accountId, request.contact_id, { field: 'contact_id' })
          : null;
      // PUT: an absent owner, pipeline or sales pipeline takes its create default (the caller, the account's defaults).
      const ownerId = request.owner_id
        ? (await findUser(tx, accountId, request.owner_id, 'owner_id')).id
        : partial
          ? current.owner_id
          : caller.user_id;
      let pipelines = null;
      if (request.pipeline_id || request.sales_pipeline_id || !partial) {
        const keep = (sent: string | null | undefined, currentId: string) => sent || (partial ? currentId : null);
        const pipelineId = keep(request.pipeline_id, current.pipeline_id);
        const salesId = keep(request.sales_pipeline_id, current.sales_pipeline_id);
        const wanted = wantedPipelines(pipelineId, salesId);
        const candidates = await this.deals.pipelines(
          tx,
          accountId,
          [wanted.pipeline, wanted.sales].filter((id): id is string => id !== null),
        );
        pipelines = pickPipelines(candidates, pipelineId, salesId);
      }
      let next = updatedDeal(current, request, {
        partial,
        today: todayUtc(),
        contactId: contact?.id ?? current.contact_id,
        ownerId,
        pipelines,
      });
      if (request.deal_fields !== undefined || (!partial && caller.role === 'admin')) {
        const fields = request.deal_fields?.length
          ? dealFieldValues(await this.deals.fieldDefinitions(tx, accountId), request.deal_fields)
          : {};
        assertMayChangeDealFields(caller.role, fields, current.deal_fields);
        next.deal_fields = fields;
      }
      let linked: string[] | null = null;
      if (request.linked_contact_ids !== undefined || !partial || contact) {
        const wanted =
          request.linked_contact_ids !== undefined
            ? (request.linked_contact_ids ?? [])
            : partial
              ? await this.deals.links(tx, current.id)
              : [];
        linked = await linkedContacts(tx, accountId, next.contact_id, wanted);
      }
      const items = replacedList(partial, request.deal_items);
      const amounts = items !== null ? itemAmounts(items) : await this.deals.itemTotals(tx, current.id);
      next = withCommission({ ...next, ...amounts });
      await this.deals.update(tx, current.id, next);
      if (items !== null) await this.deals.replaceItems(tx, accountId, current.id, items);
      if (linked !== null) await this.deals.replaceLinks(tx, accountId, current.id, linked);
      const attachments = replacedList(partial, request.attachments);
      if (attachments !== null) await replaceAttachments(tx, accountId, 'deal', current.id, next.contact_id, attachments);
      else if (contact) await moveAttachments(tx, current.id, next.contact_id);
      const deal = await this.load(tx, accountId, current.id);
      await writeEvent(tx, {
        account_id: accountId,
        type: 'deal',
        reason: updateReason(current.status, next.status),
        record_id: current.id,
        contact_status_id: contact?.status_id ?? current.c_status_id,
        data: { deal },
      });
      return { deal };
    });
  }

  /** Deletes the deal with its items, links and attachments; notes linked to it keep existing, unlinked. */
  async delete(caller: Caller, request: DealIdRequest): Promise<Record<string, never>> {
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, caller.account_id, request.deal_id);
      await this.deals.delete(tx, current.id);
      await deleteAttachments(tx, current.id);
      await writeEvent(tx, {
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

  private async load(db: Db, accountId: string, dealId: string, includeHistory = false): Promise<DealDto> {
    const id = normalizeId(dealId);
    const row = id ? await this.deals.byId(db, accountId, id) : undefined;
    if (!row) throw ApiError.notFound('Deal not found');
    return (await this.toDtos(db, accountId, [row], includeHistory))[0];
  }

  /** The deal row, locked for this transaction; 404 unless it is the account's (and its contact not deleted). */
  private async lock(db: Db, accountId: string, dealId: string): Promise<LockedDeal> {
    const id = normalizeId(dealId);
    const row = id ? await this.deals.lock(db, accountId, id) : undefined;
    if (!row) throw ApiError.notFound('Deal not found');
    await assertIfMatch(db, 'deals', row.id);
    return row;
  }

  /** Rows as Deals; the account's deal field definitions are read only when a row has deal field values. */
  private async toDtos(db: Db, accountId: string, rows: DealRow[], includeHistory: boolean): Promise<DealDto[]> {
    const needsFields = rows.some((row) => row.deal_fields && Object.keys(row.deal_fields).length > 0);
    const definitions = needsFields ? await this.deals.fieldDefinitions(db, accountId) : new Map<string, DealFieldDefinition>();
    return rows.map((row) => toDealDto(row, definitions, { includeHistory }));
  }

  /**
   * `contacts` of each entry: the primary contact, then the linked ones, as full Contact objects,
   * at most DEAL_LIST_CONTACTS_CAP per deal; one query for the whole page.
   */
  private async withContacts(db: Db, accountId: string, deals: DealDto[]): Promise<DealListEntry[]> {
    const idsOf = (d: DealDto) => [d.contact_id, ...d.linked_contacts.map((c) => c.id)].slice(0, DEAL_LIST_CONTACTS_CAP);
    const ids = [...new Set(deals.flatMap(idsOf))];
    const contacts = ids.length > 0 ? await loadContactDtos(db, accountId, ids) : new Map();
    return deals.map((deal) => ({
      deal,
      contacts: idsOf(deal)
        .map((id) => contacts.get(id))
        .filter((c) => c !== undefined),
    }));
  }
}

/** Linked contacts: non-deleted contacts of the account (404 otherwise), the primary one left out. */
async function linkedContacts(db: Db, accountId: string, primaryId: string, ids: readonly string[]): Promise<string[]> {
  const found = await findContacts(db, accountId, ids, 'linked_contact_ids');
  return found.map((c) => c.id).filter((id) => id !== primaryId);
}
