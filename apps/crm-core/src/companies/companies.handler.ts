import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { CompaniesService } from './companies.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class CompaniesHandler {
  constructor(private readonly companies: CompaniesService) {}

  @MessagePattern(Subjects.CompaniesList)
  list(@Payload() request: RpcRequest) {
    return this.companies.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.CompaniesGet)
  get(@Payload() request: RpcRequest) {
    return this.companies.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.CompaniesUpdate)
  update(@Payload() request: RpcRequest) {
    return this.companies.update(request.caller, request.payload);
  }

  @MessagePattern(Subjects.CompaniesPatch)
  patch(@Payload() request: RpcRequest) {
    return this.companies.patch(request.caller, request.payload);
  }
}
