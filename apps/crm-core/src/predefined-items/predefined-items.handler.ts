import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CreatePredefinedItemGroupRequest,
  type CreatePredefinedItemRequest,
  type ListPredefinedItemGroupsRequest,
  type ListPredefinedItemsRequest,
  type PredefinedItemGroupIdRequest,
  type PredefinedItemIdRequest,
  type UpdatePredefinedItemRequest,
} from '@crm/contracts';
import { PredefinedItemsService } from './predefined-items.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class PredefinedItemsHandler {
  constructor(private readonly service: PredefinedItemsService) {}

  @MessagePattern(Subjects.PredefinedItemsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListPredefinedItemsRequest) {
    return this.service.list(caller, request);
  }

  @MessagePattern(Subjects.PredefinedItemsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreatePredefinedItemRequest) {
    return this.service.create(caller, request);
  }

  @MessagePattern(Subjects.PredefinedItemsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: PredefinedItemIdRequest) {
    return this.service.get(caller, request);
  }

  @MessagePattern(Subjects.PredefinedItemsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdatePredefinedItemRequest) {
    return this.service.update(caller, request);
  }

  @MessagePattern(Subjects.PredefinedItemsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: PredefinedItemIdRequest) {
    return this.service.delete(caller, request);
  }

  @MessagePattern(Subjects.PredefinedItemGroupsList)
  listGroups(@RpcCaller() caller: Caller, @ValidRequest() request: ListPredefinedItemGroupsRequest) {
    return this.service.listGroups(caller, request);
  }

  @MessagePattern(Subjects.PredefinedItemGroupsCreate)
  createGroup(@RpcCaller() caller: Caller, @ValidRequest() request: CreatePredefinedItemGroupRequest) {
    return this.service.createGroup(caller, request);
  }

  @MessagePattern(Subjects.PredefinedItemGroupsGet)
  getGroup(@RpcCaller() caller: Caller, @ValidRequest() request: PredefinedItemGroupIdRequest) {
    return this.service.getGroup(caller, request);
  }

  @MessagePattern(Subjects.PredefinedItemGroupsDelete)
  deleteGroup(@RpcCaller() caller: Caller, @ValidRequest() request: PredefinedItemGroupIdRequest) {
    return this.service.deleteGroup(caller, request);
  }
}
