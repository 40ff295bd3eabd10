import type { ContactRelationshipDto, RelatedContactDto } from '@crm/contracts';
import type { ContactRelationshipRow } from './contact-relationships.repository';
import { isoOf } from '../records/record-common';

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
    // The stored variant labels related_contact_id; the other one (or the same, symmetrical) contact_id.
    related_contacts: fromStoredSide ? [end(row, 'a', other), end(row, 'b', stored)] : [end(row, 'b', stored), end(row, 'a', other)],
    created_at: isoOf(row.created_at),
    modified_at: isoOf(row.modified_at),
  };
}

type Variant = { id: string; name: string };

/** One end of the relationship (`a` the stored contact_id, `b` related_contact_id) with its label. */
function end(row: ContactRelationshipRow, side: 'a' | 'b', variant: Variant): RelatedContactDto {
  return {
    variant_id: variant.id,
    variant_name: variant.name,
    contact_id: side === 'a' ? row.contact_id : row.related_contact_id,
    first_name: row[`${side}_first_name`],
    last_name: row[`${side}_last_name`],
    photo_url: row[`${side}_photo_url`],
    company_id: row[`${side}_company_id`] ?? '',
    company_name: row[`${side}_company_name`],
    owner_id: row[`${side}_owner_id`],
  };
}
