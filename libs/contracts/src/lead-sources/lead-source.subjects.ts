/** Subjects of lead sources: gateway -> crm-core; spread into {@link Subjects}. */
export const LeadSourceSubjects = {
  LeadSourcesList: 'crm.lead-sources.list.v1',
  LeadSourcesCreate: 'crm.lead-sources.create.v1',
  LeadSourcesGet: 'crm.lead-sources.get.v1',
  LeadSourcesUpdate: 'crm.lead-sources.update.v1',
  LeadSourcesPatch: 'crm.lead-sources.patch.v1',
  LeadSourcesDelete: 'crm.lead-sources.delete.v1',
} as const;
