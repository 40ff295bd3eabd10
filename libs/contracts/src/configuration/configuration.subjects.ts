/**
 * Subjects of account configuration (issue 4: statuses, lead sources, tags, saved filters,
 * contact relationships, pipelines, call results, bootstrap): gateway -> crm-core; spread into
 * {@link Subjects}.
 */
export const ConfigurationSubjects = {
  StatusesList: 'crm.statuses.list.v1',
  StatusesCreate: 'crm.statuses.create.v1',
  StatusesGet: 'crm.statuses.get.v1',
  StatusesUpdate: 'crm.statuses.update.v1',
  StatusesPatch: 'crm.statuses.patch.v1',
  StatusesDelete: 'crm.statuses.delete.v1',
  LeadSourcesList: 'crm.lead-sources.list.v1',
  LeadSourcesCreate: 'crm.lead-sources.create.v1',
  LeadSourcesGet: 'crm.lead-sources.get.v1',
  LeadSourcesUpdate: 'crm.lead-sources.update.v1',
  LeadSourcesPatch: 'crm.lead-sources.patch.v1',
  LeadSourcesDelete: 'crm.lead-sources.delete.v1',
  TagsList: 'crm.tags.list.v1',
  TagsDelete: 'crm.tags.delete.v1',
  FiltersList: 'crm.filters.list.v1',
  FiltersCreate: 'crm.filters.create.v1',
  FiltersGet: 'crm.filters.get.v1',
  FiltersUpdate: 'crm.filters.update.v1',
  FiltersPatch: 'crm.filters.patch.v1',
  FiltersDelete: 'crm.filters.delete.v1',
  ContactRelationshipsList: 'crm.contact-relationships.list.v1',
  ContactRelationshipsCreate: 'crm.contact-relationships.create.v1',
  ContactRelationshipsDelete: 'crm.contact-relationships.delete.v1',
  PipelinesList: 'crm.pipelines.list.v1',
  PipelinesGet: 'crm.pipelines.get.v1',
  CallResultsList: 'crm.call-results.list.v1',
  Bootstrap: 'crm.bootstrap.get.v1',
} as const;
