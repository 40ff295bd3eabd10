/** Subjects of relationships between contacts: gateway -> crm-core; spread into {@link Subjects}. */
export const ContactRelationshipSubjects = {
  ContactRelationshipsList: 'crm.contact-relationships.list.v1',
  ContactRelationshipsCreate: 'crm.contact-relationships.create.v1',
  ContactRelationshipsDelete: 'crm.contact-relationships.delete.v1',
  ContactRelationshipsGet: 'crm.contact-relationships.get.v1',
  ContactRelationshipsUpdate: 'crm.contact-relationships.update.v1',
} as const;
