import type { RelationshipTypeDto } from '@crm/contracts';
import type { RelationshipTypeRow } from './relationship-types.repository';

export function toRelationshipTypeDto(row: RelationshipTypeRow): RelationshipTypeDto {
  return {
    id: row.id,
    symmetrical: row.symmetrical,
    relationship_variants: row.variants,
    created_at: new Date(row.created_at).toISOString(),
    modified_at: new Date(row.modified_at).toISOString(),
  };
}
