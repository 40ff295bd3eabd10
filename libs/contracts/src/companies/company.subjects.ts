/** Subjects of companies (issue 3): gateway -> crm-core; spread into {@link Subjects}. */
export const CompanySubjects = {
  CompaniesList: 'crm.companies.list.v1',
  CompaniesGet: 'crm.companies.get.v1',
  CompaniesUpdate: 'crm.companies.update.v1',
  CompaniesPatch: 'crm.companies.patch.v1',
} as const;
