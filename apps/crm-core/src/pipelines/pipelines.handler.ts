import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcListFormat, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  ONEPAGECRM_CALL_RESULTS_LIST,
  Subjects,
  type Caller,
  type ListCallResultsRequest,
  type ListFormatChoice,
  type ListPipelinesRequest,
  type PipelineIdRequest,
} from '@crm/contracts';
import { ListFormatsService } from '../accounts/list-formats.service';
import { PipelinesService } from './pipelines.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class PipelinesHandler {
  constructor(
    private readonly pipelines: PipelinesService,
    private readonly lists: ListFormatsService,
  ) {}

  @MessagePattern(Subjects.PipelinesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListPipelinesRequest) {
    return this.pipelines.list(caller, request);
  }

  @MessagePattern(Subjects.PipelinesGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: PipelineIdRequest) {
    return this.pipelines.get(caller, request);
  }

  @MessagePattern(Subjects.CallResultsList)
  callResults(@RpcCaller() caller: Caller, @ValidRequest() request: ListCallResultsRequest, @RpcListFormat() choice?: ListFormatChoice) {
    return this.lists.answer(caller, choice, request, (page) => this.pipelines.callResults(caller, page), ONEPAGECRM_CALL_RESULTS_LIST);
  }
}
