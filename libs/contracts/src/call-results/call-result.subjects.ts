/** Subjects of call results: gateway -> crm-core; spread into {@link Subjects}. */
export const CallResultSubjects = {
  CallResultsList: 'crm.call-results.list.v1',
} as const;
