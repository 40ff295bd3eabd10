import type { RouteDeclaration } from '../routes/route-declaration';
import { ListCallResultsRequest } from './call-result.requests';
import { CallResultSubjects } from './call-result.subjects';

/** Call results (issue 4). */
export const CALL_RESULT_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listCallResults',
    method: 'GET',
    path: '/call_results',
    subject: CallResultSubjects.CallResultsList,
    access: 'read',
    request: ListCallResultsRequest,
    reply: 'ListCallResultsReply',
    listFormat: true,
    successStatus: 200,
    summary: 'List the results a logged call may have',
    tag: 'Calls',
  },
];
