import { IsOptional, IsString } from 'class-validator';
import { PagingRequest } from '../paging/paging.request';

export class ListContactRelationshipsRequest extends PagingRequest {
  @IsString()
  contact_id: string;
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

/**
 * PUT /contacts/{contact_id}/relationships/{relationship_id}: replaces the relationship, as seen
 * from the path's contact (which stays one end), with the fields of the create body.
 */
export class UpdateContactRelationshipRequest extends CreateContactRelationshipRequest {
  @IsString()
  relationship_id: string;
}
