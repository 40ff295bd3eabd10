import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CreatePredefinedActionGroupRequest,
  type CreatePredefinedActionRequest,
  type ListPredefinedActionGroupsRequest,
  type ListPredefinedActionsRequest,
  type PredefinedActionGroupIdRequest,
  type PredefinedActionIdRequest,
  type UpdatePredefinedActionGroupRequest,
  type UpdatePredefinedActionRequest,
} from '@crm/contracts';
import { PredefinedActionsService } from './predefined-actions.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class PredefinedActionsHandler {
  constructor(private readonly service: PredefinedActionsService) {}

  @MessagePattern(Subjects.PredefinedActionsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListPredefinedActionsRequest) {
    return this.service.list(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreatePredefinedActionRequest) {
    return this.service.create(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: PredefinedActionIdRequest) {
    return this.service.get(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: PredefinedActionIdRequest) {
    return this.service.delete(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsList)
  listGroups(@RpcCaller() caller: Caller, @ValidRequest() request: ListPredefinedActionGroupsRequest) {
    return this.service.listGroups(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsCreate)
  createGroup(@RpcCaller() caller: Caller, @ValidRequest() request: CreatePredefinedActionGroupRequest) {
    return this.service.createGroup(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsGet)
  getGroup(@RpcCaller() caller: Caller, @ValidRequest() request: PredefinedActionGroupIdRequest) {
    return this.service.getGroup(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsDelete)
  deleteGroup(@RpcCaller() caller: Caller, @ValidRequest() request: PredefinedActionGroupIdRequest) {
    return this.service.deleteGroup(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdatePredefinedActionRequest) {
    return this.service.update(caller, request);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsUpdate)
  updateGroup(@RpcCaller() caller: Caller, @ValidRequest() request: UpdatePredefinedActionGroupRequest) {
    return this.service.updateGroup(caller, request);
  }
}
