import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { RelationshipTypesService } from './relationship-types.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class RelationshipTypesHandler {
  constructor(private readonly types: RelationshipTypesService) {}

  @MessagePattern(Subjects.RelationshipTypesList)
  list(@Payload() request: RpcRequest) {
    return this.types.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.RelationshipTypesCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.types.create(request.caller, request.payload), { httpStatus: 201 });
  }

  @MessagePattern(Subjects.RelationshipTypesGet)
  get(@Payload() request: RpcRequest) {
    return this.types.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.RelationshipTypesUpdate)
  update(@Payload() request: RpcRequest) {
    return this.types.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.RelationshipTypesDelete)
  delete(@Payload() request: RpcRequest) {
    return this.types.delete(request.caller, request.payload);
  }
}
