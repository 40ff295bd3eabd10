import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcOrigin, RpcReplyInterceptor, ValidRequest, reply } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type ActionStreamRequest,
  type CascadeContactsRequest,
  type ChangeOwnerRequest,
  type ChangeStatusRequest,
  type CloseSalesCycleRequest,
  type ContactIdRequest,
  type DeleteContactRequest,
  type ContactIdsRequest,
  type ContactsByFilterRequest,
  type ContactTagRequest,
  type CreateContactRequest,
  type HttpOrigin,
  type ListContactsRequest,
  type PatchContactRequest,
  type SplitContactRequest,
  type TeamStreamRequest,
  type UpdateContactRequest,
} from '@crm/contracts';
import { ContactsService, type WithSummary } from './contacts.service';

const withSummary = <T>(result: WithSummary<T>) => reply(result.data, { summary: { ...result.summary } });

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class ContactsHandler {
  constructor(private readonly contacts: ContactsService) {}

  @MessagePattern(Subjects.ContactsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListContactsRequest) {
    return this.contacts.list(caller, request);
  }

  @MessagePattern(Subjects.ContactsCascade)
  cascade(@RpcCaller() caller: Caller, @ValidRequest() request: CascadeContactsRequest, @RpcOrigin() origin: HttpOrigin | undefined) {
    return this.contacts.cascade(caller, request, origin);
  }

  @MessagePattern(Subjects.ContactsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: ContactIdRequest) {
    return this.contacts.get(caller, request);
  }

  @MessagePattern(Subjects.ContactsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateContactRequest) {
    return this.contacts.create(caller, request);
  }

  @MessagePattern(Subjects.ContactsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateContactRequest) {
    return this.contacts.update(caller, request);
  }

  @MessagePattern(Subjects.ContactsPatch)
  patch(@RpcCaller() caller: Caller, @ValidRequest() request: PatchContactRequest) {
    return this.contacts.patch(caller, request);
  }

  @MessagePattern(Subjects.ContactsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: DeleteContactRequest) {
    return this.contacts.delete(caller, request);
  }

  @MessagePattern(Subjects.ContactsDeleteMany)
  async deleteMany(@RpcCaller() caller: Caller, @ValidRequest() request: ContactIdsRequest) {
    return withSummary(await this.contacts.deleteMany(caller, request));
  }

  @MessagePattern(Subjects.ContactsUndelete)
  async undelete(@RpcCaller() caller: Caller, @ValidRequest() request: ContactIdsRequest) {
    return withSummary(await this.contacts.undelete(caller, request));
  }

  @MessagePattern(Subjects.ContactsChangeStatus)
  async changeStatus(@RpcCaller() caller: Caller, @ValidRequest() request: ChangeStatusRequest) {
    return withSummary(await this.contacts.changeStatus(caller, request));
  }

  @MessagePattern(Subjects.ContactsAssignTag)
  async assignTag(@RpcCaller() caller: Caller, @ValidRequest() request: ContactTagRequest) {
    return withSummary(await this.contacts.assignTag(caller, request));
  }

  @MessagePattern(Subjects.ContactsUnassignTag)
  async unassignTag(@RpcCaller() caller: Caller, @ValidRequest() request: ContactTagRequest) {
    return withSummary(await this.contacts.unassignTag(caller, request));
  }

  @MessagePattern(Subjects.ContactsCloseSalesCycle)
  closeSalesCycle(@RpcCaller() caller: Caller, @ValidRequest() request: CloseSalesCycleRequest) {
    return this.contacts.closeSalesCycle(caller, request);
  }

  @MessagePattern(Subjects.ContactsForceCloseSalesCycle)
  forceCloseSalesCycle(@RpcCaller() caller: Caller, @ValidRequest() request: CloseSalesCycleRequest) {
    return this.contacts.forceCloseSalesCycle(caller, request);
  }

  @MessagePattern(Subjects.ContactsReopenSalesCycle)
  reopenSalesCycle(@RpcCaller() caller: Caller, @ValidRequest() request: ContactIdRequest) {
    return this.contacts.reopenSalesCycle(caller, request);
  }

  @MessagePattern(Subjects.ContactsChangeOwner)
  changeOwner(@RpcCaller() caller: Caller, @ValidRequest() request: ChangeOwnerRequest) {
    return this.contacts.changeOwner(caller, request);
  }

  @MessagePattern(Subjects.ContactsStar)
  star(@RpcCaller() caller: Caller, @ValidRequest() request: ContactIdRequest) {
    return this.contacts.setStarred(caller, request, true);
  }

  @MessagePattern(Subjects.ContactsUnstar)
  unstar(@RpcCaller() caller: Caller, @ValidRequest() request: ContactIdRequest) {
    return this.contacts.setStarred(caller, request, false);
  }

  @MessagePattern(Subjects.ContactsSplit)
  split(@RpcCaller() caller: Caller, @ValidRequest() request: SplitContactRequest) {
    return this.contacts.split(caller, request);
  }

  @MessagePattern(Subjects.ContactsSaveToGoogle)
  saveToGoogleContacts(@RpcCaller() caller: Caller, @ValidRequest() request: ContactIdRequest) {
    return this.contacts.saveToGoogleContacts(caller, request);
  }

  @MessagePattern(Subjects.ContactsByFilter)
  byFilter(@RpcCaller() caller: Caller, @ValidRequest() request: ContactsByFilterRequest) {
    return this.contacts.byFilter(caller, request);
  }

  @MessagePattern(Subjects.ContactsActionStream)
  actionStream(@RpcCaller() caller: Caller, @ValidRequest() request: ActionStreamRequest) {
    return this.contacts.actionStream(caller, request);
  }

  @MessagePattern(Subjects.ContactsTeamStream)
  teamStream(@RpcCaller() caller: Caller, @ValidRequest() request: TeamStreamRequest) {
    return this.contacts.teamStream(caller, request);
  }
}
