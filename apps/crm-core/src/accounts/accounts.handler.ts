import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { parseContract, ProvisionAccountMessage, ProvisionUserMessage, Subjects, type ProvisionAccountReply } from '@crm/contracts';
import { AccountsService } from './accounts.service';

/**
 * Internal subjects (auth-server -> crm-core): no caller, the auth-server is the operator. The
 * message is the payload itself (no RpcRequest envelope), so it is parsed here rather than by
 * @ValidRequest(), which reads an envelope's `payload`.
 */
@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class AccountsHandler {
  constructor(private readonly accounts: AccountsService) {}

  @MessagePattern(Subjects.UsersProvision)
  provisionUser(@Payload() message: unknown): Promise<{ user_id: string }> {
    return this.accounts.provisionUser(parseContract(ProvisionUserMessage, message));
  }

  @MessagePattern(Subjects.AccountsProvision)
  provision(@Payload() message: unknown): Promise<ProvisionAccountReply> {
    return this.accounts.provision(parseContract(ProvisionAccountMessage, message));
  }
}
