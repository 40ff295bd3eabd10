import { IsString } from 'class-validator';
import { TimeFilterRequest } from '../paging/time-filter.request';

export class ListPipelinesRequest extends TimeFilterRequest {}

export class PipelineIdRequest {
  @IsString()
  pipeline_id: string;
}
