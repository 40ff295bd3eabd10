/** Subjects of deals (issue 5): gateway -> crm-core; spread into {@link Subjects}. */
export const DealSubjects = {
  DealsList: 'crm.deals.list.v1',
  DealsGet: 'crm.deals.get.v1',
  DealsCreate: 'crm.deals.create.v1',
  DealsUpdate: 'crm.deals.update.v1',
  DealsPatch: 'crm.deals.patch.v1',
  DealsDelete: 'crm.deals.delete.v1',
} as const;
