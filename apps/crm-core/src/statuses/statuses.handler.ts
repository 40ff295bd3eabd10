import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { StatusesService } from './statuses.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class StatusesHandler {
  constructor(private readonly statuses: StatusesService) {}

  @MessagePattern(Subjects.StatusesList)
  list(@Payload() request: RpcRequest) {
    return this.statuses.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.StatusesCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.statuses.create(request.caller, request.payload), { httpStatus: 201 });
  }

  @MessagePattern(Subjects.StatusesGet)
  get(@Payload() request: RpcRequest) {
    return this.statuses.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.StatusesUpdate)
  update(@Payload() request: RpcRequest) {
    return this.statuses.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.StatusesPatch)
  patch(@Payload() request: RpcRequest) {
    return this.statuses.patch(request.caller, request.payload);
  }

  @MessagePattern(Subjects.StatusesDelete)
  delete(@Payload() request: RpcRequest) {
    return this.statuses.delete(request.caller, request.payload);
  }
}
