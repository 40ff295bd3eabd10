import type { ContactListResource, DealEntryDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';
import {
  callsOfContacts,
  dealsOfContacts,
  meetingsOfContacts,
  notesOfContacts,
  pendingDealsOfCompanies,
  pinnedAttachmentsOfContacts,
} from '../records/record-readers';

type Reader = (m: EntityManager, accountId: string, contactIds: readonly string[]) => Promise<Map<string, unknown[]>>;

const READERS: Record<ContactListResource, Reader> = {
  deals: dealsOfContacts,
  notes: notesOfContacts,
  calls: callsOfContacts,
  meetings: meetingsOfContacts,
  pinned_attachments: pinnedAttachmentsOfContacts,
};

/**
 * The records of issue 5 that contact and company responses embed: `fields=deals(all),...` on
 * GET /contacts and a company's `pending_deals`. The readers belong to the records module (one
 * query per resource for the whole page); this adapter is the one place contacts call them from.
 */
export async function contactResourceArrays(
  m: EntityManager,
  accountId: string,
  contactIds: string[],
  resources: readonly ContactListResource[],
): Promise<Map<ContactListResource, Map<string, unknown[]>>> {
  const maps = await Promise.all(resources.map((resource) => READERS[resource](m, accountId, contactIds)));
  return new Map(resources.map((resource, i) => [resource, maps[i]]));
}

/** Pending deals of each company (its non-deleted contacts' deals), as `{ deal }` entries. */
export async function pendingDealsOfCompanyIds(
  m: EntityManager,
  accountId: string,
  companyIds: string[],
): Promise<Map<string, DealEntryDto[]>> {
  return pendingDealsOfCompanies(m, accountId, companyIds);
}
