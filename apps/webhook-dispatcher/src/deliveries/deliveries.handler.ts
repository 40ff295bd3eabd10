import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { DeliveriesService } from './deliveries.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class DeliveriesHandler {
  constructor(private readonly deliveries: DeliveriesService) {}

  @MessagePattern(Subjects.WebhookDeliveriesList)
  list(@Payload() r: RpcRequest) {
    return this.deliveries.list(r.caller, r.payload);
  }

  @MessagePattern(Subjects.WebhookDeliveriesRedeliver)
  redeliver(@Payload() r: RpcRequest) {
    return this.deliveries.redeliver(r.caller, r.payload);
  }
}
