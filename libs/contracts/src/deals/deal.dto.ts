import type { ContactDto } from '../contacts/contact.dto';
import type { AttachmentDto } from '../attachments/attachment.dto';
import type { PageInfo } from '../paging/paging.request';

export const DEAL_STATUSES = ['pending', 'won', 'lost'] as const;

export type DealStatus = (typeof DEAL_STATUSES)[number];

/** The spec's Deal item; `amount` is price x qty. */
export interface DealItemDto {
  id: string;
  name: string;
  description: string;
  cost: number;
  price: number;
  amount: number;
  qty: number;
  deal_id: string;
  /** '' when the item was not made from a predefined item (never null). */
  predefined_item_id: string;
  position: number;
  created_at: string;
  modified_at: string;
}

/** One deal field value: the field's definition and the value. */
export interface DealFieldValueDto {
  deal_field: {
    id: string;
    name: string;
    type: string;
    position: number;
    choices?: string[];
  };
  value: unknown;
}

export interface LinkedContactDto {
  id: string;
  contact_name: string;
  company: string;
  photo_url: string;
}

/**
 * The spec's Deal. A won or lost deal also carries `last_stage` (the stage it closed from) and has
 * `stage` 0; `previous_pipeline_stages` only with `include_history=true`.
 */
export interface DealDto {
  id: string;
  contact_id: string;
  owner_id: string;
  pipeline_id: string;
  sales_pipeline_id: string;
  name: string;
  text: string;
  /** 0 for won and lost deals (never null): see last_stage. */
  stage: number;
  last_stage?: number | null;
  status: DealStatus;
  expected_close_date: string;
  close_date: string;
  date: string;
  amount: number;
  months: number;
  cost: number;
  margin: number;
  total_amount: number;
  total_cost: number;
  commission_base: string;
  commission_type: string;
  commission: number;
  commission_percentage: number;
  /** '' when none (never null). */
  reason_lost_id: string;
  deal_fields: DealFieldValueDto[];
  has_deal_items: boolean;
  deal_items: DealItemDto[];
  author: string;
  has_related_notes: boolean;
  attachments: AttachmentDto[];
  contact_info: { contact_name: string; company: string };
  owner: { id: string; name: string; email: string };
  previous_pipeline_stages?: Record<string, number>;
  created_at: string;
  modified_at: string;
  linked_contacts: LinkedContactDto[];
}

export interface DealReply {
  deal: DealDto;
}

/**
 * GET /deals entry: `contacts` (primary first, then linked, full Contact objects, at most 5) only
 * with `fields=contacts(all)`, as the spec and OnePageCRM have it.
 */
export interface DealListEntry {
  deal: DealDto;
  contacts?: ContactDto[];
}

export interface ListDealsReply extends PageInfo {
  deals: DealListEntry[];
}
