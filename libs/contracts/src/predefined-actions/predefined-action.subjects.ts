/** Subjects of predefined actions and their groups (issue 4): gateway -> crm-core; spread into {@link Subjects}. */
export const PredefinedActionSubjects = {
  PredefinedActionsList: 'crm.predefined-actions.list.v1',
  PredefinedActionsCreate: 'crm.predefined-actions.create.v1',
  PredefinedActionsGet: 'crm.predefined-actions.get.v1',
  PredefinedActionsDelete: 'crm.predefined-actions.delete.v1',
  PredefinedActionsUpdate: 'crm.predefined-actions.update.v1',
  PredefinedActionGroupsList: 'crm.predefined-action-groups.list.v1',
  PredefinedActionGroupsCreate: 'crm.predefined-action-groups.create.v1',
  PredefinedActionGroupsGet: 'crm.predefined-action-groups.get.v1',
  PredefinedActionGroupsDelete: 'crm.predefined-action-groups.delete.v1',
  PredefinedActionGroupsUpdate: 'crm.predefined-action-groups.update.v1',
} as const;
