import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type CallIdRequest,
  type Caller,
  type CreateCallRequest,
  type ListCallsRequest,
  type UpdateCallRequest,
} from '@crm/contracts';
import { CallsService } from './calls.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class CallsHandler {
  constructor(private readonly calls: CallsService) {}

  @MessagePattern(Subjects.CallsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListCallsRequest) {
    return this.calls.list(caller, request);
  }

  @MessagePattern(Subjects.CallsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: CallIdRequest) {
    return this.calls.get(caller, request);
  }

  @MessagePattern(Subjects.CallsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateCallRequest) {
    return this.calls.create(caller, request);
  }

  @MessagePattern(Subjects.CallsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateCallRequest) {
    return this.calls.update(caller, request);
  }

  @MessagePattern(Subjects.CallsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: CallIdRequest) {
    return this.calls.delete(caller, request);
  }
}
