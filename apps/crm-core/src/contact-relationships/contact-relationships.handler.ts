import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type ContactRelationshipIdRequest,
  type DeleteContactRelationshipRequest,
  type CreateContactRelationshipRequest,
  type ListContactRelationshipsRequest,
  type UpdateContactRelationshipRequest,
} from '@crm/contracts';
import { ContactRelationshipsService } from './contact-relationships.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class ContactRelationshipsHandler {
  constructor(private readonly relationships: ContactRelationshipsService) {}

  @MessagePattern(Subjects.ContactRelationshipsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListContactRelationshipsRequest) {
    return this.relationships.list(caller, request);
  }

  @MessagePattern(Subjects.ContactRelationshipsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateContactRelationshipRequest) {
    return this.relationships.create(caller, request);
  }

  @MessagePattern(Subjects.ContactRelationshipsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: DeleteContactRelationshipRequest) {
    return this.relationships.delete(caller, request);
  }

  @MessagePattern(Subjects.ContactRelationshipsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: ContactRelationshipIdRequest) {
    return this.relationships.get(caller, request);
  }

  @MessagePattern(Subjects.ContactRelationshipsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateContactRelationshipRequest) {
    return this.relationships.update(caller, request);
  }
}
