import type { RouteDeclaration } from '../routes/route-declaration';
import { ContactSubjects as S } from './contact.subjects';
import { CompanyIdRequest, ListCompaniesRequest, PatchCompanyRequest, UpdateCompanyRequest } from './company.requests';
import {
  CascadeContactsRequest,
  ChangeStatusRequest,
  CloseSalesCycleRequest,
  ContactIdRequest,
  ContactIdsRequest,
  ContactTagRequest,
  CreateContactRequest,
  ListContactsRequest,
  PatchContactRequest,
  UpdateContactRequest,
} from './contact.requests';

const tag = 'Contacts';
const companies = 'Companies';

/**
 * Contacts and companies (issue 3). Fixed paths (`/contacts/cascade`, `/contacts/delete`,
 * `/contacts/undelete`) come before `/contacts/{contact_id}`: the first matching declaration wins.
 */
export const CONTACT_ROUTES: readonly RouteDeclaration[] = [
  { operationId: 'listContacts', method: 'GET', path: '/contacts', subject: S.ContactsList, access: 'read', request: ListContactsRequest, successStatus: 200, summary: "List the caller's contacts (team=true: the account's) by name, with filters, fields=<resource>(all), sort and paging; entries are contact wrappers", tag },
  { operationId: 'createContact', method: 'POST', path: '/contacts', subject: S.ContactsCreate, access: 'write', request: CreateContactRequest, successStatus: 201, summary: 'Create a contact (last_name or company_name required; status defaults to lead; a company is created or matched through company_name)', tag },
  { operationId: 'cascadeContactsFirst', method: 'GET', path: '/contacts/cascade', subject: S.ContactsCascade, access: 'read', request: CascadeContactsRequest, successStatus: 200, summary: 'First batch of 100 contacts in name order (same filters as GET /contacts), with items_left and next_set_url', tag },
  { operationId: 'cascadeContacts', method: 'GET', path: '/contacts/cascade/{last_id}', subject: S.ContactsCascade, access: 'read', request: CascadeContactsRequest, successStatus: 200, summary: 'The next batch of 100 contacts after last_id (0 for the first batch), keyset-paged by name', tag },
  { operationId: 'deleteContacts', method: 'DELETE', path: '/contacts/delete', subject: S.ContactsDeleteMany, access: 'write', request: ContactIdsRequest, successStatus: 200, summary: 'Delete up to 100 contacts (ids comma-separated; needs the delete_contacts permission); undoable for 30 days; summary blocks follow', tag },
  { operationId: 'undeleteContacts', method: 'POST', path: '/contacts/undelete', subject: S.ContactsUndelete, access: 'write', request: ContactIdsRequest, successStatus: 200, summary: 'Restore contacts deleted within the last 30 days (ids comma-separated); summary blocks follow', tag },
  { operationId: 'getContact', method: 'GET', path: '/contacts/{contact_id}', subject: S.ContactsGet, access: 'read', request: ContactIdRequest, successStatus: 200, summary: 'Get a contact (contact wrapper)', tag },
  { operationId: 'updateContact', method: 'PUT', path: '/contacts/{contact_id}', subject: S.ContactsUpdate, access: 'write', request: UpdateContactRequest, successStatus: 200, summary: 'Replace the writable fields of a contact (absent ones cleared); partial=true changes only the fields sent', tag },
  { operationId: 'patchContact', method: 'PATCH', path: '/contacts/{contact_id}', subject: S.ContactsPatch, access: 'write', request: PatchContactRequest, successStatus: 200, summary: 'Change only the fields sent (an array sent replaces the whole array)', tag },
  { operationId: 'deleteContact', method: 'DELETE', path: '/contacts/{contact_id}', subject: S.ContactsDelete, access: 'write', request: ContactIdRequest, successStatus: 200, summary: 'Delete a contact (needs the delete_contacts permission); undoable for 30 days', tag },
  { operationId: 'changeContactStatus', method: 'PUT', path: '/contacts/{contact_id}/change_status/{status_id}', subject: S.ContactsChangeStatus, access: 'write', request: ChangeStatusRequest, successStatus: 200, summary: "Set the contact's status to one of the account's statuses; summary blocks follow", tag },
  { operationId: 'assignContactTag', method: 'PUT', path: '/contacts/{contact_id}/assign_tag/{tag_name}', subject: S.ContactsAssignTag, access: 'write', request: ContactTagRequest, successStatus: 200, summary: 'Add a tag (an existing tag of that name in any letter case, else a new one); summary blocks follow', tag },
  { operationId: 'unassignContactTag', method: 'PUT', path: '/contacts/{contact_id}/unassign_tag/{tag_name}', subject: S.ContactsUnassignTag, access: 'write', request: ContactTagRequest, successStatus: 200, summary: 'Remove a tag (name in any letter case); summary blocks follow', tag },
  { operationId: 'closeContactSalesCycle', method: 'PUT', path: '/contacts/{contact_id}/close_sales_cycle', subject: S.ContactsCloseSalesCycle, access: 'write', request: CloseSalesCycleRequest, successStatus: 200, summary: "Close the caller's sales cycle with the contact ({ comment })", tag },
  { operationId: 'listCompanies', method: 'GET', path: '/companies', subject: S.CompaniesList, access: 'read', request: ListCompaniesRequest, successStatus: 200, summary: "List the account's companies by name, with their counters, contacts and pending deals", tag: companies },
  { operationId: 'getCompany', method: 'GET', path: '/companies/{company_id}', subject: S.CompaniesGet, access: 'read', request: CompanyIdRequest, successStatus: 200, summary: 'Get a company with its counters, contacts and pending deals', tag: companies },
  { operationId: 'updateCompany', method: 'PUT', path: '/companies/{company_id}', subject: S.CompaniesUpdate, access: 'write', request: UpdateCompanyRequest, successStatus: 200, summary: 'Replace the writable fields of a company (name required); partial=true changes only the fields sent', tag: companies },
  { operationId: 'patchCompany', method: 'PATCH', path: '/companies/{company_id}', subject: S.CompaniesPatch, access: 'write', request: PatchCompanyRequest, successStatus: 200, summary: 'Change only the fields of a company that are sent', tag: companies },
];
