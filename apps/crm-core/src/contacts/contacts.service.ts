import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  pageInfo,
  type ActionStreamRequest,
  type CascadeContactsRequest,
  type Caller,
  type ChangeOwnerRequest,
  type CascadeReply,
  type ChangeStatusRequest,
  type CloseSalesCycleRequest,
  type ContactFieldsInput,
  type ContactFilterRequest,
  type ContactIdRequest,
  type DeleteContactRequest,
  type ContactIdsRequest,
  type ContactsByFilterRequest,
  type ContactListEntryDto,
  type ContactListResource,
  type ContactTagRequest,
  type ContactWrapperDto,
  type CreateContactRequest,
  type HttpOrigin,
  type ListContactsReply,
  type ListContactsRequest,
  type FilterDto,
  type PatchContactRequest,
  type SplitContactRequest,
  type TeamStreamRequest,
  type UpdateContactRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import {
  contactEventData,
  contactResourceArrays,
  contactWrapperPage,
  fieldDefinitions,
  LIST_ENTRIES,
  loadCompanyDtos,
  loadContactWrappers,
} from '../read-models';
import { FiltersService } from '../filters/filters.service';
import { writeEvent } from '../outbox/outbox';
import { findUser } from '../records/record-references.repository';
import { SummaryService, type SummaryBlocks } from '../summary/summary.service';
import { ContactTagsRepository } from './contact-tags.repository';
import {
  assertCanDelete,
  assertNamed,
  bulkIds,
  CASCADE_BATCH,
  cascadeAfterId,
  closeSalesCycle,
  companySync,
  contactNotFound,
  customFieldValues,
  derivedColumns,
  distinctTagNames,
  listOrder,
  nextSetUrl,
  pathId,
  planContactWrite,
  rangedColumn,
  reopenSalesCycle,
  requestedResources,
  sameState,
  UNDELETE_DAYS,
  type ContactState,
  type WriteMode,
} from './contact.rules';
import { ContactsRepository, type ContactQuery } from './contacts.repository';
import { assertIfMatch } from '../common/if-match.repository';

export interface WithSummary<T> {
  data: T;
  summary: SummaryBlocks;
}

/**
 * Contacts: the list with its filters, the cascade, single-contact reads and writes, deletes and
 * undeletes, status, tags and the sales cycle; and, for the companies module, what a company's
 * change does to its contacts. Every write runs in one transaction with its domain events
 * (outbox) and, where decisions.md says so, the summary blocks counted after it.
 */
@Injectable()
export class ContactsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly contacts: ContactsRepository,
    private readonly tags: ContactTagsRepository,
    private readonly summary: SummaryService,
    private readonly filters: FiltersService,
  ) {}

  async list(caller: Caller, request: ListContactsRequest): Promise<ListContactsReply> {
    const db = this.dataSource.manager;
    const q = await this.filterOf(db, caller, request);
    const order = listOrder(request.sort_by, request.order, rangedColumn(request), 'name');
    // The total, the page and its wrappers in one statement.
    const { ids, total, wrappers } = await contactWrapperPage(
      db,
      caller.account_id,
      this.contacts.page(q, order, request.page, request.per_page),
      caller.user_id,
    );
    const contacts = await this.withResources(db, caller, ids, wrappers, request.fields);
    return { contacts, ...pageInfo(total, request.page, request.per_page) };
  }

  /**
   * GET /action_stream: the contacts with a next action of the caller's, most urgent first
   * (decisions.md "Action stream"), with the filters of GET /contacts; `team` defaults to true.
   */
  async actionStream(caller: Caller, request: ActionStreamRequest): Promise<ListContactsReply> {
    return this.stream(caller, request, caller.user_id);
  }

  /** GET /team_stream: every user's action stream in one list, or `user_id`'s (a user of the account, else 404). */
  async teamStream(caller: Caller, request: TeamStreamRequest): Promise<ListContactsReply> {
    const assignee = request.user_id ? (await findUser(this.dataSource.manager, caller.account_id, request.user_id, 'user_id')).id : null;
    return this.stream(caller, request, assignee);
  }

  /**
   * GET /contacts/filters/{id}: the account's contacts the saved filter matches (every owner), the
   * caller's action stream first in its order, then by name; with the filter.
   */
  async byFilter(caller: Caller, request: ContactsByFilterRequest): Promise<ListContactsReply & { filter: FilterDto }> {
    const db = this.dataSource.manager;
    const { filter } = await this.filters.get(caller, { filter_id: request.filter_id });
    const saved = await this.contacts.savedFilter(db, caller.account_id, filter.id);
    const q = this.contacts.streamed(
      this.contacts.filter(caller.account_id, caller.user_id, { team: true }, saved),
      caller.account_id,
      caller.user_id,
      false,
    );
    const [total, ids] = await Promise.all([
      this.contacts.count(db, q),
      this.contacts.streamPageIds(db, q, null, request.page, request.per_page),
    ]);
    return { filter, contacts: await this.entries(db, caller, ids, undefined), ...pageInfo(total, request.page, request.per_page) };
  }

  /**
   * Batches of 100 in name order, keyset-paged by (sort_name, id) after `last_id` on the
   * (account, [owner,] sort_name, id) indexes: the 500th batch costs what the first does.
   */
  async cascade(caller: Caller, request: CascadeContactsRequest, origin?: HttpOrigin): Promise<CascadeReply> {
    const db = this.dataSource.manager;
    const q = await this.filterOf(db, caller, request);
    const afterId = cascadeAfterId(request.last_id);
    // A contact deleted since it was received still marks the place (its key does not change).
    const after = afterId === null ? null : await this.contacts.nameKey(db, caller.account_id, afterId);
    if (after === undefined) throw contactNotFound();
    const rows = await this.contacts.cascadeBatch(db, q, after, CASCADE_BATCH);
    const end = rows.at(-1);
    const itemsLeft = rows.length === CASCADE_BATCH && end ? await this.contacts.countAfter(db, q, end) : 0;
    const contacts = await loadContactWrappers(
      db,
      caller.account_id,
      rows.map((r) => r.id),
      caller.user_id,
      LIST_ENTRIES,
    );
    return { contacts, items_left: itemsLeft, next_set_url: nextSetUrl(origin, itemsLeft, end?.id ?? null) };
  }

  async get(caller: Caller, request: ContactIdRequest): Promise<ContactWrapperDto> {
    return this.wrapper(this.dataSource.manager, caller, pathId(request.contact_id));
  }

  async create(caller: Caller, request: CreateContactRequest): Promise<ContactWrapperDto> {
    return this.dataSource.transaction(async (tx) => {
      const { state, createdCompany } = await this.resolve(tx, caller, request, null, 'create');
      const id = newId();
      await this.contacts.insert(tx, caller.account_id, id, state, derivedColumns(state));
      await this.tags.set(tx, caller.account_id, id, state.tag_ids);
      if (createdCompany) await this.writeCompanyCreatedEvent(tx, caller.account_id, createdCompany);
      else if (state.company_id) await this.applyCompanySync(tx, caller.account_id, state.company_id, [id]);
      await this.writeContactEvent(tx, caller.account_id, id, 'created');
      return this.wrapper(tx, caller, id);
    });
  }

  /** PUT: replaces the writable fields; `partial=true` merges like PATCH. */
  async update(caller: Caller, request: UpdateContactRequest): Promise<ContactWrapperDto> {
    return this.write(caller, request.contact_id, request, request.partial === true ? 'merge' : 'replace');
  }

  async patch(caller: Caller, request: PatchContactRequest): Promise<ContactWrapperDto> {
    return this.write(caller, request.contact_id, request, 'merge');
  }

  /** DELETE /contacts/{id}: a soft delete (undoable for 30 days; needs delete_contacts); with `undo=true`, restores it as POST /contacts/undelete does (OnePageCRM's undo). */
  async delete(caller: Caller, request: DeleteContactRequest): Promise<Record<string, never>> {
    const id = pathId(request.contact_id);
    await this.dataSource.transaction(async (tx) => {
      assertCanDelete(await this.contacts.userPermissions(tx, caller.account_id, caller.user_id));
      await assertIfMatch(tx, 'contacts', id);
      if (request.undo === true) await this.restore(tx, caller, [id]);
      else await this.softDelete(tx, caller, [id]);
    });
    return {};
  }

  /** DELETE /contacts/delete?ids=: up to 100 contacts, all or none; summary blocks after the change. */
  async deleteMany(caller: Caller, request: ContactIdsRequest): Promise<WithSummary<Record<string, never>>> {
    const ids = bulkIds(request.ids);
    return this.dataSource.transaction(async (tx) => {
      assertCanDelete(await this.contacts.userPermissions(tx, caller.account_id, caller.user_id));
      await this.softDelete(tx, caller, ids);
      return { data: {}, summary: await this.summary.blocks(tx, caller) };
    });
  }

  /** POST /contacts/undelete?ids=: contacts deleted within 30 days, all or none; summary blocks follow. */
  async undelete(caller: Caller, request: ContactIdsRequest): Promise<WithSummary<Record<string, never>>> {
    const ids = bulkIds(request.ids);
    return this.dataSource.transaction(async (tx) => {
      assertCanDelete(await this.contacts.userPermissions(tx, caller.account_id, caller.user_id));
      await this.restore(tx, caller, ids);
      return { data: {}, summary: await this.summary.blocks(tx, caller) };
    });
  }

  /** Restores contacts deleted within UNDELETE_DAYS, all or none (404 without echoing ids); each emits `created`. */
  private async restore(tx: Db, caller: Caller, ids: readonly string[]): Promise<void> {
    const restored = await this.contacts.undelete(tx, caller.account_id, ids, UNDELETE_DAYS);
    // Ids are not echoed: a 404 never tells which of them exist elsewhere.
    if (restored.length !== ids.length)
      throw ApiError.notFound(
        ids.length === 1
          ? `The id names no contact of the account deleted within the last ${UNDELETE_DAYS} days`
          : `Some of the ids name no contact of the account deleted within the last ${UNDELETE_DAYS} days; nothing was restored`,
      );
    // The record exists again for webhook receivers: `created`, with the full payload.
    for (const id of ids) await this.writeContactEvent(tx, caller.account_id, id, 'created');
  }

  async changeStatus(caller: Caller, request: ChangeStatusRequest): Promise<WithSummary<ContactWrapperDto>> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await this.lock(tx, caller, request.contact_id);
      const statusId = pathId(request.status_id, 'Status');
      await this.assertReference(tx, caller, { table: 'statuses', id: statusId, what: 'Status' });
      if (contact.status_id !== statusId) {
        await this.contacts.setStatus(tx, contact.id, statusId);
        await this.writeContactEvent(tx, caller.account_id, contact.id, 'updated');
      }
      return { data: await this.wrapper(tx, caller, contact.id), summary: await this.summary.blocks(tx, caller) };
    });
  }

  async assignTag(caller: Caller, request: ContactTagRequest): Promise<WithSummary<Record<string, never>>> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await this.lock(tx, caller, request.contact_id);
      const [tagId] = await this.resolveTags(tx, caller.account_id, [request.tag_name]);
      if (await this.tags.add(tx, caller.account_id, contact.id, tagId)) await this.touch(tx, caller, contact.id);
      return { data: {}, summary: await this.summary.blocks(tx, caller) };
    });
  }

  /** Removes the tag (any letter case); a tag the contact does not have changes nothing. */
  async unassignTag(caller: Caller, request: ContactTagRequest): Promise<WithSummary<Record<string, never>>> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await this.lock(tx, caller, request.contact_id);
      if (await this.tags.removeByName(tx, caller.account_id, contact.id, request.tag_name)) await this.touch(tx, caller, contact.id);
      return { data: {}, summary: await this.summary.blocks(tx, caller) };
    });
  }

  /** Closes the caller's sales cycle: one `{ user_id, closed_at, comment }` per user (a repeat replaces it). */
  async closeSalesCycle(caller: Caller, request: CloseSalesCycleRequest): Promise<ContactWrapperDto> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await this.lock(tx, caller, request.contact_id);
      return this.closeCycle(tx, caller, contact, request.comment);
    });
  }

  /**
   * Force-closes the caller's sales cycle: the caller's open actions on the contact are deleted
   * (each emits `deleted`), then the cycle closes as close_sales_cycle closes it.
   */
  async forceCloseSalesCycle(caller: Caller, request: CloseSalesCycleRequest): Promise<ContactWrapperDto> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await this.lock(tx, caller, request.contact_id);
      for (const id of await this.contacts.deleteOpenActions(tx, contact.id, caller.user_id))
        await writeEvent(tx, {
          account_id: caller.account_id,
          type: 'action',
          reason: 'deleted',
          record_id: id,
          contact_status_id: contact.status_id,
          data: { id },
        });
      return this.closeCycle(tx, caller, contact, request.comment);
    });
  }

  /** In the caller's transaction, with the contact locked: closes the caller's cycle, emits `updated`, answers the wrapper. */
  private async closeCycle(
    tx: Db,
    caller: Caller,
    contact: { id: string; closed_sales: Parameters<typeof closeSalesCycle>[0] },
    comment: CloseSalesCycleRequest['comment'],
  ): Promise<ContactWrapperDto> {
    await this.contacts.setClosedSales(tx, contact.id, closeSalesCycle(contact.closed_sales, caller.user_id, comment, new Date()));
    await this.writeContactEvent(tx, caller.account_id, contact.id, 'updated');
    return this.wrapper(tx, caller, contact.id);
  }

  /** Reopens the caller's sales cycle with the contact; one that is not closed stays as it is. */
  async reopenSalesCycle(caller: Caller, request: ContactIdRequest): Promise<ContactWrapperDto> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await this.lock(tx, caller, request.contact_id);
      const reopened = reopenSalesCycle(contact.closed_sales, caller.user_id);
      if (reopened.length !== contact.closed_sales.length) {
        await this.contacts.setClosedSales(tx, contact.id, reopened);
        await this.writeContactEvent(tx, caller.account_id, contact.id, 'updated');
      }
      return this.wrapper(tx, caller, contact.id);
    });
  }

  /** The contact's owner becomes a user of the account (else 404). */
  async changeOwner(caller: Caller, request: ChangeOwnerRequest): Promise<ContactWrapperDto> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await this.lock(tx, caller, request.contact_id);
      const owner = await findUser(tx, caller.account_id, request.owner_id, 'owner_id');
      if (await this.contacts.setOwner(tx, contact.id, owner.id))
        await this.writeContactEvent(tx, caller.account_id, contact.id, 'updated');
      return this.wrapper(tx, caller, contact.id);
    });
  }

  /** star (true) and unstar (false): the contact's `starred` flag. */
  async setStarred(caller: Caller, request: ContactIdRequest, starred: boolean): Promise<ContactWrapperDto> {
    return this.dataSource.transaction(async (tx) => {
      const contact = await this.lock(tx, caller, request.contact_id);
      if (await this.contacts.setStarred(tx, contact.id, starred))
        await this.writeContactEvent(tx, caller.account_id, contact.id, 'updated');
      return this.wrapper(tx, caller, contact.id);
    });
  }

  /**
   * The contact leaves its company; with `company_name` it joins the account's company of that
   * name (any letter case) or a new one, as a contact write with that company_name does.
   */
  async split(caller: Caller, request: SplitContactRequest): Promise<ContactWrapperDto> {
    return this.write(caller, request.contact_id, { company_name: request.company_name || null, company_id: null }, 'merge');
  }

  /**
   * POST /contacts/{id}/google_contacts: there is no Google integration, so no user has
   * authorized saving to Google Contacts: 400 for a contact of the account, 404 otherwise.
   */
  async saveToGoogleContacts(caller: Caller, request: ContactIdRequest): Promise<never> {
    await this.wrapper(this.dataSource.manager, caller, pathId(request.contact_id));
    throw ApiError.invalid(
      { contact_id: 'Google Contacts is not connected for this user' },
      'Saving contacts to Google Contacts needs the Google Contacts integration, which is not connected for this user',
    );
  }

  /**
   * What a company's change does to its contacts, in the company's transaction: a new name
   * (`renamedTo`) is renamed on every contact of the company (deleted ones too) with their derived
   * columns; its syncing applies to them; each non-deleted contact that changed gets its `updated` event.
   */
  async companyChanged(tx: Db, accountId: string, companyId: string, renamedTo: string | null): Promise<void> {
    const changed = new Set<string>();
    if (renamedTo !== null) {
      const members = await this.contacts.companyMembers(tx, accountId, companyId);
      await this.contacts.renameCompany(
        tx,
        renamedTo,
        members.map((c) => ({ id: c.id, ...derivedColumns({ ...c, company_name: renamedTo }) })),
      );
      for (const c of members) if (!c.deleted) changed.add(c.id);
    }
    for (const id of await this.applyCompanySync(tx, accountId, companyId)) changed.add(id);
    for (const id of changed) await this.writeContactEvent(tx, accountId, id, 'updated');
  }

  /**
   * Tag names resolved to the account's tags (an existing one in any letter case keeps its
   * spelling; a new name creates the tag), ordered case-insensitively: a company's synced_tags.
   */
  async resolveTagNames(tx: Db, accountId: string, names: readonly string[]): Promise<string[]> {
    return this.tags.names(tx, await this.resolveTags(tx, accountId, names));
  }

  private async write(caller: Caller, contactId: string, input: ContactFieldsInput, mode: WriteMode): Promise<ContactWrapperDto> {
    return this.dataSource.transaction(async (tx) => {
      const current = await this.lock(tx, caller, contactId);
      const { state: next, createdCompany } = await this.resolve(tx, caller, input, current, mode);
      if (!sameState(current, next)) {
        await this.contacts.update(tx, caller.account_id, current.id, next, derivedColumns(next));
        await this.tags.set(tx, caller.account_id, current.id, next.tag_ids);
        if (createdCompany) await this.writeCompanyCreatedEvent(tx, caller.account_id, createdCompany);
        // A contact joining a syncing company takes its status and tags.
        if (next.company_id && next.company_id !== current.company_id)
          await this.applyCompanySync(tx, caller.account_id, next.company_id, [current.id]);
        await this.writeContactEvent(tx, caller.account_id, current.id, 'updated');
      }
      return this.wrapper(tx, caller, current.id);
    });
  }

  /** The state a write leads to (contact.rules planContactWrite), with its references resolved and checked. */
  private async resolve(
    tx: Db,
    caller: Caller,
    input: ContactFieldsInput,
    current: ContactState | null,
    mode: WriteMode,
  ): Promise<{ state: ContactState; createdCompany: string | null }> {
    const accountId = caller.account_id;
    const plan = planContactWrite(input, current, mode, caller.user_id);
    const state = plan.state;
    if (!state.status_id) state.status_id = await this.contacts.leadStatusId(tx, accountId);
    for (const reference of plan.references) await this.assertReference(tx, caller, reference);
    if (plan.customFields)
      state.custom_fields =
        plan.customFields.length > 0 ? customFieldValues(plan.customFields, await fieldDefinitions(tx, accountId, 'custom_fields')) : {};
    if (plan.tags) state.tag_ids = await this.resolveTags(tx, accountId, plan.tags);

    let createdCompany: string | null = null;
    const link = plan.company;
    if (link.kind === 'id') {
      const company = await this.contacts.companyById(tx, accountId, link.id);
      if (!company) throw ApiError.notFound('Company not found');
      Object.assign(state, { company_id: company.id, company_name: company.name });
    } else if (link.kind === 'none') {
      Object.assign(state, { company_id: null, company_name: '' });
    } else if (link.kind === 'name') {
      const company = await this.contacts.companyByName(tx, accountId, link.name, newId());
      Object.assign(state, { company_id: company.id, company_name: company.name });
      if (company.created) createdCompany = company.id;
    }
    assertNamed(state);
    return { state, createdCompany };
  }

  private async stream(caller: Caller, request: ListContactsRequest, assigneeId: string | null): Promise<ListContactsReply> {
    const db = this.dataSource.manager;
    const q = this.contacts.streamed(
      await this.filterOf(db, caller, { ...request, team: request.team ?? true }),
      caller.account_id,
      assigneeId,
      true,
    );
    const order = request.sort_by ? listOrder(request.sort_by, request.order, null, 'name') : null;
    const [total, ids] = await Promise.all([
      this.contacts.count(db, q),
      this.contacts.streamPageIds(db, q, order, request.page, request.per_page),
    ]);
    return { contacts: await this.entries(db, caller, ids, request.fields), ...pageInfo(total, request.page, request.per_page) };
  }

  /** List entries: the contact wrappers of `ids` in that order, with the arrays `fields` asks for. */
  private async entries(db: Db, caller: Caller, ids: string[], fields: string | undefined): Promise<ContactListEntryDto[]> {
    const resources = requestedResources(fields);
    const [wrappers, arrays] = await Promise.all([
      loadContactWrappers(db, caller.account_id, ids, caller.user_id, LIST_ENTRIES),
      contactResourceArrays(db, caller.account_id, ids, resources),
    ]);
    return listEntries(wrappers, resources, arrays);
  }

  /** List entries of wrappers already read (of `ids`), with the arrays `fields` asks for (no statement when none). */
  private async withResources(
    db: Db,
    caller: Caller,
    ids: string[],
    wrappers: ContactWrapperDto[],
    fields: string | undefined,
  ): Promise<ContactListEntryDto[]> {
    const resources = requestedResources(fields);
    return listEntries(wrappers, resources, await contactResourceArrays(db, caller.account_id, ids, resources));
  }

  private async filterOf(db: Db, caller: Caller, request: ContactFilterRequest): Promise<ContactQuery> {
    const saved = request.filter_id ? await this.contacts.savedFilter(db, caller.account_id, request.filter_id) : null;
    return this.contacts.filter(caller.account_id, caller.user_id, request, saved);
  }

  /** The contact's state, locked for update, with its tags; 404 unless it is a non-deleted contact of the account. */
  private async lock(tx: Db, caller: Caller, contactId: string) {
    const row = await this.contacts.lock(tx, caller.account_id, pathId(contactId));
    if (!row) throw contactNotFound();
    await assertIfMatch(tx, 'contacts', row.id);
    return { ...row, tag_ids: await this.tags.ofContact(tx, row.id) };
  }

  private async assertReference(tx: Db, caller: Caller, ref: { table: 'statuses' | 'users' | 'lead_sources'; id: string; what: string }) {
    if (!(await this.contacts.exists(tx, ref.table, caller.account_id, ref.id))) throw ApiError.notFound(`${ref.what} not found`);
  }

  private resolveTags(tx: Db, accountId: string, names: readonly string[]): Promise<string[]> {
    const wanted = distinctTagNames(names);
    return this.tags.ensure(
      tx,
      accountId,
      wanted,
      wanted.map(() => newId()),
    );
  }

  /**
   * A company's syncing applied to its non-deleted contacts (or to `only`, contacts joining it):
   * its status, its tags added. Returns the contacts that changed (their events are the caller's to write).
   */
  private async applyCompanySync(tx: Db, accountId: string, companyId: string, only?: string[]): Promise<string[]> {
    const settings = await this.contacts.companySyncSettings(tx, accountId, companyId);
    if (!settings) return [];
    const sync = companySync(settings);
    const changed = new Set<string>();
    if (sync.statusId) for (const id of await this.contacts.setCompanyStatus(tx, companyId, sync.statusId, only)) changed.add(id);
    if (sync.tagNames.length > 0) {
      const tagged = await this.tags.addToCompany(tx, companyId, sync.tagNames, only);
      await this.contacts.touch(tx, tagged);
      for (const id of tagged) changed.add(id);
    }
    return [...changed];
  }

  private async touch(tx: Db, caller: Caller, contactId: string): Promise<void> {
    await this.contacts.touch(tx, [contactId]);
    await this.writeContactEvent(tx, caller.account_id, contactId, 'updated');
  }

  private async wrapper(db: Db, caller: Caller, id: string): Promise<ContactWrapperDto> {
    const [wrapper] = await loadContactWrappers(db, caller.account_id, [id], caller.user_id);
    if (!wrapper) throw contactNotFound();
    return wrapper;
  }

  /** All or none: every id must name a non-deleted contact of the account (else 404, nothing deleted). */
  private async softDelete(tx: Db, caller: Caller, ids: string[]): Promise<void> {
    const deleted = await this.contacts.softDelete(tx, caller.account_id, ids);
    if (deleted.length !== ids.length)
      throw ApiError.notFound(
        ids.length === 1 ? 'Contact not found' : 'Some of the ids name no contact of the account; nothing was deleted',
      );
    for (const row of deleted)
      await writeEvent(tx, {
        account_id: caller.account_id,
        type: 'contact',
        reason: 'deleted',
        record_id: row.id,
        contact_status_id: row.status_id,
        // `data` is flat `{ id }` (spec Events rule 3).
        data: { id: row.id },
      });
  }

  /** A contact `created`/`updated` event with the full payload (spec Events rule 2). */
  private async writeContactEvent(tx: Db, accountId: string, contactId: string, reason: 'created' | 'updated'): Promise<void> {
    const data = await contactEventData(tx, accountId, contactId);
    await writeEvent(tx, {
      account_id: accountId,
      type: 'contact',
      reason,
      record_id: contactId,
      contact_status_id: data.contact.status_id,
      data: { ...data },
    });
  }

  /** A company `created` event, written once its first contact is linked (so it shows that contact), as GET /companies/{id} shows it. */
  private async writeCompanyCreatedEvent(tx: Db, accountId: string, companyId: string): Promise<void> {
    const company = (await loadCompanyDtos(tx, accountId, [companyId], { withContacts: true, viewerId: null })).get(companyId);
    await writeEvent(tx, { account_id: accountId, type: 'company', reason: 'created', record_id: companyId, data: { company } });
  }
}

/** Each wrapper as a list entry with the `resources` arrays of its contact (empty when it has none). */
function listEntries(
  wrappers: ContactWrapperDto[],
  resources: readonly ContactListResource[],
  arrays: ReadonlyMap<ContactListResource, ReadonlyMap<string, unknown[]>>,
): ContactListEntryDto[] {
  return wrappers.map((wrapper) => {
    const entry: ContactListEntryDto = { ...wrapper };
    for (const resource of resources) entry[resource] = arrays.get(resource)?.get(wrapper.contact.id) ?? [];
    return entry;
  });
}
