/**
 * Subjects of account configuration (issue 4: statuses, lead sources, tags, saved filters,
 * contact relationships, bootstrap): gateway -> crm-core; spread into {@link Subjects}.
 */
export const ConfigurationSubjects = {} as const;
