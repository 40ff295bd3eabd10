/** Subjects of custom, company and deal fields (issue 4): gateway -> crm-core; spread into {@link Subjects}. */
export const FieldSubjects = {
  /** gateway -> crm-core: /custom_fields (contact custom fields); one subject per set and operation. */
  CustomFieldsList: 'crm.custom-fields.list.v1',
  CustomFieldsGet: 'crm.custom-fields.get.v1',
  CustomFieldsCreate: 'crm.custom-fields.create.v1',
  CustomFieldsUpdate: 'crm.custom-fields.update.v1',
  CustomFieldsPatch: 'crm.custom-fields.patch.v1',
  CustomFieldsDelete: 'crm.custom-fields.delete.v1',
  /** gateway -> crm-core: /company_fields. */
  CompanyFieldsList: 'crm.company-fields.list.v1',
  CompanyFieldsGet: 'crm.company-fields.get.v1',
  CompanyFieldsCreate: 'crm.company-fields.create.v1',
  CompanyFieldsUpdate: 'crm.company-fields.update.v1',
  CompanyFieldsPatch: 'crm.company-fields.patch.v1',
  CompanyFieldsDelete: 'crm.company-fields.delete.v1',
  /** gateway -> crm-core: /deal_fields. */
  DealFieldsList: 'crm.deal-fields.list.v1',
  DealFieldsGet: 'crm.deal-fields.get.v1',
  DealFieldsCreate: 'crm.deal-fields.create.v1',
  DealFieldsUpdate: 'crm.deal-fields.update.v1',
  DealFieldsPatch: 'crm.deal-fields.patch.v1',
  DealFieldsDelete: 'crm.deal-fields.delete.v1',
} as const;
