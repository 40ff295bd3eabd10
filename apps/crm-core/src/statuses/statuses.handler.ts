import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CreateStatusRequest,
  type ListStatusesRequest,
  type PatchStatusRequest,
  type StatusIdRequest,
  type UpdateStatusRequest,
} from '@crm/contracts';
import { StatusesService } from './statuses.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class StatusesHandler {
  constructor(private readonly statuses: StatusesService) {}

  @MessagePattern(Subjects.StatusesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListStatusesRequest) {
    return this.statuses.list(caller, request);
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
