import type { RouteDeclaration } from '../routes/route-declaration';
import { GetUserRequest, ListUsersRequest } from './user.requests';
import { UserSubjects } from './user.subjects';

/** Users of the caller's account. */
export const USER_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listUsers',
    method: 'GET',
    path: '/users',
    subject: UserSubjects.UsersList,
    access: 'read',
    request: ListUsersRequest,
    reply: 'ListUsersReply',
    successStatus: 200,
    summary: "List the users of the caller's account",
    tag: 'Users',
  },
  {
    operationId: 'getUser',
    method: 'GET',
    path: '/users/{user_id}',
    subject: UserSubjects.UsersGet,
    access: 'read',
    request: GetUserRequest,
    reply: 'GetUserReply',
    successStatus: 200,
    summary: "Get a user; bcc_email and google_contacts_email only for the caller's own id",
    tag: 'Users',
  },
];
