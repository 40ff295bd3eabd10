import { hasChoices, type FieldDto } from '@crm/contracts';
import type { FieldRow } from './fields.repository';
import { isoOf } from '../records/record-common';

/** The API's field: `choices` only for select_box and multiple_choice; timestamps ISO 8601 UTC. */
export function toFieldDto(field: FieldRow): FieldDto {
  return {
    id: field.id,
    name: field.name,
    type: field.type,
    position: field.position,
    ...(hasChoices(field.type) ? { choices: field.choices ?? [] } : {}),
    created_at: isoOf(field.created_at),
    modified_at: isoOf(field.modified_at),
  };
}
