import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CompanyIdRequest,
  type LinkedContactRequest,
  type ListCompaniesRequest,
  type ListLinkedContactsRequest,
  type PatchCompanyRequest,
  type SetSyncedStatusRequest,
  type UpdateCompanyRequest,
} from '@crm/contracts';
import { CompaniesService } from './companies.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class CompaniesHandler {
  constructor(private readonly companies: CompaniesService) {}

  @MessagePattern(Subjects.CompaniesList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListCompaniesRequest) {
    return this.companies.list(caller, request);
  }

  @MessagePattern(Subjects.CompaniesGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: CompanyIdRequest) {
    return this.companies.get(caller, request);
  }

  @MessagePattern(Subjects.CompaniesUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateCompanyRequest) {
    return this.companies.update(caller, request);
  }

  @MessagePattern(Subjects.CompaniesPatch)
  patch(@RpcCaller() caller: Caller, @ValidRequest() request: PatchCompanyRequest) {
    return this.companies.patch(caller, request);
  }

  @MessagePattern(Subjects.CompaniesLinkedContactsList)
  linkedContacts(@RpcCaller() caller: Caller, @ValidRequest() request: ListLinkedContactsRequest) {
    return this.companies.linkedContacts(caller, request);
  }

  @MessagePattern(Subjects.CompaniesLinkedContactsLink)
  link(@RpcCaller() caller: Caller, @ValidRequest() request: LinkedContactRequest) {
    return this.companies.link(caller, request);
  }

  @MessagePattern(Subjects.CompaniesLinkedContactsUnlink)
  unlink(@RpcCaller() caller: Caller, @ValidRequest() request: LinkedContactRequest) {
    return this.companies.unlink(caller, request);
  }

  @MessagePattern(Subjects.CompaniesSyncedStatusSet)
  setSyncedStatus(@RpcCaller() caller: Caller, @ValidRequest() request: SetSyncedStatusRequest) {
    return this.companies.setSyncedStatus(caller, request);
  }

  @MessagePattern(Subjects.CompaniesSyncedStatusRemove)
  removeSyncedStatus(@RpcCaller() caller: Caller, @ValidRequest() request: CompanyIdRequest) {
    return this.companies.removeSyncedStatus(caller, request);
  }
}
