/** Subjects of statuses: gateway -> crm-core; spread into {@link Subjects}. */
export const StatusSubjects = {
  StatusesList: 'crm.statuses.list.v1',
  StatusesCreate: 'crm.statuses.create.v1',
  StatusesGet: 'crm.statuses.get.v1',
  StatusesUpdate: 'crm.statuses.update.v1',
  StatusesPatch: 'crm.statuses.patch.v1',
  StatusesDelete: 'crm.statuses.delete.v1',
} as const;
