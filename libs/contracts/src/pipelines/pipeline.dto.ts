import type { PageInfo } from '../paging/paging.request';

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
