/** Subjects of contacts: gateway -> crm-core; spread into {@link Subjects}. */
export const ContactSubjects = {
  ContactsList: 'crm.contacts.list.v1',
  ContactsCascade: 'crm.contacts.cascade.v1',
  ContactsGet: 'crm.contacts.get.v1',
  ContactsCreate: 'crm.contacts.create.v1',
  /** PUT /contacts/{id} (replace; `partial=true` changes only the fields sent). */
  ContactsUpdate: 'crm.contacts.update.v1',
  ContactsPatch: 'crm.contacts.patch.v1',
  /** DELETE /contacts/{id}: soft delete of one contact. */
  ContactsDelete: 'crm.contacts.delete.v1',
  /** DELETE /contacts/delete?ids=: soft delete of up to 100 contacts. */
  ContactsDeleteMany: 'crm.contacts.delete-many.v1',
  ContactsUndelete: 'crm.contacts.undelete.v1',
  ContactsChangeStatus: 'crm.contacts.change-status.v1',
  ContactsAssignTag: 'crm.contacts.assign-tag.v1',
  ContactsUnassignTag: 'crm.contacts.unassign-tag.v1',
  ContactsCloseSalesCycle: 'crm.contacts.close-sales-cycle.v1',
  ContactsForceCloseSalesCycle: 'crm.contacts.force-close-sales-cycle.v1',
  ContactsReopenSalesCycle: 'crm.contacts.reopen-sales-cycle.v1',
  ContactsChangeOwner: 'crm.contacts.change-owner.v1',
  ContactsStar: 'crm.contacts.star.v1',
  ContactsUnstar: 'crm.contacts.unstar.v1',
  ContactsSplit: 'crm.contacts.split.v1',
  ContactsSaveToGoogle: 'crm.contacts.save-to-google.v1',
  ContactsByFilter: 'crm.contacts.by-filter.v1',
  ContactsActionStream: 'crm.contacts.action-stream.v1',
  ContactsTeamStream: 'crm.contacts.team-stream.v1',
} as const;
