import { CONFIGURATION_ROUTES } from '../configuration/configuration.routes';
import { CONTACT_ROUTES } from '../contacts/contact.routes';
import { RECORD_ROUTES } from '../records/record.routes';
import { FIELD_ROUTES } from '../fields/field.routes';
import { PREDEFINED_ACTION_ROUTES } from '../predefined-actions/predefined-action.routes';
import { RELATIONSHIP_TYPE_ROUTES } from '../relationship-types/relationship-type.routes';
import { Subjects } from '../rpc/subjects';
import { WEBHOOK_ROUTES } from '../webhooks/webhook.routes';
import { GetUserRequest } from '../users/get-user.request';
import { ListUsersRequest } from '../users/list-users.request';
import type { RouteDeclaration } from './route-declaration';

/** Routes whose request has no fields. */
export class EmptyRequest {}

/** Every API v3 route. Adding an endpoint: declare it here, handle its subject in one service. */
export const API_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listUsers',
    method: 'GET',
    path: '/users',
    subject: Subjects.UsersList,
    access: 'read',
    request: ListUsersRequest,
    successStatus: 200,
    summary: "List the users of the caller's account",
    tag: 'Users',
  },
  {
    operationId: 'getUser',
    method: 'GET',
    path: '/users/{user_id}',
    subject: Subjects.UsersGet,
    access: 'read',
    request: GetUserRequest,
    successStatus: 200,
    summary: "Get a user; bcc_email and google_contacts_email only for the caller's own id",
    tag: 'Users',
  },
  {
    operationId: 'changeAuthKey',
    method: 'POST',
    path: '/change_auth_key',
    subject: Subjects.ApiKeyRotate,
    access: 'write',
    apiKeyOnly: 'unauthorized',
    request: EmptyRequest,
    successStatus: 201,
    summary: "Replace the caller's API key (returned once); the old key stops working at once and every OAuth grant of the user is revoked",
    tag: 'Users',
  },
  ...FIELD_ROUTES,
  ...RELATIONSHIP_TYPE_ROUTES,
  ...PREDEFINED_ACTION_ROUTES,
  ...WEBHOOK_ROUTES,
  ...CONTACT_ROUTES,
  ...CONFIGURATION_ROUTES,
  ...RECORD_ROUTES,
];

export const API_PREFIX = '/api/v3';
