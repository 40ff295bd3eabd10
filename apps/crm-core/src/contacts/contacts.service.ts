import { Injectable } from '@nestjs/common';
import { newId } from '@crm/common';
import {
  ApiError,
  CascadeContactsRequest,
  ChangeStatusRequest,
  CloseSalesCycleRequest,
  CONTACT_LIMITS,
  CONTACT_LIST_RESOURCES,
  ContactIdRequest,
  ContactIdsRequest,
  ContactTagRequest,
  CreateContactRequest,
  ErrorName,
  ListContactsRequest,
  pageInfo,
  parseContract,
  PatchContactRequest,
  splitIds,
  UpdateContactRequest,
  type Caller,
  type CascadeReply,
  type ContactAddressDto,
  type ContactFieldsInput,
  type ContactListEntryDto,
  type ContactListResource,
  type ContactWrapperDto,
  type HttpOrigin,
  type ListContactsReply,
  type TypedValueDto,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { applyCompanySync } from '../companies/company-sync';
import { SummaryService, type SummaryBlocks } from '../summary/summary.service';
import { contactConditions, contactOrderBy, countItemsLeft } from './contact-query';
import { fieldDefinitions, loadContactWrappers } from './contact-readers';
import {
  assertInAccount,
  companyByName,
  customFieldValues,
  insertContact,
  leadStatusId,
  lockContact,
  notFound,
  pathId,
  resolveTags,
  sameState,
  updateContact,
  writeContactDeletedEvent,
  writeCompanyCreatedEvent,
  writeContactEvent,
  type ContactState,
} from './contact-store';
import { contactResourceArrays } from './record-arrays';

/** Contacts in one cascade batch (spec "Limits"). */
export const CASCADE_BATCH = 100;
/** Deleted contacts can be restored for this long (decisions.md "Contacts"). */
export const UNDELETE_DAYS = 30;

type WriteMode = 'create' | 'replace' | 'merge';

export interface WithSummary<T> {
  data: T;
  summary: SummaryBlocks;
}

/**
 * Contacts: the list with its filters, the cascade, single-contact reads and writes, deletes and
 * undeletes, status, tags and the sales cycle. Every write runs in one transaction with its
 * domain events (outbox) and, where decisions.md says so, the summary blocks counted after it.
 */
@Injectable()
export class ContactsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly summary: SummaryService,
  ) {}

  async list(caller: Caller, payload: unknown): Promise<ListContactsReply> {
    const request = parseContract(ListContactsRequest, payload);
    const m = this.dataSource.manager;
    const { where, ranged } = await contactConditions(m, caller, request);
    const orderBy = contactOrderBy(request.sort_by, request.order, ranged);
    const offset = (request.page - 1) * request.per_page;
    const [[{ total }], rows] = await Promise.all([
      m.query(`${where.withSql}SELECT count(*)::int AS total FROM crm.contacts c WHERE ${where.sql}`, where.params) as Promise<
        Array<{ total: number }>
      >,
      m.query(
        `${where.withSql}SELECT c.id FROM crm.contacts c WHERE ${where.sql} ORDER BY ${orderBy} LIMIT ${request.per_page} OFFSET ${offset}`,
        where.params,
      ) as Promise<Array<{ id: string }>>,
    ]);
    const ids = rows.map((r) => r.id);
    const resources = requestedResources(request.fields);
    const [wrappers, arrays] = await Promise.all([
      loadContactWrappers(m, caller.account_id, ids, caller.user_id),
      contactResourceArrays(m, caller.account_id, ids, resources),
    ]);
    const contacts: ContactListEntryDto[] = wrappers.map((wrapper) => {
      const entry: ContactListEntryDto = { ...wrapper };
      for (const resource of resources) entry[resource] = arrays.get(resource)?.get(wrapper.contact.id) ?? [];
      return entry;
    });
    return { contacts, ...pageInfo(total, request.page, request.per_page) };
  }

  /**
   * Batches of 100 in name order, keyset-paged by (sort_name, id) after `last_id` on the
   * (account, [owner,] sort_name, id) indexes: the 500th batch costs what the first does.
   */
  async cascade(caller: Caller, payload: unknown, origin?: HttpOrigin): Promise<CascadeReply> {
    const request = parseContract(CascadeContactsRequest, payload);
    const m = this.dataSource.manager;
    const { where } = await contactConditions(m, caller, request);
    let batchSql = `${where.withSql}SELECT c.id, c.sort_name FROM crm.contacts c WHERE ${where.sql}`;
    let batchParams = where.params;
    const lastId = request.last_id?.trim();
    if (lastId !== undefined && lastId !== '' && lastId !== '0') {
      const id = pathId(lastId);
      // A contact deleted since it was received still marks the place (its key does not change).
      const [last] = await m.query('SELECT sort_name, id FROM crm.contacts WHERE id = $1 AND account_id = $2', [id, caller.account_id]);
      if (!last) throw notFound();
      batchParams = [...where.params, last.sort_name, last.id];
      batchSql += ` AND (c.sort_name, c.id) > ($${batchParams.length - 1}, $${batchParams.length})`;
    }
    const rows: Array<{ id: string; sort_name: string }> = await m.query(
      `${batchSql} ORDER BY c.sort_name, c.id LIMIT ${CASCADE_BATCH}`,
      batchParams,
    );
    let itemsLeft = 0;
    if (rows.length === CASCADE_BATCH) {
      const end = rows[rows.length - 1];
      itemsLeft = await countItemsLeft(m, where, end);
    }
    const contacts = await loadContactWrappers(
      m,
      caller.account_id,
      rows.map((r) => r.id),
      caller.user_id,
    );
    const nextId = rows.length > 0 ? rows[rows.length - 1].id : null;
    const query = origin?.query ? `?${origin.query}` : '';
    const nextSetUrl = itemsLeft > 0 && nextId ? `${origin?.base_url ?? ''}/contacts/cascade/${nextId}${query}` : null;
    return { contacts, items_left: itemsLeft, next_set_url: nextSetUrl };
  }

  async get(caller: Caller, payload: unknown): Promise<ContactWrapperDto> {
    const { contact_id } = parseContract(ContactIdRequest, payload);
    return this.wrapper(this.dataSource.manager, caller, pathId(contact_id));
  }

  async create(caller: Caller, payload: unknown): Promise<ContactWrapperDto> {
    const input = parseContract(CreateContactRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const { state, createdCompany } = await this.resolve(m, caller, input, null, 'create');
      const id = newId();
      await insertContact(m, caller.account_id, id, state);
      if (createdCompany) await writeCompanyCreatedEvent(m, caller.account_id, createdCompany);
      else if (state.company_id) await applyCompanySync(m, caller.account_id, state.company_id, [id]);
      await writeContactEvent(m, caller.account_id, id, 'created');
      return this.wrapper(m, caller, id);
    });
  }

  /** PUT: replaces the writable fields; `partial=true` merges like PATCH. */
  async update(caller: Caller, payload: unknown): Promise<ContactWrapperDto> {
    const input = parseContract(UpdateContactRequest, payload);
    return this.write(caller, input.contact_id, input, input.partial === true ? 'merge' : 'replace');
  }

  async patch(caller: Caller, payload: unknown): Promise<ContactWrapperDto> {
    const input = parseContract(PatchContactRequest, payload);
    return this.write(caller, input.contact_id, input, 'merge');
  }

  /** DELETE /contacts/{id}: a soft delete (undoable for 30 days); needs delete_contacts. */
  async delete(caller: Caller, payload: unknown): Promise<Record<string, never>> {
    const { contact_id } = parseContract(ContactIdRequest, payload);
    const id = pathId(contact_id);
    await this.dataSource.transaction(async (m) => {
      await this.assertCanDelete(m, caller);
      await this.softDelete(m, caller, [id]);
    });
    return {};
  }

  /** DELETE /contacts/delete?ids=: up to 100 contacts, all or none; summary blocks after the change. */
  async deleteMany(caller: Caller, payload: unknown): Promise<WithSummary<Record<string, never>>> {
    const ids = this.bulkIds(parseContract(ContactIdsRequest, payload).ids);
    return this.dataSource.transaction(async (m) => {
      await this.assertCanDelete(m, caller);
      await this.softDelete(m, caller, ids);
      return { data: {}, summary: await this.summary.blocks(m, caller) };
    });
  }

  /** POST /contacts/undelete?ids=: contacts deleted within 30 days, all or none; summary blocks follow. */
  async undelete(caller: Caller, payload: unknown): Promise<WithSummary<Record<string, never>>> {
    const ids = this.bulkIds(parseContract(ContactIdsRequest, payload).ids);
    return this.dataSource.transaction(async (m) => {
      await this.assertCanDelete(m, caller);
      const restored: Array<{ id: string }> = await m.query(
        `WITH r AS (UPDATE crm.contacts SET deleted_at = NULL, modified_at = now()
                    WHERE account_id = $1 AND id = ANY($2::varchar[]) AND deleted_at IS NOT NULL AND deleted_at > now() - make_interval(days => ${UNDELETE_DAYS})
                    RETURNING id) SELECT id FROM r`,
        [caller.account_id, ids],
      );
      // Ids are not echoed: a 404 never tells which of them exist elsewhere.
      if (restored.length !== ids.length)
        throw ApiError.notFound(
          `Some of the ids name no contact of the account deleted within the last ${UNDELETE_DAYS} days; nothing was restored`,
        );
      // The record exists again for webhook receivers: `created`, with the full payload.
      for (const id of ids) await writeContactEvent(m, caller.account_id, id, 'created');
      return { data: {}, summary: await this.summary.blocks(m, caller) };
    });
  }

  async changeStatus(caller: Caller, payload: unknown): Promise<WithSummary<ContactWrapperDto>> {
    const request = parseContract(ChangeStatusRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const contact = await lockContact(m, caller.account_id, request.contact_id);
      const statusId = pathId(request.status_id, 'Status');
      await assertInAccount(m, 'statuses', caller.account_id, statusId, 'Status');
      if (contact.status_id !== statusId) {
        await m.query('UPDATE crm.contacts SET status_id = $1, modified_at = now() WHERE id = $2', [statusId, contact.id]);
        await writeContactEvent(m, caller.account_id, contact.id, 'updated');
      }
      return { data: await this.wrapper(m, caller, contact.id), summary: await this.summary.blocks(m, caller) };
    });
  }

  async assignTag(caller: Caller, payload: unknown): Promise<WithSummary<Record<string, never>>> {
    const request = parseContract(ContactTagRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const contact = await lockContact(m, caller.account_id, request.contact_id);
      const [tagId] = await resolveTags(m, caller.account_id, [request.tag_name]);
      const added: unknown[] = await m.query(
        'WITH ins AS (INSERT INTO crm.contact_tags (contact_id, tag_id, account_id) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING tag_id) SELECT tag_id FROM ins',
        [contact.id, tagId, caller.account_id],
      );
      if (added.length > 0) await this.touch(m, caller, contact.id);
      return { data: {}, summary: await this.summary.blocks(m, caller) };
    });
  }

  /** Removes the tag (any letter case); a tag the contact does not have changes nothing. */
  async unassignTag(caller: Caller, payload: unknown): Promise<WithSummary<Record<string, never>>> {
    const request = parseContract(ContactTagRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const contact = await lockContact(m, caller.account_id, request.contact_id);
      const removed: unknown[] = await m.query(
        'WITH del AS (DELETE FROM crm.contact_tags ct USING crm.tags t WHERE ct.contact_id = $1 AND ct.tag_id = t.id AND t.account_id = $2 AND lower(t.name) = lower($3) RETURNING ct.tag_id) SELECT tag_id FROM del',
        [contact.id, caller.account_id, request.tag_name],
      );
      if (removed.length > 0) await this.touch(m, caller, contact.id);
      return { data: {}, summary: await this.summary.blocks(m, caller) };
    });
  }

  /** Closes the caller's sales cycle: one `{ user_id, closed_at, comment }` per user (a repeat replaces it). */
  async closeSalesCycle(caller: Caller, payload: unknown): Promise<ContactWrapperDto> {
    const request = parseContract(CloseSalesCycleRequest, payload);
    return this.dataSource.transaction(async (m) => {
      const contact = await lockContact(m, caller.account_id, request.contact_id);
      const sale = { user_id: caller.user_id, closed_at: Math.floor(Date.now() / 1000), comment: request.comment ?? '' };
      await m.query(
        `UPDATE crm.contacts SET closed_sales = coalesce((SELECT jsonb_agg(s) FROM jsonb_array_elements(closed_sales) s WHERE s->>'user_id' <> $2), '[]'::jsonb) || jsonb_build_array($3::jsonb), modified_at = now() WHERE id = $1`,
        [contact.id, caller.user_id, JSON.stringify(sale)],
      );
      await writeContactEvent(m, caller.account_id, contact.id, 'updated');
      return this.wrapper(m, caller, contact.id);
    });
  }

  private async write(caller: Caller, contactId: string, input: ContactFieldsInput, mode: WriteMode): Promise<ContactWrapperDto> {
    return this.dataSource.transaction(async (m) => {
      const current = await lockContact(m, caller.account_id, contactId);
      const { state: next, createdCompany } = await this.resolve(m, caller, input, current, mode);
      if (!sameState(current, next)) {
        await updateContact(m, current.id, caller.account_id, next);
        if (createdCompany) await writeCompanyCreatedEvent(m, caller.account_id, createdCompany);
        // A contact joining a syncing company takes its status and tags.
        if (next.company_id && next.company_id !== current.company_id)
          await applyCompanySync(m, caller.account_id, next.company_id, [current.id]);
        await writeContactEvent(m, caller.account_id, current.id, 'updated');
      }
      return this.wrapper(m, caller, current.id);
    });
  }

  private async touch(m: EntityManager, caller: Caller, contactId: string): Promise<void> {
    await m.query('UPDATE crm.contacts SET modified_at = now() WHERE id = $1', [contactId]);
    await writeContactEvent(m, caller.account_id, contactId, 'updated');
  }

  private async wrapper(m: EntityManager, caller: Caller, id: string): Promise<ContactWrapperDto> {
    const [wrapper] = await loadContactWrappers(m, caller.account_id, [id], caller.user_id);
    if (!wrapper) throw notFound();
    return wrapper;
  }

  /**
   * The state a write leads to. create: absent fields get defaults (status: lead, owner: the
   * caller); replace (PUT): absent fields are cleared or take those defaults; merge (PATCH,
   * partial PUT): absent fields keep theirs. A
   * sent null clears a field like absence does in replace mode.
   */
  private async resolve(
    m: EntityManager,
    caller: Caller,
    input: ContactFieldsInput,
    current: ContactState | null,
    mode: WriteMode,
  ): Promise<{ state: ContactState; createdCompany: string | null }> {
    let createdCompany: string | null = null;
    const accountId = caller.account_id;
    const keep = mode === 'merge' && current !== null;
    const pick = <K extends keyof ContactState>(
      key: K,
      sent: unknown,
      fallback: ContactState[K],
      map: (v: never) => ContactState[K] = (v) => v,
    ): ContactState[K] => {
      if (sent === undefined) return keep ? current[key] : fallback;
      if (sent === null) return fallback;
      return map(sent as never);
    };
    const state: ContactState = {
      title: pick('title', input.title, ''),
      first_name: pick('first_name', input.first_name, ''),
      last_name: pick('last_name', input.last_name, ''),
      job_title: pick('job_title', input.job_title, ''),
      starred: pick('starred', input.starred, false),
      photo_url: pick('photo_url', input.photo_url, ''),
      company_id: current?.company_id ?? null,
      company_name: current?.company_name ?? '',
      urls: pick('urls', input.urls, [], typedValues),
      phones: pick('phones', input.phones, [], typedValues),
      emails: pick('emails', input.emails, [], typedValues),
      address_list: pick('address_list', input.address_list, [], addresses),
      status_id: keep ? current.status_id : '',
      lead_source_id: pick('lead_source_id', input.lead_source_id, null, (v: string) => v.toLowerCase()),
      background: pick('background', input.background, ''),
      owner_id: keep ? current.owner_id : caller.user_id,
      custom_fields: current && keep ? current.custom_fields : {},
      tag_ids: current && keep ? current.tag_ids : [],
    };

    // Status and owner: always set; absent (or null) keeps the current one when merging, else the
    // create default (lead status, the caller): PUT replaces every writable field (decisions.md).
    if (input.status_id) state.status_id = input.status_id.toLowerCase();
    if (!state.status_id) state.status_id = await leadStatusId(m, accountId);
    if (input.status_id && state.status_id !== current?.status_id)
      await assertInAccount(m, 'statuses', accountId, state.status_id, 'Status');
    if (input.owner_id) state.owner_id = input.owner_id.toLowerCase();
    if (input.owner_id && state.owner_id !== current?.owner_id) await assertInAccount(m, 'users', accountId, state.owner_id, 'User');
    if (state.lead_source_id && state.lead_source_id !== current?.lead_source_id)
      await assertInAccount(m, 'lead_sources', accountId, state.lead_source_id, 'Lead source');

    if (input.custom_fields !== undefined || !keep) {
      const sent = input.custom_fields ?? [];
      state.custom_fields = sent.length > 0 ? customFieldValues(sent, await fieldDefinitions(m, accountId, 'custom_fields')) : {};
    }
    if (input.tags !== undefined || !keep) state.tag_ids = await resolveTags(m, accountId, input.tags ?? []);

    // Company: company_id wins; else company_name matches (any letter case) or creates one.
    if (input.company_id) {
      const id = input.company_id.toLowerCase();
      const [company] = await m.query('SELECT id, name FROM crm.companies WHERE id = $1 AND account_id = $2', [id, accountId]);
      if (!company) throw ApiError.notFound('Company not found');
      state.company_id = company.id;
      state.company_name = company.name;
    } else if (input.company_name !== undefined || input.company_id === null || !keep) {
      const name = input.company_name ?? '';
      if (name === '') {
        state.company_id = null;
        state.company_name = '';
      } else if (!(current?.company_id && current.company_name.toLowerCase() === name.toLowerCase())) {
        const company = await companyByName(m, accountId, name);
        state.company_id = company.id;
        state.company_name = company.name;
        if (company.created) createdCompany = company.id;
      }
    }

    if (!state.last_name && !state.company_name) {
      throw ApiError.invalid({ last_name: 'last_name or company_name is required', company_name: 'last_name or company_name is required' });
    }
    return { state, createdCompany };
  }

  private bulkIds(raw: string): string[] {
    const ids = splitIds(raw);
    if (ids.length > CONTACT_LIMITS.bulkIds)
      throw ApiError.invalid({ ids: `ids must be 1 to ${CONTACT_LIMITS.bulkIds} contact ids separated by commas` });
    return ids;
  }

  private async assertCanDelete(m: EntityManager, caller: Caller): Promise<void> {
    const [user] = await m.query('SELECT permissions FROM crm.users WHERE id = $1 AND account_id = $2', [
      caller.user_id,
      caller.account_id,
    ]);
    if (!user || !(user.permissions as string[]).includes('delete_contacts')) {
      throw new ApiError(ErrorName.NoPermission, 'Deleting contacts needs the delete_contacts permission');
    }
  }

  /** All or none: every id must name a non-deleted contact of the account (else 404, nothing deleted). */
  private async softDelete(m: EntityManager, caller: Caller, ids: string[]): Promise<void> {
    const deleted: Array<{ id: string; status_id: string }> = await m.query(
      'WITH d AS (UPDATE crm.contacts SET deleted_at = now() WHERE account_id = $1 AND id = ANY($2::varchar[]) AND deleted_at IS NULL RETURNING id, status_id) SELECT id, status_id FROM d',
      [caller.account_id, ids],
    );
    if (deleted.length !== ids.length)
      throw ApiError.notFound(
        ids.length === 1 ? 'Contact not found' : 'Some of the ids name no contact of the account; nothing was deleted',
      );
    for (const row of deleted) await writeContactDeletedEvent(m, caller.account_id, row.id, row.status_id);
  }
}

function requestedResources(fields: string | undefined): ContactListResource[] {
  if (!fields) return [];
  const named = new Set(fields.split(',').map((part) => part.trim().replace(/\(all\)$/, '')));
  return CONTACT_LIST_RESOURCES.filter((r) => named.has(r));
}

function typedValues(values: Array<{ type?: string; value: string }>): TypedValueDto[] {
  return values.map((v) => ({ type: v.type || 'other', value: v.value }));
}

function addresses(values: Array<Partial<ContactAddressDto>>): ContactAddressDto[] {
  return values.map((a) => ({
    address: a.address ?? '',
    city: a.city ?? '',
    state: a.state ?? '',
    zip_code: a.zip_code ?? '',
    country_code: a.country_code ?? '',
    type: a.type || 'other',
  }));
}
