import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CreateLeadSourceRequest,
  type ListLeadSourcesRequest,
  type PatchLeadSourceRequest,
  type LeadSourceIdRequest,
  type UpdateLeadSourceRequest,
} from '@crm/contracts';
import { LeadSourcesService } from './lead-sources.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class LeadSourcesHandler {
  constructor(private readonly leadSources: LeadSourcesService) {}

  @MessagePattern(Subjects.LeadSourcesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListLeadSourcesRequest) {
    return this.leadSources.list(caller, request);
  }

  @MessagePattern(Subjects.LeadSourcesCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateLeadSourceRequest) {
    return this.leadSources.create(caller, request);
  }

  @MessagePattern(Subjects.LeadSourcesGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: LeadSourceIdRequest) {
    return this.leadSources.get(caller, request);
  }

  @MessagePattern(Subjects.LeadSourcesUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateLeadSourceRequest) {
    return this.leadSources.update(caller, request);
  }

  @MessagePattern(Subjects.LeadSourcesPatch)
  patch(@RpcCaller() caller: Caller, @ValidRequest() request: PatchLeadSourceRequest) {
    return this.leadSources.patch(caller, request);
  }

  @MessagePattern(Subjects.LeadSourcesDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: LeadSourceIdRequest) {
    return this.leadSources.delete(caller, request);
  }
}
