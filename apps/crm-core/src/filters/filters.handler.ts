import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { FiltersService } from './filters.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class FiltersHandler {
  constructor(private readonly filters: FiltersService) {}

  @MessagePattern(Subjects.FiltersList)
  list(@Payload() request: RpcRequest) {
    return this.filters.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.FiltersCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.filters.create(request.caller, request.payload), { httpStatus: 201 });
  }

  @MessagePattern(Subjects.FiltersGet)
  get(@Payload() request: RpcRequest) {
    return this.filters.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.FiltersUpdate)
  update(@Payload() request: RpcRequest) {
    return this.filters.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.FiltersPatch)
  patch(@Payload() request: RpcRequest) {
    return this.filters.patch(request.caller, request.payload);
  }

  @MessagePattern(Subjects.FiltersDelete)
  delete(@Payload() request: RpcRequest) {
    return this.filters.delete(request.caller, request.payload);
  }
}
