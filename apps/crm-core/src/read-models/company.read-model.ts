import type { CompanyDto } from '@crm/contracts';
import type { Db } from '../common/sql';
import { COMPANY_CONTACTS_CAP } from './caps';
import { loadCompanySummaries } from './company-summary.read-model';
import { companyMemberIds } from './company.repository';
import { contactWrappers } from './contact.read-model';

export interface CompanyLoadOptions {
  withContacts: boolean;
  viewerId: string | null;
  /** How many contact wrappers each company embeds: COMPANY_CONTACTS_CAP unless said (list entries: COMPANY_LIST_CONTACTS_CAP). */
  contactsCap?: number;
}

/**
 * Companies of the account by id, with counters and pending deals; with `withContacts` also
 * `contacts`: wrappers (seen by `viewerId`) of its first `contactsCap` non-deleted contacts
 * by name (their wrappers' `company` has an empty `pending_deals`: the company around them holds
 * them); the rest through GET /contacts?company_id=. Batched: the cost does not grow with the
 * number of companies beyond one query per part, nor with a company's size.
 */
export async function loadCompanyDtos(
  db: Db,
  accountId: string,
  ids: string[],
  options: CompanyLoadOptions,
): Promise<Map<string, CompanyDto>> {
  const wanted = [...new Set(ids.map((id) => id.toLowerCase()))];
  if (wanted.length === 0) return new Map();
  const out = await loadCompanySummaries(db, accountId, wanted);
  if (options.withContacts && out.size > 0) {
    const members = await companyMemberIds(db, accountId, [...out.keys()], options.contactsCap ?? COMPANY_CONTACTS_CAP);
    // The wrappers show these companies without `contacts` and without `pending_deals` (the company
    // around them holds those once; repeated in each of 100 wrappers, 25 deals of ~1 KB would make
    // the reply 2.5 MB, over NATS's 1 MiB): copies, read once.
    const summaries = new Map([...out].map(([id, company]) => [id, { ...company, pending_deals: [] }]));
    const wrappers = await contactWrappers(
      db,
      accountId,
      members.map((c) => c.id),
      options.viewerId,
      summaries,
      false,
    );
    for (const company of out.values()) company.contacts = [];
    for (const wrapper of wrappers) out.get(wrapper.contact.company_id!)?.contacts?.push(wrapper);
  }
  return out;
}
