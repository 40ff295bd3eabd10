import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { SortOrder } from '../contacts/contact.requests';
import { TimeFilterRequest } from '../paging/time-filter.request';
import { OptionalFlag, OptionalTrimmedString, SortOrderParam } from '../validation/field-rules';
import { LowerKey } from '../validation/transforms';

export const CONTACT_RELATIONSHIP_SORT_KEYS = ['created_at', 'modified_at'] as const;

/**
 * GET /contacts/{contact_id}/relationships: by creation unless `sort_by`; the filters narrow the
 * contact's own relationships, and the common time filters apply to created_at and modified_at.
 */
export class ListContactRelationshipsRequest extends TimeFilterRequest {
  @IsString()
  contact_id: string;

  /** Only relationships of this type. */
  @IsOptional()
  @IsString({ message: 'relationship_type_id must be the id of a relationship type' })
  @MaxLength(64, { message: 'relationship_type_id must be the id of a relationship type' })
  relationship_type_id?: string;

  /** Only the relationships with this other contact. */
  @IsOptional()
  @IsString({ message: 'contact_id_filter must be the id of a contact' })
  @MaxLength(64, { message: 'contact_id_filter must be the id of a contact' })
  contact_id_filter?: string;

  /** Only relationships in which this variant is one of the two labels. */
  @IsOptional()
  @IsString({ message: 'variant_id_filter must be the id of a relationship variant' })
  @MaxLength(64, { message: 'variant_id_filter must be the id of a relationship variant' })
  variant_id_filter?: string;

  /** Part of the other contact's name, company, email or phone, or of either variant's name (any letter case). */
  @OptionalTrimmedString(100)
  search?: string;

  /** true: only relationships of symmetrical types; false: only directional ones. */
  @OptionalFlag()
  symmetrical?: boolean;

  @IsOptional()
  @LowerKey()
  @IsIn(CONTACT_RELATIONSHIP_SORT_KEYS, { message: `sort_by must be one of: ${CONTACT_RELATIONSHIP_SORT_KEYS.join(', ')}` })
  sort_by?: (typeof CONTACT_RELATIONSHIP_SORT_KEYS)[number];

  @SortOrderParam()
  order?: SortOrder;
}

/** POST /contacts/{contact_id}/relationships. */
export class CreateContactRelationshipRequest {
  @IsString()
  contact_id: string;

  @IsString({ message: 'relationship_type_id must be the id of a relationship type' })
  relationship_type_id: string;

  @IsString({ message: 'related_contact_id must be the id of a contact' })
  related_contact_id: string;

  /**
   * The label of the related contact: required for a directional type (one of its two variants),
   * optional for a symmetrical one (its only variant).
   */
  @IsOptional()
  @IsString({ message: 'variant_id must be the id of a variant of the relationship type' })
  variant_id?: string;
}

export class ContactRelationshipIdRequest {
  @IsString()
  contact_id: string;

  @IsString()
  relationship_id: string;
}

/** DELETE /contacts/{contact_id}/relationships/{relationship_id}: `undo=true` restores a deletion of the last 30 days. */
export class DeleteContactRelationshipRequest extends ContactRelationshipIdRequest {
  /** `true`: restore the relationship deleted within the last 30 days instead of deleting it. */
  @OptionalFlag()
  undo?: boolean;
}

/**
 * PUT /contacts/{contact_id}/relationships/{relationship_id}: replaces the relationship, as seen
 * from the path's contact (which stays one end), with the fields of the create body.
 */
export class UpdateContactRelationshipRequest extends CreateContactRelationshipRequest {
  @IsString()
  relationship_id: string;
}
