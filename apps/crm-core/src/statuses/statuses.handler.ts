import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcListFormat, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  ONEPAGECRM_STATUSES_LIST,
  Subjects,
  type Caller,
  type CreateStatusRequest,
  type ListFormatChoice,
  type ListStatusesRequest,
  type PatchStatusRequest,
  type StatusIdRequest,
  type UpdateStatusRequest,
} from '@crm/contracts';
import { ListFormatsService } from '../accounts/list-formats.service';
import { StatusesService } from './statuses.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class StatusesHandler {
  constructor(
    private readonly statuses: StatusesService,
    private readonly lists: ListFormatsService,
  ) {}

  @MessagePattern(Subjects.StatusesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListStatusesRequest, @RpcListFormat() choice?: ListFormatChoice) {
    return this.lists.answer(caller, choice, request, (page) => this.statuses.list(caller, page), ONEPAGECRM_STATUSES_LIST);
  }

  @MessagePattern(Subjects.StatusesCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateStatusRequest) {
    return this.statuses.create(caller, request);
  }

  @MessagePattern(Subjects.StatusesGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: StatusIdRequest) {
    return this.statuses.get(caller, request);
  }

  @MessagePattern(Subjects.StatusesUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateStatusRequest) {
    return this.statuses.update(caller, request);
  }

  @MessagePattern(Subjects.StatusesPatch)
  patch(@RpcCaller() caller: Caller, @ValidRequest() request: PatchStatusRequest) {
    return this.statuses.patch(caller, request);
  }

  @MessagePattern(Subjects.StatusesDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: StatusIdRequest) {
    return this.statuses.delete(caller, request);
  }
}
