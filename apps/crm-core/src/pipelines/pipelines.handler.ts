import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import { Subjects, type Caller, type ListCallResultsRequest, type ListPipelinesRequest, type PipelineIdRequest } from '@crm/contracts';
import { PipelinesService } from './pipelines.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class PipelinesHandler {
  constructor(private readonly pipelines: PipelinesService) {}

  @MessagePattern(Subjects.PipelinesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListPipelinesRequest) {
    return this.pipelines.list(caller, request);
  }

  @MessagePattern(Subjects.PipelinesGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: PipelineIdRequest) {
    return this.pipelines.get(caller, request);
  }

  @MessagePattern(Subjects.CallResultsList)
  callResults(@RpcCaller() caller: Caller, @ValidRequest() request: ListCallResultsRequest) {
    return this.pipelines.callResults(caller, request);
  }
}
