import type { FilterDto } from '@crm/contracts';
import type { FilterRow } from './filters.repository';

export function toFilterDto(row: FilterRow): FilterDto {
  return {
    id: row.id,
    name: row.name,
    conditions: row.conditions,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}
