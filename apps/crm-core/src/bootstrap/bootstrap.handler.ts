import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcCaller, RpcReplyInterceptor, ValidRequest, reply } from '@crm/messaging';
import { Subjects, type BootstrapRequest, type Caller } from '@crm/contracts';
import { BootstrapService } from './bootstrap.service';

@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class BootstrapHandler {
  constructor(private readonly bootstrap: BootstrapService) {}

  /** The request has no parameters; it is still validated (unknown query parameters are refused). */
  @MessagePattern(Subjects.Bootstrap)
  async get(@RpcCaller() caller: Caller, @ValidRequest() _request: BootstrapRequest) {
    const { data, summary } = await this.bootstrap.get(caller);
    return reply(data, { summary: { ...summary } });
  }
}
