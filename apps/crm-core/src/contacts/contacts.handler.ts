import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type HttpOrigin, type RpcRequest } from '@crm/contracts';
import { ContactsService, type WithSummary } from './contacts.service';

const withSummary = <T>(result: WithSummary<T>) => reply(result.data, { summary: { ...result.summary } });

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class ContactsHandler {
  constructor(private readonly contacts: ContactsService) {}

  @MessagePattern(Subjects.ContactsList)
  list(@Payload() request: RpcRequest) {
    return this.contacts.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ContactsCascade)
  cascade(@Payload() request: RpcRequest & { origin?: HttpOrigin }) {
    return this.contacts.cascade(request.caller, request.payload, request.origin);
  }

  @MessagePattern(Subjects.ContactsGet)
  get(@Payload() request: RpcRequest) {
    return this.contacts.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ContactsCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.contacts.create(request.caller, request.payload), { httpStatus: 201 });
  }

  @MessagePattern(Subjects.ContactsUpdate)
  update(@Payload() request: RpcRequest) {
    return this.contacts.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ContactsPatch)
  patch(@Payload() request: RpcRequest) {
    return this.contacts.patch(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ContactsDelete)
  delete(@Payload() request: RpcRequest) {
    return this.contacts.delete(request.caller, request.payload);
  }

  @MessagePattern(Subjects.ContactsDeleteMany)
  async deleteMany(@Payload() request: RpcRequest) {
    return withSummary(await this.contacts.deleteMany(request.caller, request.payload));
  }

  @MessagePattern(Subjects.ContactsUndelete)
  async undelete(@Payload() request: RpcRequest) {
    return withSummary(await this.contacts.undelete(request.caller, request.payload));
  }

  @MessagePattern(Subjects.ContactsChangeStatus)
  async changeStatus(@Payload() request: RpcRequest) {
    return withSummary(await this.contacts.changeStatus(request.caller, request.payload));
  }

  @MessagePattern(Subjects.ContactsAssignTag)
  async assignTag(@Payload() request: RpcRequest) {
    return withSummary(await this.contacts.assignTag(request.caller, request.payload));
  }

  @MessagePattern(Subjects.ContactsUnassignTag)
  async unassignTag(@Payload() request: RpcRequest) {
    return withSummary(await this.contacts.unassignTag(request.caller, request.payload));
  }

  @MessagePattern(Subjects.ContactsCloseSalesCycle)
  closeSalesCycle(@Payload() request: RpcRequest) {
    return this.contacts.closeSalesCycle(request.caller, request.payload);
  }
}
