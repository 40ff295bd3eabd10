import type { ContactActionsDto } from '../actions/action.dto';
import type { ContactAddressDto, ContactDto, ContactWrapperDto, FieldRefDto } from '../contacts/contact.dto';
import type { DealDto } from '../deals/deal.dto';
import type { PageInfo } from '../paging/paging.request';

/** A company's `address` (no type). */
export type CompanyAddressDto = Omit<ContactAddressDto, 'type'>;

export interface CompanyFieldValueDto {
  company_field: FieldRefDto;
  value: unknown;
}

/** `{ deal }` entries of a company's pending_deals. */
export interface DealEntryDto {
  deal: DealDto;
}

/**
 * An entry of a company's `contacts` (OnePageCRM's Company): a contact wrapper. On company
 * responses it has `company` (the company without its contacts and pending deals); inside a contact
 * wrapper's `company` it has none (the wrapper holds the company).
 */
export interface CompanyContactDto extends ContactActionsDto {
  contact: ContactDto;
  company?: CompanyDto | null;
}

/**
 * The spec's Company. `contacts`: on company responses its first 100 contacts by name; inside a
 * contact wrapper its first 3 (docs/decisions.md "Bounded embedded arrays"); absent in the
 * companies of inner entries.
 */
export interface CompanyDto {
  id: string;
  /** Data URI or "". */
  image: string;
  name: string;
  description: string;
  phone: string;
  photo_url: string;
  url: string;
  address: CompanyAddressDto;
  company_fields: CompanyFieldValueDto[];
  syncing_status: boolean;
  /** '' when the company does not sync a status (never null). */
  synced_status_id: string;
  syncing_tags: boolean;
  synced_tags: string[];
  contacts_count: number;
  won_deals_count: number;
  pending_deals_count: number;
  total_won_amount: number;
  total_pending_amount: number;
  contacts?: CompanyContactDto[];
  pending_deals: DealEntryDto[];
  created_at: string;
  modified_at: string;
}

export interface CompanyReply {
  company: CompanyDto;
}

export interface ListCompaniesReply extends PageInfo {
  companies: CompanyReply[];
}

/** A contact linked to a company it does not belong to: its wrapper and the companies it is linked with. */
export interface CompanyLinkedContactDto extends ContactWrapperDto {
  linked_with: string[];
}

export interface LinkedContactReply {
  linked_contact: CompanyLinkedContactDto;
}

export interface ListLinkedContactsReply extends PageInfo {
  linked_contacts: LinkedContactReply[];
}
