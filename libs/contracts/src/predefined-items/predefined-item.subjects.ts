/** Subjects of predefined items and their groups (issue 13): gateway -> crm-core; spread into {@link Subjects}. */
export const PredefinedItemSubjects = {
  PredefinedItemsList: 'crm.predefined-items.list.v1',
  PredefinedItemsCreate: 'crm.predefined-items.create.v1',
  PredefinedItemsGet: 'crm.predefined-items.get.v1',
  PredefinedItemsUpdate: 'crm.predefined-items.update.v1',
  PredefinedItemsDelete: 'crm.predefined-items.delete.v1',
  PredefinedItemGroupsList: 'crm.predefined-item-groups.list.v1',
  PredefinedItemGroupsCreate: 'crm.predefined-item-groups.create.v1',
  PredefinedItemGroupsGet: 'crm.predefined-item-groups.get.v1',
  PredefinedItemGroupsDelete: 'crm.predefined-item-groups.delete.v1',
} as const;
