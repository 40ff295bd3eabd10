/** Subjects of relationship types (issue 4): gateway -> crm-core; spread into {@link Subjects}. */
export const RelationshipTypeSubjects = {
  RelationshipTypesList: 'crm.relationship-types.list.v1',
  RelationshipTypesCreate: 'crm.relationship-types.create.v1',
  RelationshipTypesGet: 'crm.relationship-types.get.v1',
  RelationshipTypesUpdate: 'crm.relationship-types.update.v1',
  RelationshipTypesDelete: 'crm.relationship-types.delete.v1',
} as const;
