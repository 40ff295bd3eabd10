/** Subjects of deals, notes, calls, meetings and actions (issue 5): gateway -> crm-core; spread into {@link Subjects}. */
export const RecordSubjects = {} as const;
