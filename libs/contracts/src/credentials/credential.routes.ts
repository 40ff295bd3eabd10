import { EmptyRequest } from '../routes/empty.request';
import type { RouteDeclaration } from '../routes/route-declaration';
import { CredentialSubjects } from './credential.subjects';

/** The caller's API key. */
export const CREDENTIAL_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'changeAuthKey',
    method: 'POST',
    path: '/change_auth_key',
    subject: CredentialSubjects.ApiKeyRotate,
    access: 'write',
    apiKeyOnly: 'unauthorized',
    replyCarriesSecret: true,
    request: EmptyRequest,
    reply: 'ChangeAuthKeyReply',
    successStatus: 201,
    summary: "Replace the caller's API key (returned once); the old key stops working at once and every OAuth grant of the user is revoked",
    tag: 'Users',
  },
];
