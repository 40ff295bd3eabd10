import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type RpcRequest } from '@crm/contracts';
import { BootstrapService } from './bootstrap.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class BootstrapHandler {
  constructor(private readonly bootstrap: BootstrapService) {}

  @MessagePattern(Subjects.Bootstrap)
  get(@Payload() request: RpcRequest) {
    return this.bootstrap.get(request.caller, request.payload);
  }
}
