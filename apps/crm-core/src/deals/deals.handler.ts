import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor, reply } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { DealsService } from './deals.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class DealsHandler {
  constructor(private readonly deals: DealsService) {}

  @MessagePattern(Subjects.DealsList)
  list(@Payload() request: RpcRequest) {
    return this.deals.list(request.caller, request.payload);
  }

  @MessagePattern(Subjects.DealsGet)
  get(@Payload() request: RpcRequest) {
    return this.deals.get(request.caller, request.payload);
  }

  @MessagePattern(Subjects.DealsCreate)
  async create(@Payload() request: RpcRequest) {
    return reply(await this.deals.create(request.caller, request.payload), {
      httpStatus: 201,
    });
  }

  @MessagePattern(Subjects.DealsUpdate)
  update(@Payload() request: RpcRequest) {
    return this.deals.update(request.caller, request.payload, 'put');
  }

  @MessagePattern(Subjects.DealsPatch)
  patch(@Payload() request: RpcRequest) {
    return this.deals.update(request.caller, request.payload, 'patch');
  }

  @MessagePattern(Subjects.DealsDelete)
  delete(@Payload() request: RpcRequest) {
    return this.deals.delete(request.caller, request.payload);
  }
}
