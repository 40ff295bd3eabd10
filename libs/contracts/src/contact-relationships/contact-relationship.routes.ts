import type { RouteDeclaration } from '../routes/route-declaration';
import {
  ContactRelationshipIdRequest,
  DeleteContactRelationshipRequest,
  CreateContactRelationshipRequest,
  ListContactRelationshipsRequest,
  UpdateContactRelationshipRequest,
} from './contact-relationship.requests';
import { ContactRelationshipSubjects } from './contact-relationship.subjects';

/** Relationships between contacts (issue 4). */
export const CONTACT_RELATIONSHIP_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listContactRelationships',
    method: 'GET',
    path: '/contacts/{contact_id}/relationships',
    subject: ContactRelationshipSubjects.ContactRelationshipsList,
    access: 'read',
    request: ListContactRelationshipsRequest,
    reply: 'ListContactRelationshipsReply',
    successStatus: 200,
    summary: "List a contact's relationships to other contacts, each with the label of the related contact",
    tag: 'Contact relationships',
  },
  {
    operationId: 'createContactRelationship',
    method: 'POST',
    path: '/contacts/{contact_id}/relationships',
    subject: ContactRelationshipSubjects.ContactRelationshipsCreate,
    access: 'write',
    request: CreateContactRelationshipRequest,
    reply: 'ContactRelationshipReply',
    successStatus: 201,
    summary:
      'Relate two contacts: a symmetrical type gives both the same label; a directional one needs variant_id, the label of the related contact (the contact gets the other)',
    tag: 'Contact relationships',
  },
  {
    operationId: 'getContactRelationship',
    method: 'GET',
    path: '/contacts/{contact_id}/relationships/{relationship_id}',
    subject: ContactRelationshipSubjects.ContactRelationshipsGet,
    access: 'read',
    request: ContactRelationshipIdRequest,
    reply: 'ContactRelationshipReply',
    successStatus: 200,
    summary: 'Get a relationship of the contact, as seen from it',
    tag: 'Contact relationships',
  },
  {
    operationId: 'updateContactRelationship',
    method: 'PUT',
    path: '/contacts/{contact_id}/relationships/{relationship_id}',
    subject: ContactRelationshipSubjects.ContactRelationshipsUpdate,
    access: 'write',
    request: UpdateContactRelationshipRequest,
    reply: 'ContactRelationshipReply',
    successStatus: 200,
    summary: "Replace a relationship of the contact (type, related contact, variant_id as on create); the path's contact stays one end",
    tag: 'Contact relationships',
  },
  {
    operationId: 'deleteContactRelationship',
    method: 'DELETE',
    path: '/contacts/{contact_id}/relationships/{relationship_id}',
    subject: ContactRelationshipSubjects.ContactRelationshipsDelete,
    access: 'write',
    request: DeleteContactRelationshipRequest,
    reply: 'EmptyReply',
    successStatus: 200,
    summary: 'Delete a relationship (from either of its contacts); undo=true restores one deleted within 30 days',
    tag: 'Contact relationships',
  },
];
