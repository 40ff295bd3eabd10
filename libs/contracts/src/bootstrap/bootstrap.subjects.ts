/** Subjects of the bootstrap: gateway -> crm-core; spread into {@link Subjects}. */
export const BootstrapSubjects = {
  Bootstrap: 'crm.bootstrap.get.v1',
} as const;
