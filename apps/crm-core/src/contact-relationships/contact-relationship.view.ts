import type { ContactRelationshipDto } from '@crm/contracts';
import type { ContactRelationshipRow } from './contact-relationships.repository';

/** The relationship as seen from `viewer` (one of its two contacts). */
export function toContactRelationshipDto(row: ContactRelationshipRow, viewer: string): ContactRelationshipDto {
  const stored = { id: row.variant_id, name: row.variant_name };
  const other = row.symmetrical || !row.other_id ? stored : { id: row.other_id, name: row.other_name ?? '' };
  const fromStoredSide = row.contact_id === viewer;
  const label = fromStoredSide ? stored : other;
  const reverse = fromStoredSide ? other : stored;
  return {
    id: row.id,
    relationship_type_id: row.relationship_type_id,
    contact_id: viewer,
    related_contact_id: fromStoredSide ? row.related_contact_id : row.contact_id,
    variant_id: label.id,
    label: label.name,
    reverse_variant_id: reverse.id,
    reverse_label: reverse.name,
    symmetrical: row.symmetrical,
    created_at: new Date(row.created_at).toISOString(),
  };
}
