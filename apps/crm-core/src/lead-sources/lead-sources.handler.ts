import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { LeadSourcesService } from './lead-sources.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class LeadSourcesHandler {
  constructor(private readonly leadSources: LeadSourcesService) {}

  @MessagePattern(Subjects.LeadSourcesList)
  list(@Payload() request: RpcRequest) {
    return this.leadSources.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.LeadSourcesCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.leadSources.create(request.caller, request.payload), { httpStatus: 201 });
  }

  @MessagePattern(Subjects.LeadSourcesGet)
  get(@Payload() request: RpcRequest) {
    return this.leadSources.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.LeadSourcesUpdate)
  update(@Payload() request: RpcRequest) {
    return this.leadSources.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.LeadSourcesPatch)
  patch(@Payload() request: RpcRequest) {
    return this.leadSources.patch(request.caller, request.payload);
  }

  @MessagePattern(Subjects.LeadSourcesDelete)
  delete(@Payload() request: RpcRequest) {
    return this.leadSources.delete(request.caller, request.payload);
  }
}
