import { hasChoices, type FieldDto } from '@crm/contracts';
import type { FieldRow } from './fields.repository';

/** The API's field: `choices` only for select_box and multiple_choice; timestamps ISO 8601 UTC. */
export function toFieldDto(field: FieldRow): FieldDto {
  return {
    id: field.id,
    name: field.name,
    type: field.type,
    position: field.position,
    ...(hasChoices(field.type) ? { choices: field.choices ?? [] } : {}),
    created_at: new Date(field.created_at).toISOString(),
    modified_at: new Date(field.modified_at).toISOString(),
  };
}
