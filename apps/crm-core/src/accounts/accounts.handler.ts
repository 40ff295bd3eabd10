import { Controller, UseInterceptors } from '@nestjs/common';
import { MessagePattern } from '@nestjs/microservices';
import { RpcReplyInterceptor, ValidMessage } from '@crm/messaging';
import {
  ProvisionAccountMessage,
  ProvisionUserMessage,
  Subjects,
  UpdateAccountSettingsMessage,
  type AccountSettingsReply,
  type ProvisionAccountReply,
} from '@crm/contracts';
import { AccountsService } from './accounts.service';

/** Internal subjects (auth-server -> crm-core): no caller, the auth-server is the operator; the message has no envelope. */
@Controller()
@UseInterceptors(RpcReplyInterceptor)
export class AccountsHandler {
  constructor(private readonly accounts: AccountsService) {}

  @MessagePattern(Subjects.UsersProvision)
  provisionUser(@ValidMessage(ProvisionUserMessage) message: ProvisionUserMessage): Promise<{ user_id: string }> {
    return this.accounts.provisionUser(message);
  }

  @MessagePattern(Subjects.AccountsProvision)
  provision(@ValidMessage(ProvisionAccountMessage) message: ProvisionAccountMessage): Promise<ProvisionAccountReply> {
    return this.accounts.provision(message);
  }

  @MessagePattern(Subjects.AccountsSettingsUpdate)
  updateSettings(@ValidMessage(UpdateAccountSettingsMessage) message: UpdateAccountSettingsMessage): Promise<AccountSettingsReply> {
    return this.accounts.updateSettings(message);
  }
}
