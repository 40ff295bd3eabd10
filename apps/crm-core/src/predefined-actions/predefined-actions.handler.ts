import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { PredefinedActionsService } from './predefined-actions.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class PredefinedActionsHandler {
  constructor(private readonly service: PredefinedActionsService) {}

  @MessagePattern(Subjects.PredefinedActionsList)
  list(@Payload() r: RpcRequest) {
    return this.service.list(r.caller, r.payload);
  }

  @MessagePattern(Subjects.PredefinedActionsCreate)
  create(@Payload() r: RpcRequest) {
    return this.service.create(r.caller, r.payload);
  }

  @MessagePattern(Subjects.PredefinedActionsGet)
  get(@Payload() r: RpcRequest) {
    return this.service.get(r.caller, r.payload);
  }

  @MessagePattern(Subjects.PredefinedActionsDelete)
  delete(@Payload() r: RpcRequest) {
    return this.service.delete(r.caller, r.payload);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsList)
  listGroups(@Payload() r: RpcRequest) {
    return this.service.listGroups(r.caller, r.payload);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsCreate)
  createGroup(@Payload() r: RpcRequest) {
    return this.service.createGroup(r.caller, r.payload);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsGet)
  getGroup(@Payload() r: RpcRequest) {
    return this.service.getGroup(r.caller, r.payload);
  }

  @MessagePattern(Subjects.PredefinedActionGroupsDelete)
  deleteGroup(@Payload() r: RpcRequest) {
    return this.service.deleteGroup(r.caller, r.payload);
  }
}
