import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcReplyInterceptor } from '@crm/messaging';
import { Subjects, type ProvisionAccountReply } from '@crm/contracts';
import { AccountsService } from './accounts.service';

/** Internal subject (auth-server -> crm-core): no caller, the auth-server is the operator. */
@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class AccountsHandler {
  constructor(private readonly accounts: AccountsService) {}

  @MessagePattern(Subjects.UsersProvision)
  provisionUser(@Payload() message: unknown): Promise<{ user_id: string }> {
    return this.accounts.provisionUser(message);
  }

  @MessagePattern(Subjects.AccountsProvision)
  provision(@Payload() message: unknown): Promise<ProvisionAccountReply> {
    return this.accounts.provision(message);
  }
}
