/** Subjects of companies (issue 3): gateway -> crm-core; spread into {@link Subjects}. */
export const CompanySubjects = {
  CompaniesList: 'crm.companies.list.v1',
  CompaniesGet: 'crm.companies.get.v1',
  CompaniesUpdate: 'crm.companies.update.v1',
  CompaniesPatch: 'crm.companies.patch.v1',
  CompaniesLinkedContactsList: 'crm.companies.linked-contacts.list.v1',
  CompaniesLinkedContactsLink: 'crm.companies.linked-contacts.link.v1',
  CompaniesLinkedContactsUnlink: 'crm.companies.linked-contacts.unlink.v1',
  CompaniesSyncedStatusSet: 'crm.companies.synced-status.set.v1',
  CompaniesSyncedStatusRemove: 'crm.companies.synced-status.remove.v1',
} as const;
