import type { ActionDto } from '../actions/action.dto';
import type { CompanyDto } from '../companies/company.dto';
import type { FieldType } from '../fields/field.dto';
import type { PageInfo } from '../paging/paging.request';

/** An entry of `urls`, `phones` or `emails`. */
export interface TypedValueDto {
  type: string;
  value: string;
}

/** An entry of a contact's `address_list`. */
export interface ContactAddressDto {
  address: string;
  city: string;
  state: string;
  zip_code: string;
  country_code: string;
  type: string;
}

/** Definition of a custom or company field as shown inside a record's values. */
export interface FieldRefDto {
  id: string;
  name: string;
  type: FieldType;
  position: number;
  /** Only for `select_box` and `multiple_choice`. */
  choices?: string[];
}

export interface CustomFieldValueDto {
  custom_field: FieldRefDto;
  value: unknown;
}

export interface ClosedSaleDto {
  user_id: string;
  /** Unix seconds. */
  closed_at: number;
  comment: string;
}

export interface GoogleContactsDataDto {
  account_email: string;
  id: string;
  /** Unix seconds. */
  saved_at: number;
}

/** The spec's Contact, computed fields included. */
export interface ContactDto {
  id: string;
  title: string;
  first_name: string;
  last_name: string;
  job_title: string;
  starred: boolean;
  photo_url: string;
  /** '' when the contact has no company (OnePageCRM's empty string, never null). */
  company_id: string;
  company_name: string;
  urls: TypedValueDto[];
  phones: TypedValueDto[];
  emails: TypedValueDto[];
  address_list: ContactAddressDto[];
  /** The status name (the status's `text`, as OnePageCRM shows it); `status_id` is the status. */
  status: string;
  status_id: string;
  tags: string[];
  /** '' when none (never null). */
  lead_source_id: string;
  /** The lead source's text; '' when none. */
  lead_source: string;
  background: string;
  owner_id: string;
  custom_fields: CustomFieldValueDto[];
  /** a-z, or '1' when the sort name does not start with a letter. */
  letter: string;
  /** The contact is the primary contact of at least one pending deal. */
  pending_deal: boolean;
  /** Sum of total_amount (amount x months) of its pending deals. */
  total_pendings: number;
  /** Deals of every status whose primary contact it is. */
  total_deals_count: number;
  /** Non-deleted contacts of its company (0 without a company). */
  company_size: number;
  sales_closed_for: string[];
  closed_sales: ClosedSaleDto[];
  /** `{ account_email: '', id: '', saved_at: 0 }` when never saved to Google Contacts (never null). */
  google_contacts_data: GoogleContactsDataDto;
  created_at: string;
  modified_at: string;
}

/** The contact wrapper: every single-contact response and every list entry (decisions.md "Contacts"). */
export interface ContactWrapperDto {
  contact: ContactDto;
  /** Every assignee's next action, most urgent first. */
  next_actions: ActionDto[];
  /** The caller's next action; null when none. */
  next_action: ActionDto | null;
  /** The caller's queued actions by position. */
  queued_actions: ActionDto[];
  /** The caller's queued actions dated before the caller's next action. */
  next_action_conflicts: ActionDto[];
  /** The contact's company, its `contacts` its first 3 by name (entries without `company`); null when none. */
  company: CompanyDto | null;
}

/** Extra arrays of `fields=<resource>(all)` beside `contact` in list entries. */
export const CONTACT_LIST_RESOURCES = ['deals', 'notes', 'calls', 'meetings', 'pinned_attachments'] as const;

export type ContactListResource = (typeof CONTACT_LIST_RESOURCES)[number];

export type ContactListEntryDto = ContactWrapperDto & Partial<Record<ContactListResource, unknown[]>>;

export interface ListContactsReply extends PageInfo {
  contacts: ContactListEntryDto[];
}

export interface CascadeReply {
  contacts: ContactWrapperDto[];
  items_left: number;
  next_set_url: string | null;
}

/** Siblings of `contact` in the data of a contact webhook event (spec Events rule 2). */
export interface ContactEventSiblings {
  next_actions: ActionDto[];
  next_action: ActionDto | null;
  queued_actions: ActionDto[];
  most_urgent_action: ActionDto | null;
}

/**
 * Where an HTTP request came in, sent by the gateway beside `caller` and `payload` so a reply can
 * carry absolute links (the cascade's `next_set_url`).
 */
export interface HttpOrigin {
  /** Public API base URL, e.g. https://api.example/api/v3. */
  base_url: string;
  /** The raw query string without `?` ("" when none). */
  query: string;
}

/** Titles offered for a contact's `title` (any string up to 50 characters is stored). */
export const CONTACT_TITLES: readonly string[] = ['Mr', 'Mrs', 'Ms', 'Miss', 'Dr', 'Prof'];
