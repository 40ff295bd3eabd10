import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import {
  Subjects,
  type Caller,
  type CreateDealRequest,
  type DealIdRequest,
  type GetDealRequest,
  type ListDealsRequest,
  type PatchDealRequest,
  type UpdateDealRequest,
} from '@crm/contracts';
import { DealsService } from './deals.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class DealsHandler {
  constructor(private readonly deals: DealsService) {}

  @MessagePattern(Subjects.DealsList)
  list(@RpcCaller() caller: Caller, @ValidRequest() request: ListDealsRequest) {
    return this.deals.list(caller, request);
  }

  @MessagePattern(Subjects.DealsGet)
  get(@RpcCaller() caller: Caller, @ValidRequest() request: GetDealRequest) {
    return this.deals.get(caller, request);
  }

  @MessagePattern(Subjects.DealsCreate)
  create(@RpcCaller() caller: Caller, @ValidRequest() request: CreateDealRequest) {
    return this.deals.create(caller, request);
  }

  @MessagePattern(Subjects.DealsUpdate)
  update(@RpcCaller() caller: Caller, @ValidRequest() request: UpdateDealRequest) {
    return this.deals.update(caller, request, 'put');
  }

  @MessagePattern(Subjects.DealsPatch)
  patch(@RpcCaller() caller: Caller, @ValidRequest() request: PatchDealRequest) {
    return this.deals.update(caller, request, 'patch');
  }

  @MessagePattern(Subjects.DealsDelete)
  delete(@RpcCaller() caller: Caller, @ValidRequest() request: DealIdRequest) {
    return this.deals.delete(caller, request);
  }
}
