import { Injectable } from '@nestjs/common';
import {
  ApiError,
  CompanyIdRequest,
  ErrorName,
  ListCompaniesRequest,
  pageInfo,
  parseContract,
  PatchCompanyRequest,
  UpdateCompanyRequest,
  type Caller,
  type CompanyAddressDto,
  type CompanyFieldsInput,
  type CompanyFieldValueInput,
  type CompanyReply,
  type CustomFieldValueInput,
  type ListCompaniesReply,
} from '@crm/contracts';
import { DataSource, type EntityManager } from 'typeorm';
import { isUniqueViolation } from '../common/unique-violation';
import { letterOf, searchTextOf, sortNameOf } from '../contacts/contact-columns';
import { fieldDefinitions } from '../contacts/contact-readers';
import { SqlWhere, addTimeConditions } from '../contacts/contact-query';
import { assertInAccount, customFieldValues, pathId, resolveTags, writeContactEvent } from '../contacts/contact-store';
import { escapeLike } from '../contacts/contact-columns';
import { writeEvent } from '../outbox/outbox';
import { loadCompanyDtos } from './company-readers';
import { applyCompanySync } from './company-sync';

const NAME_INDEX = 'companies_name_uq';

interface CompanyState {
  name: string;
  description: string;
  phone: string;
  url: string;
  photo_url: string;
  image: string;
  address: CompanyAddressDto;
  company_fields: Record<string, unknown>;
  syncing_status: boolean;
  synced_status_id: string | null;
  syncing_tags: boolean;
  synced_tags: string[];
}

const COLUMNS = [
  'name',
  'description',
  'phone',
  'url',
  'photo_url',
  'image',
  'address',
  'company_fields',
  'syncing_status',
  'synced_status_id',
  'syncing_tags',
  'synced_tags',
] as const;
const JSON_COLUMNS = new Set(['address', 'company_fields']);

const SORTS = { name: 'lower(co.name)', created_at: 'co.created_at', modified_at: 'co.modified_at' } as const;

/**
 * Companies: created and matched through contacts' company_name (see the contacts module), read
 * with counters aggregated over their non-deleted contacts and deals, and edited here. Renaming a
 * company renames it on its contacts; syncing applies its status and tags to them.
 */
@Injectable()
export class CompaniesService {
  constructor(private readonly dataSource: DataSource) {}

  async list(caller: Caller, payload: unknown): Promise<ListCompaniesReply> {
    const request = parseContract(ListCompaniesRequest, payload);
    const m = this.dataSource.manager;
    const where = new SqlWhere(caller.account_id);
    where.add('co.account_id = $1');
    if (request.search) where.add(`lower(co.name) LIKE ${where.param(`%${escapeLike(request.search.toLowerCase())}%`)}`);
    const ranged = addTimeConditions(where, request, 'co');
    let column: string = SORTS[request.sort_by ?? 'name'];
    let direction = request.order ?? 'asc';
    if (!request.sort_by && ranged) {
      column = SORTS[ranged];
      direction = request.order ?? 'desc';
    }
    const dir = direction === 'desc' ? 'DESC' : 'ASC';
    const [[{ total }], rows] = await Promise.all([
      m.query(`SELECT count(*)::int AS total FROM crm.companies co WHERE ${where.sql}`, where.params) as Promise<Array<{ total: number }>>,
      m.query(
        `SELECT co.id FROM crm.companies co WHERE ${where.sql} ORDER BY ${column} ${dir}, co.id ${dir} LIMIT ${request.per_page} OFFSET ${(request.page - 1) * request.per_page}`,
        where.params,
      ) as Promise<Array<{ id: string }>>,
    ]);
    const companies = await loadCompanyDtos(
      m,
      caller.account_id,
      rows.map((r) => r.id),
      { withContacts: true, viewerId: caller.user_id },
    );
    return {
      companies: rows.map((r) => ({ company: companies.get(r.id)! })).filter((e) => e.company),
      ...pageInfo(total, request.page, request.per_page),
    };
  }

  async get(caller: Caller, payload: unknown): Promise<CompanyReply> {
    const { company_id } = parseContract(CompanyIdRequest, payload);
    return { company: await this.load(this.dataSource.manager, caller, pathId(company_id, 'Company')) };
  }

  /** PUT: replaces the writable fields (name required); `partial=true` changes only the fields sent. */
  async update(caller: Caller, payload: unknown): Promise<CompanyReply> {
    const input = parseContract(UpdateCompanyRequest, payload);
    return this.write(caller, input.company_id, input, input.partial !== true);
  }

  async patch(caller: Caller, payload: unknown): Promise<CompanyReply> {
    const input = parseContract(PatchCompanyRequest, payload);
    return this.write(caller, input.company_id, input, false);
  }

  private async write(caller: Caller, companyId: string, input: CompanyFieldsInput, replace: boolean): Promise<CompanyReply> {
    const id = pathId(companyId, 'Company');
    try {
      return await this.dataSource.transaction(async (m) => {
        const [current]: CompanyState[] = await m.query(
          `SELECT ${COLUMNS.join(', ')} FROM crm.companies WHERE id = $1 AND account_id = $2 FOR UPDATE`,
          [id, caller.account_id],
        );
        if (!current) throw ApiError.notFound('Company not found');
        const next = await this.resolve(m, caller, input, current, replace);
        if (JSON.stringify(COLUMNS.map((c) => next[c])) !== JSON.stringify(COLUMNS.map((c) => current[c]))) {
          await m.query(
            `UPDATE crm.companies SET ${COLUMNS.map((c, i) => `${c} = $${i + 3}`).join(', ')}, modified_at = now() WHERE id = $1 AND account_id = $2`,
            [id, caller.account_id, ...COLUMNS.map((c) => (JSON_COLUMNS.has(c) ? JSON.stringify(next[c]) : next[c]))],
          );
          const changed = new Set<string>();
          if (next.name !== current.name) (await this.renameContacts(m, caller.account_id, id, next.name)).forEach((c) => changed.add(c));
          (await applyCompanySync(m, caller.account_id, id)).forEach((c) => changed.add(c));
          for (const contactId of changed) await writeContactEvent(m, caller.account_id, contactId, 'updated');
          const company = await this.load(m, { ...caller }, id, null);
          await writeEvent(m, { account_id: caller.account_id, type: 'company', reason: 'updated', record_id: id, data: { company } });
        }
        return { company: await this.load(m, caller, id) };
      });
    } catch (error) {
      if (isUniqueViolation(error, NAME_INDEX))
        throw new ApiError(ErrorName.DuplicatedEntity, 'A company with this name already exists', {
          name: 'a company of the account already has this name (letter case aside)',
        });
      throw error;
    }
  }

  private async resolve(
    m: EntityManager,
    caller: Caller,
    input: CompanyFieldsInput,
    current: CompanyState,
    replace: boolean,
  ): Promise<CompanyState> {
    const pick = <K extends keyof CompanyState>(
      key: K,
      sent: unknown,
      fallback: CompanyState[K],
      map: (v: never) => CompanyState[K] = (v) => v,
    ): CompanyState[K] => {
      if (sent === undefined) return replace ? fallback : current[key];
      if (sent === null) return fallback;
      return map(sent as never);
    };
    if (replace && (input.name === undefined || input.name === null)) throw ApiError.invalid({ name: 'name is required' });
    if (input.name === null) throw ApiError.invalid({ name: 'name cannot be cleared' });
    const next: CompanyState = {
      name: input.name ?? current.name,
      description: pick('description', input.description, ''),
      phone: pick('phone', input.phone, ''),
      url: pick('url', input.url, ''),
      photo_url: pick('photo_url', input.photo_url, ''),
      image: pick('image', input.image, ''),
      address: pick('address', input.address, emptyAddress(), (a: Partial<CompanyAddressDto>) => ({
        ...emptyAddress(),
        ...definedOnly(a),
      })),
      company_fields: current.company_fields,
      syncing_status: pick('syncing_status', input.syncing_status, false),
      synced_status_id: pick('synced_status_id', input.synced_status_id, null, (v: string) => v.toLowerCase()),
      syncing_tags: pick('syncing_tags', input.syncing_tags, false),
      synced_tags: current.synced_tags,
    };
    if (input.company_fields !== undefined || replace) {
      const sent: CompanyFieldValueInput[] = input.company_fields ?? [];
      next.company_fields =
        sent.length > 0
          ? customFieldValues(
              sent as unknown as CustomFieldValueInput[],
              await fieldDefinitions(m, caller.account_id, 'company_fields'),
              'company_fields',
              'company_field',
            )
          : {};
    }
    if (next.synced_status_id && next.synced_status_id !== current.synced_status_id)
      await assertInAccount(m, 'statuses', caller.account_id, next.synced_status_id, 'Status');
    if (input.synced_tags !== undefined || replace) {
      const names = input.synced_tags ?? [];
      const ids = await resolveTags(m, caller.account_id, names);
      const rows: Array<{ name: string }> =
        ids.length > 0 ? await m.query('SELECT name FROM crm.tags WHERE id = ANY($1::varchar[]) ORDER BY lower(name)', [ids]) : [];
      next.synced_tags = rows.map((r) => r.name);
    }
    return next;
  }

  /** The new name on every contact of the company (deleted ones too), with their derived columns; returns the non-deleted ones. */
  private async renameContacts(m: EntityManager, accountId: string, companyId: string, name: string): Promise<string[]> {
    const contacts: Array<{
      id: string;
      first_name: string;
      last_name: string;
      phones: Array<{ value: string }>;
      emails: Array<{ value: string }>;
      urls: Array<{ value: string }>;
      deleted: boolean;
    }> = await m.query(
      'SELECT id, first_name, last_name, phones, emails, urls, deleted_at IS NOT NULL AS deleted FROM crm.contacts WHERE account_id = $1 AND company_id = $2',
      [accountId, companyId],
    );
    if (contacts.length === 0) return [];
    const derived = contacts.map((c) => {
      const parts = { ...c, company_name: name };
      const sortName = sortNameOf(parts);
      return { id: c.id, sort_name: sortName, letter: letterOf(sortName), search_text: searchTextOf(parts) };
    });
    await m.query(
      `UPDATE crm.contacts c SET company_name = $1, sort_name = v.sort_name, letter = v.letter, search_text = v.search_text, modified_at = now()
       FROM unnest($2::varchar[], $3::varchar[], $4::varchar[], $5::text[]) AS v(id, sort_name, letter, search_text) WHERE c.id = v.id`,
      [name, derived.map((d) => d.id), derived.map((d) => d.sort_name), derived.map((d) => d.letter), derived.map((d) => d.search_text)],
    );
    return contacts.filter((c) => !c.deleted).map((c) => c.id);
  }

  private async load(m: EntityManager, caller: Caller, id: string, viewerId: string | null = caller.user_id) {
    const company = (await loadCompanyDtos(m, caller.account_id, [id], { withContacts: true, viewerId })).get(id);
    if (!company) throw ApiError.notFound('Company not found');
    return company;
  }
}

function emptyAddress(): CompanyAddressDto {
  return { address: '', city: '', state: '', zip_code: '', country_code: '' };
}

function definedOnly<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined && v !== null)) as Partial<T>;
}
