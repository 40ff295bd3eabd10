import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CreateRelationshipTypeRequest,
  type ListRelationshipTypesRequest,
  type RelationshipTypeIdRequest,
  type UpdateRelationshipTypeRequest,
} from '@crm/contracts';
import { RelationshipTypesService } from './relationship-types.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class RelationshipTypesHandler {
  constructor(private readonly types: RelationshipTypesService) {}

  @MessagePattern(Subjects.RelationshipTypesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListRelationshipTypesRequest) {
    return this.types.list(caller, request);
  }

  @MessagePattern(Subjects.RelationshipTypesCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateRelationshipTypeRequest) {
    return this.types.create(caller, request);
  }

  @MessagePattern(Subjects.RelationshipTypesGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: RelationshipTypeIdRequest) {
    return this.types.get(caller, request);
  }

  @MessagePattern(Subjects.RelationshipTypesUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateRelationshipTypeRequest) {
    return this.types.update(caller, request);
  }

  @MessagePattern(Subjects.RelationshipTypesDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: RelationshipTypeIdRequest) {
    return this.types.delete(caller, request);
  }
}
