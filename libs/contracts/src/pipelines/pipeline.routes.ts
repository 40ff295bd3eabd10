import type { RouteDeclaration } from '../routes/route-declaration';
import { ListPipelinesRequest, PipelineIdRequest } from './pipeline.requests';
import { PipelineSubjects } from './pipeline.subjects';

/** Pipelines (issue 4). */
export const PIPELINE_ROUTES: readonly RouteDeclaration[] = [
  {
    operationId: 'listPipelines',
    method: 'GET',
    path: '/pipelines',
    subject: PipelineSubjects.PipelinesList,
    access: 'read',
    request: ListPipelinesRequest,
    reply: 'ListPipelinesReply',
    successStatus: 200,
    summary: "List the account's deal pipelines and sales pipelines with their stages",
    tag: 'Pipelines',
  },
  {
    operationId: 'getPipeline',
    method: 'GET',
    path: '/pipelines/{pipeline_id}',
    subject: PipelineSubjects.PipelinesGet,
    access: 'read',
    request: PipelineIdRequest,
    reply: 'PipelineReply',
    successStatus: 200,
    summary: 'Get a pipeline',
    tag: 'Pipelines',
  },
];
