import type { RouteDeclaration } from '../routes/route-declaration';
import {
  CreateRelationshipTypeRequest,
  ListRelationshipTypesRequest,
  RelationshipTypeIdRequest,
  UpdateRelationshipTypeRequest,
} from './relationship-type.requests';
import { RelationshipTypeSubjects } from './relationship-type.subjects';

const tag = 'Relationship types';

/** /relationship_types (issue 4; decisions.md "Configuration and users"). */
export const RELATIONSHIP_TYPE_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listRelationshipTypes',
    method: 'GET',
    path: '/relationship_types',
    subject: RelationshipTypeSubjects.RelationshipTypesList,
    access: 'read',
    request: ListRelationshipTypesRequest,
    reply: 'ListRelationshipTypesReply',
    successStatus: 200,
    summary: "List the account's relationship types",
    tag,
  },
  {
    operationId: 'createRelationshipType',
    method: 'POST',
    path: '/relationship_types',
    subject: RelationshipTypeSubjects.RelationshipTypesCreate,
    access: 'write',
    adminOnly: true,
    request: CreateRelationshipTypeRequest,
    reply: 'RelationshipTypeReply',
    successStatus: 201,
    summary:
      'Create a relationship type (admin only): one variant = symmetrical (both contacts get the label), two = directional (one label per end)',
    tag,
  },
  {
    operationId: 'getRelationshipType',
    method: 'GET',
    path: '/relationship_types/{relationship_type_id}',
    subject: RelationshipTypeSubjects.RelationshipTypesGet,
    access: 'read',
    request: RelationshipTypeIdRequest,
    reply: 'RelationshipTypeReply',
    successStatus: 200,
    summary: 'Get a relationship type',
    tag,
  },
  {
    operationId: 'updateRelationshipType',
    method: 'PUT',
    path: '/relationship_types/{relationship_type_id}',
    subject: RelationshipTypeSubjects.RelationshipTypesUpdate,
    access: 'write',
    adminOnly: true,
    request: UpdateRelationshipTypeRequest,
    reply: 'RelationshipTypeReply',
    successStatus: 200,
    summary:
      'Rename the variants of a relationship type (admin only): the complete set of existing variant ids with new names; variants cannot be added or removed',
    tag,
  },
  {
    operationId: 'deleteRelationshipType',
    method: 'DELETE',
    path: '/relationship_types/{relationship_type_id}',
    subject: RelationshipTypeSubjects.RelationshipTypesDelete,
    access: 'write',
    adminOnly: true,
    request: RelationshipTypeIdRequest,
    reply: 'EmptyReply',
    successStatus: 200,
    summary: 'Delete a relationship type and, permanently, every relationship using it (soft-deleted ones included); admin only',
    tag,
  },
];
