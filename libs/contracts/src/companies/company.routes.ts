import type { RouteDeclaration } from '../routes/route-declaration';
import { CompanyIdRequest, ListCompaniesRequest, PatchCompanyRequest, UpdateCompanyRequest } from './company.requests';
import { CompanySubjects } from './company.subjects';

/** Companies (issue 3). */
export const COMPANY_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listCompanies',
    method: 'GET',
    path: '/companies',
    subject: CompanySubjects.CompaniesList,
    access: 'read',
    request: ListCompaniesRequest,
    reply: 'ListCompaniesReply',
    successStatus: 200,
    summary: "List the account's companies by name, with their counters, contacts and pending deals",
    tag: 'Companies',
  },
  {
    operationId: 'getCompany',
    method: 'GET',
    path: '/companies/{company_id}',
    subject: CompanySubjects.CompaniesGet,
    access: 'read',
    request: CompanyIdRequest,
    reply: 'CompanyReply',
    successStatus: 200,
    summary: 'Get a company with its counters, contacts and pending deals',
    tag: 'Companies',
  },
  {
    operationId: 'updateCompany',
    method: 'PUT',
    path: '/companies/{company_id}',
    subject: CompanySubjects.CompaniesUpdate,
    access: 'write',
    request: UpdateCompanyRequest,
    reply: 'CompanyReply',
    successStatus: 200,
    summary: 'Replace the writable fields of a company (name required); partial=true changes only the fields sent',
    tag: 'Companies',
  },
  {
    operationId: 'patchCompany',
    method: 'PATCH',
    path: '/companies/{company_id}',
    subject: CompanySubjects.CompaniesPatch,
    access: 'write',
    request: PatchCompanyRequest,
    reply: 'CompanyReply',
    successStatus: 200,
    summary: 'Change only the fields of a company that are sent',
    tag: 'Companies',
  },
];
