import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest, reply } from '@crm/messaging';
import {
  Subjects,
  type ActionIdRequest,
  type Caller,
  type CreateActionRequest,
  type ExternalActionRequest,
  type ListActionsRequest,
  type UpdateActionRequest,
} from '@crm/contracts';
import { ActionsService } from './actions.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class ActionsHandler {
  constructor(private readonly actions: ActionsService) {}

  @MessagePattern(Subjects.ActionsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListActionsRequest) {
    return this.actions.list(caller, request);
  }

  @MessagePattern(Subjects.ActionsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.get(caller, request);
  }

  @MessagePattern(Subjects.ActionsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateActionRequest) {
    return this.actions.create(caller, request);
  }

  @MessagePattern(Subjects.ActionsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateActionRequest) {
    return this.actions.update(caller, request);
  }

  @MessagePattern(Subjects.ActionsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.delete(caller, request);
  }

  @MessagePattern(Subjects.ActionsMarkAsDone)
  markAsDone(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.markAsDone(caller, request);
  }

  @MessagePattern(Subjects.ActionsUndoCompletion)
  undoCompletion(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.undoCompletion(caller, request);
  }

  @MessagePattern(Subjects.ActionsSwap)
  swap(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.swap(caller, request);
  }

  @MessagePattern(Subjects.ActionsUnassign)
  unassign(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.unassign(caller, request);
  }

  @MessagePattern(Subjects.ActionsPromote)
  promote(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.promoteAction(caller, request);
  }

  @MessagePattern(Subjects.ActionsRevertPromotion)
  revertPromotion(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.revertPromotion(caller, request);
  }

  @MessagePattern(Subjects.ActionsUnlink)
  unlink(@RpcCaller() caller: Caller, @ValidRequest() request: ActionIdRequest) {
    return this.actions.unlink(caller, request);
  }

  /** 201 when the mirrored action is created, 200 when it is updated (decisions.md "Requests"): the route declares 200. */
  @MessagePattern(Subjects.ActionsExternalUpsert)
  async upsertExternal(@RpcCaller() caller: Caller, @ValidRequest() request: ExternalActionRequest) {
    const { data, created } = await this.actions.upsertExternal(caller, request);
    return created ? reply(data, { httpStatus: 201 }) : data;
  }
}
