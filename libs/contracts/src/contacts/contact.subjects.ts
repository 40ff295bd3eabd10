/** Subjects of contacts and companies (issue 3): gateway -> crm-core; spread into {@link Subjects}. */
export const ContactSubjects = {} as const;
