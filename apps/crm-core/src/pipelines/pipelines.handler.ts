import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { PipelinesService } from './pipelines.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class PipelinesHandler {
  constructor(private readonly pipelines: PipelinesService) {}

  @MessagePattern(Subjects.PipelinesList)
  list(@Payload() request: RpcRequest) {
    return this.pipelines.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.PipelinesGet)
  get(@Payload() request: RpcRequest) {
    return this.pipelines.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.CallResultsList)
  callResults(@Payload() request: RpcRequest) {
    return this.pipelines.callResults(request.caller, request.payload);
  }
}
