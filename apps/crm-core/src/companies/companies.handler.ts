import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CompanyIdRequest,
  type ListCompaniesRequest,
  type PatchCompanyRequest,
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
}
