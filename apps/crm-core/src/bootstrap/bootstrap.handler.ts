import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest } from '@crm/messaging';
import { Subjects, type BootstrapRequest, type Caller } from '@crm/contracts';
import { BootstrapService } from './bootstrap.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class BootstrapHandler {
  constructor(private readonly bootstrap: BootstrapService) {}

  /** The request has no parameters; it is still validated (unknown query parameters are refused). */
  @MessagePattern(Subjects.Bootstrap)
  get(@RpcCaller() caller: Caller, @ValidRequest() _request: BootstrapRequest) {
    return this.bootstrap.get(caller);
  }
}
