import type { PredefinedItemDto, PredefinedItemGroupDto } from '@crm/contracts';
import type { PredefinedItemGroupRow, PredefinedItemRow } from './predefined-items.repository';
import { isoOf } from '../records/record-common';

export function toPredefinedItemDto(row: PredefinedItemRow): PredefinedItemDto {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    cost: Number(row.cost),
    price: Number(row.price),
    position: row.position,
    item_group_id: row.group_id ?? '',
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}

/** A group; `items` (its members in group order) only when they are to be embedded. */
export function toPredefinedItemGroupDto(row: PredefinedItemGroupRow, items?: readonly PredefinedItemRow[]): PredefinedItemGroupDto {
  const dto: PredefinedItemGroupDto = {
    id: row.id,
    name: row.name,
    position: row.position,
    count: row.item_ids.length,
    item_ids: row.item_ids,
    cost: Number(row.cost),
    price: Number(row.price),
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
  if (items) dto.predefined_items = items.map((item) => ({ predefined_item: toPredefinedItemDto(item) }));
  return dto;
}
