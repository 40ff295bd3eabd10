import type { RelationshipTypeDto } from '@crm/contracts';
import type { RelationshipTypeRow } from './relationship-types.repository';
import { isoOf } from '../records/record-common';

export function toRelationshipTypeDto(row: RelationshipTypeRow): RelationshipTypeDto {
  return {
    id: row.id,
    symmetrical: row.symmetrical,
    relationship_variants: row.variants,
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}
