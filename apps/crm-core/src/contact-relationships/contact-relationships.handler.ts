import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { ContactRelationshipsService } from './contact-relationships.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class ContactRelationshipsHandler {
  constructor(private readonly relationships: ContactRelationshipsService) {}

  @MessagePattern(Subjects.ContactRelationshipsList)
  list(@Payload() request: RpcRequest) {
    return this.relationships.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ContactRelationshipsCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.relationships.create(request.caller, request.payload), { httpStatus: 201 });
  }

  @MessagePattern(Subjects.ContactRelationshipsDelete)
  delete(@Payload() request: RpcRequest) {
    return this.relationships.delete(request.caller, request.payload);
  }
}
