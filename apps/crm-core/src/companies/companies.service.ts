import { Injectable } from '@nestjs/common';
import {
  ApiError,
  pageInfo,
  type Caller,
  type CompanyDto,
  type CompanyFieldsInput,
  type CompanyIdRequest,
  type CompanyReply,
  type CustomFieldValueInput,
  type ListCompaniesReply,
  type LinkedContactReply,
  type LinkedContactRequest,
  type ListCompaniesRequest,
  type ListLinkedContactsReply,
  type ListLinkedContactsRequest,
  type PatchCompanyRequest,
  type SetSyncedStatusRequest,
  type UpdateCompanyRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { isUniqueViolation } from '../common/unique-violation';
import { COMPANY_LIST_CONTACTS_CAP, fieldDefinitions, LIST_ENTRIES, loadCompanyDtos, loadContactWrappers } from '../read-models';
import { customFieldValues, listOrder, pathId, rangedColumn } from '../contacts/contact.rules';
import { ContactsService } from '../contacts/contacts.service';
import { writeEvent } from '../outbox/outbox';
import { findContact } from '../records/record-references.repository';
import { CompaniesRepository, COMPANY_NAME_INDEX } from './companies.repository';
import { assertLinkable, assertLinkRoom, duplicatedName, planCompanyWrite, sameCompany, type CompanyState } from './company.rules';
import { assertIfMatch } from '../common/if-match.repository';

/**
 * Companies: created and matched through contacts' company_name (the contacts module), read as
 * the company view, and edited here. Renaming a company renames it on its contacts and syncing
 * applies its status and tags to them: the contacts module does both, in the same transaction.
 */
@Injectable()
export class CompaniesService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly companies: CompaniesRepository,
    private readonly contacts: ContactsService,
  ) {}

  async list(caller: Caller, request: ListCompaniesRequest): Promise<ListCompaniesReply> {
    const db = this.dataSource.manager;
    const order = listOrder(request.sort_by, request.order, rangedColumn(request), 'name');
    const { total, ids } = await this.companies.page(db, caller.account_id, request, order, request.page, request.per_page);
    // each entry embeds fewer contacts than GET /companies/{id}: a page of 100 must fit in one NATS message
    const companies = await loadCompanyDtos(db, caller.account_id, ids, {
      withContacts: true,
      viewerId: caller.user_id,
      contactsCap: COMPANY_LIST_CONTACTS_CAP,
    });
    return {
      companies: ids.filter((id) => companies.has(id)).map((id) => ({ company: companies.get(id)! })),
      ...pageInfo(total, request.page, request.per_page),
    };
  }

  async get(caller: Caller, request: CompanyIdRequest): Promise<CompanyReply> {
    return { company: await this.load(this.dataSource.manager, caller.account_id, pathId(request.company_id, 'Company'), caller.user_id) };
  }

  /** PUT: replaces the writable fields (name required); `partial=true` changes only the fields sent. */
  async update(caller: Caller, request: UpdateCompanyRequest): Promise<CompanyReply> {
    return this.write(caller, request.company_id, request, request.partial !== true);
  }

  async patch(caller: Caller, request: PatchCompanyRequest): Promise<CompanyReply> {
    return this.write(caller, request.company_id, request, false);
  }

  /** POST /companies/{id}/synced_status: syncing_status on with that status, applied to the company's contacts now. */
  async setSyncedStatus(caller: Caller, request: SetSyncedStatusRequest): Promise<CompanyReply> {
    return this.write(caller, request.company_id, { syncing_status: true, synced_status_id: request.status_id.trim() }, false);
  }

  /** DELETE /companies/{id}/synced_status: syncing off; the contacts keep their statuses. */
  async removeSyncedStatus(caller: Caller, request: CompanyIdRequest): Promise<CompanyReply> {
    return this.write(caller, request.company_id, { syncing_status: false, synced_status_id: null }, false);
  }

  /** Contacts of other companies (or none) linked to this one, by name; each with the companies it is linked with. */
  async linkedContacts(caller: Caller, request: ListLinkedContactsRequest): Promise<ListLinkedContactsReply> {
    const db = this.dataSource.manager;
    const companyId = await this.companyId(db, caller.account_id, request.company_id);
    const order = request.sort_by ? { key: request.sort_by, direction: request.order ?? 'asc' } : undefined;
    const { total, ids } = await this.companies.linkedPage(db, caller.account_id, companyId, order, request.page, request.per_page);
    return { linked_contacts: await this.linkedEntries(db, caller, ids), ...pageInfo(total, request.page, request.per_page) };
  }

  /**
   * Links a contact of the account to the company: not one of its own contacts (400), at most
   * MAX_LINKED_CONTACTS per company (400, nothing linked); a link that exists is answered as it is.
   */
  async link(caller: Caller, request: LinkedContactRequest): Promise<LinkedContactReply> {
    return this.dataSource.transaction(async (tx) => {
      const companyId = await this.companyId(tx, caller.account_id, request.company_id, true);
      const contact = await findContact(tx, caller.account_id, request.contact_id, { field: 'contact_id' });
      assertLinkable(companyId, contact.company_id);
      if (await this.companies.link(tx, caller.account_id, companyId, contact.id))
        assertLinkRoom(await this.companies.linkCount(tx, companyId));
      const [entry] = await this.linkedEntries(tx, caller, [contact.id]);
      return entry;
    });
  }

  /** Unlinks a linked contact (a contact that is not linked: 404). */
  async unlink(caller: Caller, request: LinkedContactRequest): Promise<Record<string, never>> {
    return this.dataSource.transaction(async (tx) => {
      const companyId = await this.companyId(tx, caller.account_id, request.company_id);
      const contactId = pathId(request.contact_id);
      if (!(await this.companies.unlink(tx, companyId, contactId))) throw ApiError.notFound('The contact is not linked to this company');
      return {};
    });
  }

  private async linkedEntries(db: Db, caller: Caller, ids: string[]): Promise<LinkedContactReply[]> {
    const [wrappers, linkedWith] = await Promise.all([
      loadContactWrappers(db, caller.account_id, ids, caller.user_id, LIST_ENTRIES),
      this.companies.linkedWith(db, ids),
    ]);
    return wrappers.map((wrapper) => ({ linked_contact: { ...wrapper, linked_with: linkedWith.get(wrapper.contact.id) ?? [] } }));
  }

  /** The id of a company of the account (locked with `forUpdate`, so its links change one writer at a time), else 404. */
  private async companyId(db: Db, accountId: string, rawId: string, forUpdate = false): Promise<string> {
    const id = await this.companies.findId(db, accountId, pathId(rawId, 'Company'), forUpdate);
    if (!id) throw ApiError.notFound('Company not found');
    return id;
  }

  private async write(caller: Caller, companyId: string, input: CompanyFieldsInput, replace: boolean): Promise<CompanyReply> {
    const id = pathId(companyId, 'Company');
    const accountId = caller.account_id;
    try {
      return await this.dataSource.transaction(async (tx) => {
        const current = await this.companies.lock(tx, accountId, id);
        if (!current) throw ApiError.notFound('Company not found');
        await assertIfMatch(tx, 'companies', id);
        const next = await this.resolve(tx, accountId, input, current, replace);
        if (!sameCompany(current, next)) {
          await this.companies.update(tx, accountId, id, next);
          await this.contacts.companyChanged(tx, accountId, id, next.name !== current.name ? next.name : null);
          const company = await this.load(tx, accountId, id, null);
          await writeEvent(tx, { account_id: accountId, type: 'company', reason: 'updated', record_id: id, data: { company } });
        }
        return { company: await this.load(tx, accountId, id, caller.user_id) };
      });
    } catch (error) {
      if (isUniqueViolation(error, COMPANY_NAME_INDEX)) throw duplicatedName();
      throw error;
    }
  }

  /** The state a write leads to (company.rules planCompanyWrite), with company fields, the synced status and tags resolved. */
  private async resolve(
    tx: Db,
    accountId: string,
    input: CompanyFieldsInput,
    current: CompanyState,
    replace: boolean,
  ): Promise<CompanyState> {
    const plan = planCompanyWrite(input, current, replace);
    const next = plan.state;
    if (plan.companyFields)
      next.company_fields =
        plan.companyFields.length > 0
          ? customFieldValues(
              plan.companyFields as unknown as CustomFieldValueInput[],
              await fieldDefinitions(tx, accountId, 'company_fields'),
              'company_fields',
              'company_field',
            )
          : {};
    if (plan.statusToCheck && !(await this.companies.statusExists(tx, accountId, plan.statusToCheck)))
      throw ApiError.notFound('Status not found');
    if (plan.syncedTags) next.synced_tags = await this.contacts.resolveTagNames(tx, accountId, plan.syncedTags);
    return next;
  }

  private async load(db: Db, accountId: string, id: string, viewerId: string | null): Promise<CompanyDto> {
    const company = (await loadCompanyDtos(db, accountId, [id], { withContacts: true, viewerId })).get(id);
    if (!company) throw ApiError.notFound('Company not found');
    return company;
  }
}
