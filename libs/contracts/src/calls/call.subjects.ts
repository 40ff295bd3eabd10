/** Subjects of calls (issue 5): gateway -> crm-core; spread into {@link Subjects}. */
export const CallSubjects = {
  CallsList: 'crm.calls.list.v1',
  CallsGet: 'crm.calls.get.v1',
  CallsCreate: 'crm.calls.create.v1',
  CallsUpdate: 'crm.calls.update.v1',
  CallsDelete: 'crm.calls.delete.v1',
} as const;
