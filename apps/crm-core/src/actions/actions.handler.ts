import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { ActionsService } from './actions.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class ActionsHandler {
  constructor(private readonly actions: ActionsService) {}

  @MessagePattern(Subjects.ActionsList)
  list(@Payload() request: RpcRequest) {
    return this.actions.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ActionsGet)
  get(@Payload() request: RpcRequest) {
    return this.actions.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ActionsCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.actions.create(request.caller, request.payload), {
      httpStatus: 201,
    });
  }

  @MessagePattern(Subjects.ActionsUpdate)
  update(@Payload() request: RpcRequest) {
    return this.actions.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ActionsDelete)
  delete(@Payload() request: RpcRequest) {
    return this.actions.delete(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ActionsMarkAsDone)
  markAsDone(@Payload() request: RpcRequest) {
    return this.actions.markAsDone(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ActionsUndoCompletion)
  undoCompletion(@Payload() request: RpcRequest) {
    return this.actions.undoCompletion(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ActionsSwap)
  swap(@Payload() request: RpcRequest) {
    return this.actions.swap(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ActionsUnlink)
  unlink(@Payload() request: RpcRequest) {
    return this.actions.unlink(request.caller, request.payload);
  }

  /** 201 when the mirrored action is created, 200 when it is updated (decisions.md "Requests"). */
  @MessagePattern(Subjects.ActionsExternalUpsert)
  async upsertExternal(@Payload() request: RpcRequest) {
    const { data, created } = await this.actions.upsertExternal(request.caller, request.payload);
    return reply(data, { httpStatus: created ? 201 : 200 });
  }
}
