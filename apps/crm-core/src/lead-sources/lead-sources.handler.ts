import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcListFormat, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  ONEPAGECRM_LEAD_SOURCES_LIST,
  Subjects,
  type Caller,
  type CreateLeadSourceRequest,
  type ListFormatChoice,
  type ListLeadSourcesRequest,
  type PatchLeadSourceRequest,
  type LeadSourceIdRequest,
  type UpdateLeadSourceRequest,
} from '@crm/contracts';
import { ListFormatsService } from '../accounts/list-formats.service';
import { LeadSourcesService } from './lead-sources.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class LeadSourcesHandler {
  constructor(
    private readonly leadSources: LeadSourcesService,
    private readonly lists: ListFormatsService,
  ) {}

  @MessagePattern(Subjects.LeadSourcesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListLeadSourcesRequest, @RpcListFormat() choice?: ListFormatChoice) {
    return this.lists.answer(caller, choice, request, (page) => this.leadSources.list(caller, page), ONEPAGECRM_LEAD_SOURCES_LIST);
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
