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
  type ListCompaniesRequest,
  type PatchCompanyRequest,
  type UpdateCompanyRequest,
} from '@crm/contracts';
import { DataSource } from 'typeorm';
import type { Db } from '../common/sql';
import { isUniqueViolation } from '../common/unique-violation';
import { COMPANY_LIST_CONTACTS_CAP, fieldDefinitions, loadCompanyDtos } from '../read-models';
import { customFieldValues, listOrder, pathId, rangedColumn } from '../contacts/contact.rules';
import { ContactsService } from '../contacts/contacts.service';
import { writeEvent } from '../outbox/outbox';
import { CompaniesRepository, COMPANY_NAME_INDEX } from './companies.repository';
import { duplicatedName, planCompanyWrite, sameCompany, type CompanyState } from './company.rules';

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

  private async write(caller: Caller, companyId: string, input: CompanyFieldsInput, replace: boolean): Promise<CompanyReply> {
    const id = pathId(companyId, 'Company');
    const accountId = caller.account_id;
    try {
      return await this.dataSource.transaction(async (tx) => {
        const current = await this.companies.lock(tx, accountId, id);
        if (!current) throw ApiError.notFound('Company not found');
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
