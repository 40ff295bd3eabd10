import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { CallsService } from './calls.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class CallsHandler {
  constructor(private readonly calls: CallsService) {}

  @MessagePattern(Subjects.CallsList)
  list(@Payload() request: RpcRequest) {
    return this.calls.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.CallsGet)
  get(@Payload() request: RpcRequest) {
    return this.calls.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.CallsCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.calls.create(request.caller, request.payload), {
      httpStatus: 201,
    });
  }

  @MessagePattern(Subjects.CallsUpdate)
  update(@Payload() request: RpcRequest) {
    return this.calls.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.CallsDelete)
  delete(@Payload() request: RpcRequest) {
    return this.calls.delete(request.caller, request.payload);
  }
}
