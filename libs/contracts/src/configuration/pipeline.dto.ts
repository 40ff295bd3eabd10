import { IsString } from 'class-validator';
import type { PageInfo } from '../paging/paging.request';
import { PagingRequest } from '../paging/paging.request';
import { TimeFilterRequest } from '../paging/time-filter.request';

/** `pipeline`: the stages of deals (a deal's pipeline_id); `sales_pipeline`: a deal's sales_pipeline_id. */
export type PipelineType = 'pipeline' | 'sales_pipeline';

export type PipelineDto = {
  id: string;
  name: string;
  type: PipelineType;
  default: boolean;
  won_column_enabled: boolean;
  won_column_name: string;
  stages: Array<{ stage: number; label: string }>;
  created_at: string;
  modified_at: string;
};

export type PipelineReply = { pipeline: PipelineDto };
export type ListPipelinesReply = PageInfo & { pipelines: PipelineReply[] };

export class ListPipelinesRequest extends TimeFilterRequest {}

export class PipelineIdRequest {
  @IsString()
  pipeline_id: string;
}

/** Results a logged call may have (GET /call_results; a call's `call_result` is one of the ids). */
export const CALL_RESULTS: ReadonlyArray<{ id: string; text: string }> = [
  { id: 'interested', text: 'Interested' },
  { id: 'not_interested', text: 'Not interested' },
  { id: 'left_message', text: 'Left message' },
  { id: 'no_answer', text: 'No answer' },
  { id: 'other', text: 'Other' },
];

export type CallResultReply = { call_result: { id: string; text: string } };
export type ListCallResultsReply = PageInfo & { call_results: CallResultReply[] };

export class ListCallResultsRequest extends PagingRequest {}

/** Titles offered for a contact's `title` (any string up to 50 characters is stored). */
export const CONTACT_TITLES: readonly string[] = ['Mr', 'Mrs', 'Ms', 'Miss', 'Dr', 'Prof'];
