import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { WebhooksService } from './webhooks.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class WebhooksHandler {
  constructor(private readonly webhooks: WebhooksService) {}

  @MessagePattern(Subjects.WebhooksList)
  list(@Payload() r: RpcRequest) {
    return this.webhooks.list(r.caller, r.payload);
  }

  @MessagePattern(Subjects.WebhooksCreate)
  create(@Payload() r: RpcRequest) {
    return this.webhooks.create(r.caller, r.payload);
  }

  @MessagePattern(Subjects.WebhooksGet)
  get(@Payload() r: RpcRequest) {
    return this.webhooks.get(r.caller, r.payload);
  }

  @MessagePattern(Subjects.WebhooksUpdate)
  update(@Payload() r: RpcRequest) {
    return this.webhooks.update(r.caller, r.payload);
  }

  @MessagePattern(Subjects.WebhooksDelete)
  delete(@Payload() r: RpcRequest) {
    return this.webhooks.delete(r.caller, r.payload);
  }

  @MessagePattern(Subjects.WebhooksRotateSecret)
  rotateSecret(@Payload() r: RpcRequest) {
    return this.webhooks.rotateSecret(r.caller, r.payload);
  }
}
