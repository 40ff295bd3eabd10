import type { RouteDeclaration } from '../routes/route-declaration';
import { CreateStatusRequest, ListStatusesRequest, PatchStatusRequest, StatusIdRequest, UpdateStatusRequest } from './status.requests';
import { StatusSubjects } from './status.subjects';

/** Statuses (issue 4). */
export const STATUS_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listStatuses',
    method: 'GET',
    path: '/statuses',
    subject: StatusSubjects.StatusesList,
    access: 'read',
    request: ListStatusesRequest,
    reply: 'ListStatusesReply',
    listFormat: true,
    successStatus: 200,
    summary:
      "List the account's statuses (the built-in lead status first) with their contact counts, action stream count and per-user counts",
    tag: 'Statuses',
  },
  {
    operationId: 'createStatus',
    method: 'POST',
    path: '/statuses',
    subject: StatusSubjects.StatusesCreate,
    access: 'write',
    adminOnly: true,
    request: CreateStatusRequest,
    reply: 'StatusReply',
    successStatus: 201,
    summary:
      'Create a status from its text (the name, unique regardless of letter case), color and description (admin only); the type key status is assigned: custom1, custom2, ...',
    tag: 'Statuses',
  },
  {
    operationId: 'getStatus',
    method: 'GET',
    path: '/statuses/{status_id}',
    subject: StatusSubjects.StatusesGet,
    access: 'read',
    request: StatusIdRequest,
    reply: 'StatusReply',
    successStatus: 200,
    summary: 'Get a status with its counts',
    tag: 'Statuses',
  },
  {
    operationId: 'updateStatus',
    method: 'PUT',
    path: '/statuses/{status_id}',
    subject: StatusSubjects.StatusesUpdate,
    access: 'write',
    adminOnly: true,
    request: UpdateStatusRequest,
    reply: 'StatusReply',
    successStatus: 200,
    summary:
      "Replace a status's text, description and color (admin only); with partial=true only the fields sent change; status, the type key, is read-only",
    tag: 'Statuses',
  },
  {
    operationId: 'patchStatus',
    method: 'PATCH',
    path: '/statuses/{status_id}',
    subject: StatusSubjects.StatusesPatch,
    access: 'write',
    adminOnly: true,
    request: PatchStatusRequest,
    reply: 'StatusReply',
    successStatus: 200,
    summary: 'Change the fields sent of a status (admin only)',
    tag: 'Statuses',
  },
  {
    operationId: 'deleteStatus',
    method: 'DELETE',
    path: '/statuses/{status_id}',
    subject: StatusSubjects.StatusesDelete,
    access: 'write',
    adminOnly: true,
    request: StatusIdRequest,
    reply: 'EmptyReply',
    successStatus: 200,
    summary:
      'Delete a status (admin only): its contacts, companies and webhooks fall back to the lead status, in one transaction; the lead status cannot be deleted',
    tag: 'Statuses',
  },
];
