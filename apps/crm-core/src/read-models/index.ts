/** What several modules show of others: the contact wrapper, the company view, embedded records, field values. */
export * from './caps';
export { loadCompanyDtos, type CompanyLoadOptions } from './company.read-model';
export { loadCompanySummaries } from './company-summary.read-model';
export {
  contactEventData,
  contactEventSiblings,
  contactWrapperPage,
  LIST_ENTRIES,
  loadContactDtos,
  loadContactWrappers,
} from './contact.read-model';
export type { ContactPageSql } from './contact-wrapper.repository';
export { compareUrgency } from './contact.view';
export { fieldDefinitions, type FieldDefinitionRow } from './fields.repository';
export { fieldValues, toFieldRef } from './fields.view';
export {
  callsOfContacts,
  contactActionsOf,
  contactResourceArrays,
  dateConflicts,
  dealsOfContacts,
  meetingsOfContacts,
  notesOfContacts,
  pendingDealsOfCompanies,
  pendingDealsOfCompanyIds,
  pinnedAttachmentsOfContacts,
} from './records.read-model';
export { DOCUMENT_ROW_COLUMNS } from './contact-documents.repository';
