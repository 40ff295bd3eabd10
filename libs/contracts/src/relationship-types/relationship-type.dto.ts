import type { PageInfo } from '../paging/paging.request';

export interface RelationshipVariantDto {
  id: string;
  name: string;
}

/** The spec's Relationship type record. */
export interface RelationshipTypeDto {
  id: string;
  symmetrical: boolean;
  relationship_variants: RelationshipVariantDto[];
  created_at: string;
  modified_at: string;
}

export interface RelationshipTypeReply {
  relationship_type: RelationshipTypeDto;
}

export interface ListRelationshipTypesReply extends PageInfo {
  relationship_types: RelationshipTypeReply[];
}
