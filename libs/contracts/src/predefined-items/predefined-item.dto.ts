import type { PageInfo } from '../paging/paging.request';

/** Most predefined items an account keeps (OnePageCRM's cap). */
export const MAX_PREDEFINED_ITEMS = 1000;
/** Most items one group bundles (OnePageCRM's cap). */
export const MAX_ITEMS_PER_GROUP = 200;

/** A product or service dropped onto deals as a line item (decisions.md's fields). */
export interface PredefinedItemDto {
  id: string;
  name: string;
  description: string;
  cost: number;
  price: number;
  /** Order in the account's list (new items go last). */
  position: number;
  /** The group bundling the item, or '' (never null). */
  item_group_id: string;
  created_at: string;
  modified_at: string;
}

export interface PredefinedItemGroupDto {
  id: string;
  name: string;
  position: number;
  /** How many items the group bundles. */
  count: number;
  item_ids: string[];
  /** Sums of its items' cost and price. */
  cost: number;
  price: number;
  created_at: string;
  modified_at: string;
  /** The items themselves, in group order: only with `include_items=true`. */
  predefined_items?: Array<{ predefined_item: PredefinedItemDto }>;
}

export interface PredefinedItemReply {
  predefined_item: PredefinedItemDto;
}

export interface ListPredefinedItemsReply extends PageInfo {
  predefined_items: PredefinedItemReply[];
}

export interface PredefinedItemGroupReply {
  predefined_item_group: PredefinedItemGroupDto;
}

export interface ListPredefinedItemGroupsReply extends PageInfo {
  predefined_item_groups: PredefinedItemGroupReply[];
}
