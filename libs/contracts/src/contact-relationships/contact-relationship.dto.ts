import type { PageInfo } from '../paging/paging.request';

/**
 * A relationship between two contacts as seen from `contact_id` (the contact of the path):
 * `related_contact_id` is the other contact and `variant_id`/`label` the label the other contact
 * has for this one (e.g. "Manager": the related contact is this contact's manager). The same
 * relationship read from the other contact shows the other variant of a directional type, and
 * the same label for a symmetrical one.
 */
/** One end of a relationship as OnePageCRM's `Related_contact` has it: the contact and its label (variant) in it. */
export type RelatedContactDto = {
  variant_id: string;
  variant_name: string;
  contact_id: string;
  first_name: string;
  last_name: string;
  photo_url: string;
  /** '' when the contact has no company. */
  company_id: string;
  company_name: string;
  owner_id: string;
};

export type ContactRelationshipDto = {
  id: string;
  relationship_type_id: string;
  contact_id: string;
  related_contact_id: string;
  variant_id: string;
  label: string;
  /** The label of `contact_id` from the related contact's side. */
  reverse_variant_id: string;
  reverse_label: string;
  symmetrical: boolean;
  /** OnePageCRM's view of the two ends: the viewing contact first, then the related one, each with its own label. */
  related_contacts: RelatedContactDto[];
  created_at: string;
  modified_at: string;
};

export type ContactRelationshipReply = { relationship: ContactRelationshipDto };

export type ListContactRelationshipsReply = PageInfo & { relationships: ContactRelationshipReply[] };
