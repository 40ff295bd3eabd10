import type { FilterDto } from '@crm/contracts';
import type { FilterRow } from './filters.repository';
import { isoOf } from '../records/record-common';

export function toFilterDto(row: FilterRow): FilterDto {
  return {
    id: row.id,
    name: row.name,
    conditions: row.conditions,
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}
