import { ApiError } from '@crm/contracts';

export interface TypeVariant {
  id: string;
  symmetrical: boolean;
}

/**
 * The variant to store (the related contact's label): a directional type needs one of its two
 * variants; a symmetrical type takes its only one, sent or not. `{ unknown }`: the sent id is
 * none of the type's variants (the caller tells "of another type" from "not found").
 */
export function chooseVariant(variants: readonly TypeVariant[], sent: string | null | undefined): { id: string } | { unknown: string } {
  if (sent === undefined || sent === null) {
    if (variants[0].symmetrical) return { id: variants[0].id };
    throw ApiError.invalid({
      variant_id: 'is required for a directional relationship type: the id of the label the related contact gets',
    });
  }
  const id = sent.toLowerCase();
  return variants.some((v) => v.id === id) ? { id } : { unknown: id };
}

/** A contact is never related to itself. */
export function checkDistinctContacts(contactId: string, relatedId: string): void {
  if (relatedId === contactId) throw ApiError.invalid({ related_contact_id: 'a contact cannot be related to itself' });
}

/** The advisory-lock key of a pair of contacts, the same whichever way round. */
export function pairKey(a: string, b: string): string {
  const [low, high] = [a, b].sort();
  return `contact-relationship:${low}:${high}`;
}

/** How long a deleted relationship can be restored with DELETE …?undo=true; older deletions are purged. */
export const RELATIONSHIP_UNDO_DAYS = 30;
