/** Subjects of saved filters: gateway -> crm-core; spread into {@link Subjects}. */
export const FilterSubjects = {
  FiltersList: 'crm.filters.list.v1',
  FiltersCreate: 'crm.filters.create.v1',
  FiltersGet: 'crm.filters.get.v1',
  FiltersUpdate: 'crm.filters.update.v1',
  FiltersPatch: 'crm.filters.patch.v1',
  FiltersDelete: 'crm.filters.delete.v1',
} as const;
