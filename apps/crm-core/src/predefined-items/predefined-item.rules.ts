import { ApiError, MAX_PREDEFINED_ITEMS, type UpdatePredefinedItemRequest } from '@crm/contracts';

export interface ItemFields {
  name: string;
  description: string;
  cost: number;
  price: number;
}

/** The fields a POST gives, or a PUT leads to: absent description, cost and price empty and 0; `partial=true` keeps them. */
export function itemFields(
  current: ItemFields | null,
  request: Pick<UpdatePredefinedItemRequest, 'name' | 'description' | 'cost' | 'price' | 'partial'>,
): ItemFields {
  const keep = current !== null && request.partial === true;
  const pick = <K extends keyof ItemFields>(key: K, fallback: ItemFields[K]): ItemFields[K] => {
    const sent = request[key];
    if (sent !== undefined && sent !== null) return sent as ItemFields[K];
    return keep && sent === undefined ? current[key] : fallback;
  };
  return { name: pick('name', current?.name ?? ''), description: pick('description', ''), cost: pick('cost', 0), price: pick('price', 0) };
}

/** An account keeps at most MAX_PREDEFINED_ITEMS items. */
export function assertRoomForItem(count: number): void {
  if (count >= MAX_PREDEFINED_ITEMS) throw ApiError.invalid({ name: `an account keeps at most ${MAX_PREDEFINED_ITEMS} predefined items` });
}

/**
 * The items of a new group, in the order given (`item_ids`, else `deal_items`; ids are
 * case-insensitive), each once.
 */
export function groupItemIds(request: { item_ids?: string[]; deal_items?: string[] }): string[] {
  const ids = (request.item_ids ?? request.deal_items ?? []).map((id) => id.toLowerCase());
  if (new Set(ids).size !== ids.length) throw ApiError.invalid({ item_ids: 'each predefined item may appear only once' });
  return ids;
}

/** Every member must be an ungrouped item of the account: 404 naming the unknown, 400 naming the grouped. */
export function checkItemsGroupable(ids: readonly string[], found: ReadonlyArray<{ id: string; group_id: string | null }>): void {
  const byId = new Map(found.map((r) => [r.id, r]));
  const missing = ids.filter((id) => !byId.has(id));
  if (missing.length > 0) throw ApiError.notFound(`Predefined item not found: ${missing.join(', ')}`);
  const grouped = found.filter((r) => r.group_id);
  if (grouped.length > 0) throw ApiError.invalid({ item_ids: `already in a group: ${grouped.map((r) => r.id).join(', ')}` });
}
